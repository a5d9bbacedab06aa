// The authorization server of the OAuth end-to-end test: panva's
// oidc-provider (OpenID Certified; RFC 8414 metadata, dynamic client
// registration, authorization code with PKCE, RFC 8707 resource indicators
// with RFC 9068 JWT access tokens) on a loopback port.
//
// It prints "issuer <URL>" once it listens. SIGUSR2 rotates its signing
// key: a new ES256 key signs from then on, the old one stays published (as
// in a real rotation), and it prints "rotated <kid>".
//
// The person at the authorization endpoint is the client script's user
// agent: /interaction/<uid> answers JSON saying what it asks (login or
// consent); a POST of "account" logs in, a POST of "scope" grants those of
// the asked scopes and rejects the rest, as a consent screen would.
//
// A client registered with client_name "expired" gets tokens issued two
// hours back, through the provider's JWT customizer: an expired token from
// the real server without a test that waits out a lifetime.
import http from 'node:http';
import { generateKeyPair, exportJWK } from 'jose';
import Provider from 'oidc-provider';

const scopes = ['chaperone:read', 'chaperone:act', 'chaperone:caps'];

async function signingKey(kid) {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg: 'ES256', use: 'sig' };
}

function makeProvider(issuer, keys) {
  const provider = new Provider(issuer, {
    jwks: { keys },
    clients: [],
    clientDefaults: { id_token_signed_response_alg: 'ES256' },
    // Advertised (scopes_supported) and allowed in a registration.
    scopes: ['openid', 'offline_access', ...scopes],
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        // Any resource gets JWT access tokens with itself as the audience:
        // the test asks for another server's audience on purpose.
        getResourceServerInfo: (ctx, resourceIndicator) => ({
          scope: scopes.join(' '),
          audience: resourceIndicator,
          accessTokenTTL: 600,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
    interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: async (ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    formats: {
      customizers: {
        jwt: async (ctx, token, jwt) => {
          if (token.client?.clientName === 'expired') {
            jwt.payload.iat -= 7200;
            jwt.payload.exp = jwt.payload.iat + 600;
          }
        },
      },
    },
  });
  return provider;
}

function readForm(req) {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => { body += c; if (body.length > 1 << 16) reject(new Error('body too large')); });
    req.on('end', () => resolve(new URLSearchParams(body)));
    req.on('error', reject);
  });
}

async function interaction(provider, req, res, uid, action) {
  const details = await provider.interactionDetails(req, res);
  if (details.uid !== uid) throw new Error('interaction mismatch');
  if (req.method === 'GET') {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ uid, prompt: details.prompt.name, details: details.prompt.details, params: details.params }));
    return;
  }
  const form = await readForm(req);
  if (action === 'login') {
    await provider.interactionFinished(req, res, { login: { accountId: form.get('account') } }, { mergeWithLastSubmission: false });
    return;
  }
  if (action === 'consent') {
    const granted = (form.get('scope') || '').split(' ').filter(Boolean);
    const { prompt: { details: missing }, params, session } = details;
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    for (const [resource, asked] of Object.entries(missing.missingResourceScopes || {})) {
      const yes = asked.filter((s) => granted.includes(s));
      const no = asked.filter((s) => !granted.includes(s));
      if (yes.length) grant.addResourceScope(resource, yes.join(' '));
      if (no.length) grant.rejectResourceScope(resource, no.join(' '));
    }
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    return;
  }
  res.statusCode = 404;
  res.end();
}

let provider;
let handle;
const server = http.createServer(async (req, res) => {
  const m = /^\/interaction\/([^/]+)(?:\/(login|consent))?$/.exec(new URL(req.url, 'http://x').pathname);
  if (!m) {
    handle(req, res);
    return;
  }
  try {
    await interaction(provider, req, res, m[1], m[2]);
  } catch (err) {
    res.statusCode = 500;
    res.end(String(err));
  }
});

server.listen(Number(process.env.AS_PORT || 0), '127.0.0.1', async () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  let keys = [await signingKey('key-1')];
  provider = makeProvider(issuer, keys);
  handle = provider.callback();
  let n = 1;
  process.on('SIGUSR2', async () => {
    n += 1;
    keys = [await signingKey(`key-${n}`), ...keys];
    provider = makeProvider(issuer, keys);
    handle = provider.callback();
    console.log(`rotated key-${n}`);
  });
  console.log(`issuer ${issuer}`);
});
process.on('SIGTERM', () => process.exit(0));
