// The MCP client of the OAuth end-to-end test: the official TypeScript SDK's
// StreamableHTTPClientTransport with an OAuth provider, run against
// chaperone (MCP_URL) protected by the authorization server of as.mjs.
//
// The SDK does the whole flow from chaperone's 401: protected-resource
// metadata, the authorization server's metadata, dynamic registration, the
// authorization request with PKCE and the resource indicator, the token.
// This script plays the person's browser at the authorization endpoint (a
// cookie jar following redirects, logging in as ACCOUNT and consenting to
// GRANT) and runs one scenario, named by its argument; it prints one JSON
// object with what it saw.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { generateKeyPair, SignJWT, decodeProtectedHeader, decodeJwt } from 'jose';

const mcpURL = process.env.MCP_URL;
const redirectURI = 'http://127.0.0.1:9/callback'; // never reached: the user agent stops at it
const allScopes = 'chaperone:read chaperone:act chaperone:caps';

// userAgent follows the authorization request as a browser would, with
// cookies, answering the login and consent interactions, until the
// redirect to redirectURI, and returns the code.
async function userAgent(url, account, grant) {
  const jar = new Map();
  let next = new URL(url);
  let init = { method: 'GET' };
  for (let i = 0; i < 30; i++) {
    const headers = { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') };
    if (init.body) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(next, { ...init, headers, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    if (res.status >= 300 && res.status < 400) {
      const loc = new URL(res.headers.get('location'), next);
      if (loc.href.startsWith(redirectURI)) {
        const code = loc.searchParams.get('code');
        if (!code) throw new Error(`authorization refused: ${loc.searchParams.get('error')} ${loc.searchParams.get('error_description')}`);
        return code;
      }
      next = loc;
      init = { method: 'GET' };
      continue;
    }
    if (res.status === 200 && next.pathname.startsWith('/interaction/')) {
      const asked = await res.json();
      const form = asked.prompt === 'login' ? { account } : { scope: grant };
      next = new URL(`${next.pathname}/${asked.prompt}`, next);
      init = { method: 'POST', body: new URLSearchParams(form).toString() };
      continue;
    }
    throw new Error(`user agent: ${res.status} at ${next.pathname}: ${(await res.text()).slice(0, 300)}`);
  }
  throw new Error('user agent: too many steps');
}

// TestProvider is the client's OAuthClientProvider: it keeps what the SDK
// saves in memory, and "redirects" by running the user agent.
class TestProvider {
  constructor({ account, grant = allScopes, clientName = 'oauth-e2e', resource }) {
    Object.assign(this, { account, grant, clientName });
    if (resource) {
      // The SDK asks this of the provider for the RFC 8707 resource.
      this.validateResourceURL = async () => new URL(resource);
    }
  }
  get redirectUrl() { return redirectURI; }
  get clientMetadata() {
    return {
      client_name: this.clientName,
      redirect_uris: [redirectURI],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() { return this.client; }
  saveClientInformation(c) { this.client = c; }
  tokens() { return this.saved; }
  saveTokens(t) { this.saved = t; }
  saveCodeVerifier(v) { this.verifier = v; }
  codeVerifier() { return this.verifier; }
  async redirectToAuthorization(url) {
    this.authorizations = (this.authorizations || 0) + 1;
    (this.asked ||= []).push(url.searchParams.get('scope'));
    (this.resources ||= []).push(url.searchParams.get('resource'));
    this.code = await userAgent(url, this.account, this.grant);
  }
}

// connect connects a client through the OAuth flow: the first attempt ends
// at the authorization redirect, the code is exchanged (finishAuth), the
// second attempt carries the token.
async function connect(provider) {
  let last;
  for (let attempt = 0; attempt < 2; attempt++) {
    const transport = new StreamableHTTPClientTransport(new URL(mcpURL), { authProvider: provider });
    const client = new Client({ name: 'chaperone-oauth-e2e', version: '1' });
    try {
      await client.connect(transport);
      return { client, transport };
    } catch (err) {
      last = err;
      if (err instanceof UnauthorizedError && provider.code) {
        const code = provider.code;
        provider.code = undefined;
        await transport.finishAuth(code);
        continue;
      }
      throw err;
    }
  }
  throw last;
}

// probe sends one JSON-RPC message to chaperone with token, as any HTTP
// client could, and returns the status and challenge.
async function probe(token, message, session) {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-06-18',
    authorization: `Bearer ${token}`,
  };
  if (session) headers['mcp-session-id'] = session;
  const res = await fetch(mcpURL, { method: 'POST', headers, body: JSON.stringify(message) });
  await res.text();
  return { status: res.status, www_authenticate: res.headers.get('www-authenticate') };
}

const initialize = {
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
};
const scroll = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'browser_scroll', arguments: { direction: 'down' } } };

function describe(token) {
  const h = decodeProtectedHeader(token);
  const p = decodeJwt(token);
  return { kid: h.kid, typ: h.typ, alg: h.alg, sub: p.sub, aud: p.aud, scope: p.scope, iss: p.iss, exp: p.exp, iat: p.iat };
}

async function call(client, name, args) {
  try {
    const res = await client.callTool({ name, arguments: args });
    return { ok: !res.isError, text: (res.content?.[0]?.text || '').slice(0, 200) };
  } catch (err) {
    return { ok: false, error: String(err.message || err), code: err.code };
  }
}

// refusedFlow runs the flow for a token chaperone must refuse and reports
// how the SDK ended and what chaperone answered that token.
async function refusedFlow(provider) {
  const out = {};
  try {
    await connect(provider);
    out.connected = true;
  } catch (err) {
    out.connected = false;
    out.error = String(err.message || err);
  }
  out.authorizations = provider.authorizations;
  const token = provider.tokens()?.access_token;
  if (token) {
    out.token = describe(token);
    out.probe = await probe(token, initialize);
  }
  return out;
}

const scenarios = {
  // The whole flow as a person who consents to every scope: the tools
  // list, a read and an action.
  async flow() {
    const provider = new TestProvider({ account: process.env.ACCOUNT });
    const { client, transport } = await connect(provider);
    const tools = await client.listTools();
    const snapshot = await call(client, 'get_snapshot', {});
    const act = await call(client, 'browser_scroll', { direction: 'down' });
    const out = {
      session: transport.sessionId,
      authorizations: provider.authorizations,
      registered: Boolean(provider.client?.client_id),
      asked: provider.asked,
      resources: provider.resources,
      token: describe(provider.tokens().access_token),
      access_token: provider.tokens().access_token,
      tools: tools.tools.map((t) => t.name),
      snapshot, act,
    };
    await client.close();
    return out;
  },
  // A person who consents to reading only: reads work, an action is
  // refused with 403 insufficient_scope (the SDK asks again for the scope
  // chaperone names, the person still declines, and the SDK gives up),
  // and another client's session is not this one's.
  async readonly() {
    const provider = new TestProvider({ account: process.env.ACCOUNT, grant: 'chaperone:read' });
    const { client, transport } = await connect(provider);
    const snapshot = await call(client, 'get_snapshot', {});
    const act = await call(client, 'browser_scroll', { direction: 'down' });
    const token = provider.tokens().access_token;
    const out = {
      token: describe(token),
      snapshot, act,
      authorizations: provider.authorizations,
      asked: provider.asked,
      act_probe: await probe(token, scroll, transport.sessionId),
      other_session_probe: await probe(token, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, process.env.OTHER_SESSION),
    };
    await client.close().catch(() => {});
    return out;
  },
  // The spec's step-up: a person who first consents to reading only, then,
  // asked again for the scope chaperone's 403 names, consents to acting.
  async stepup() {
    const provider = new TestProvider({ account: process.env.ACCOUNT, grant: 'chaperone:read' });
    const { client } = await connect(provider);
    const first = describe(provider.tokens().access_token);
    provider.grant = allScopes;
    let act = await call(client, 'browser_scroll', { direction: 'down' });
    if (!act.ok && provider.code) {
      // The SDK stopped at the redirect for the wider scope: the code
      // comes back, and the call is made again.
      const code = provider.code;
      provider.code = undefined;
      await client.transport.finishAuth(code);
      act = await call(client, 'browser_scroll', { direction: 'down' });
    }
    const out = { first, act, asked: provider.asked, authorizations: provider.authorizations, token: describe(provider.tokens().access_token) };
    await client.close().catch(() => {});
    return out;
  },
  // A token the authorization server issued for another resource.
  async audience() {
    return refusedFlow(new TestProvider({ account: process.env.ACCOUNT, resource: process.env.OTHER_RESOURCE }));
  },
  // A token issued two hours back, long expired.
  async expired() {
    return refusedFlow(new TestProvider({ account: process.env.ACCOUNT, clientName: 'expired' }));
  },
  // Tokens with a good token's claims, signed by a key from elsewhere:
  // under the issuer's own kid, and under a kid it never published.
  async forged() {
    const good = new TestProvider({ account: process.env.ACCOUNT });
    const { client } = await connect(good);
    await client.close();
    const token = good.tokens().access_token;
    const header = decodeProtectedHeader(token);
    const claims = decodeJwt(token);
    const { privateKey } = await generateKeyPair('ES256');
    const sign = (kid) => new SignJWT(claims).setProtectedHeader({ ...header, kid }).sign(privateKey);
    const out = { good: describe(token), good_probe: await probe(token, initialize) };
    for (const [name, kid] of [['same_kid', header.kid], ['new_kid', 'attacker-key']]) {
      const forged = await sign(kid);
      const provider = new TestProvider({ account: process.env.ACCOUNT });
      provider.saved = { access_token: forged, token_type: 'Bearer' };
      provider.redirectToAuthorization = async () => { provider.authorizations = (provider.authorizations || 0) + 1; };
      const res = { token: describe(forged), probe: await probe(forged, initialize) };
      try {
        const transport = new StreamableHTTPClientTransport(new URL(mcpURL), { authProvider: provider });
        await new Client({ name: 'forger', version: '1' }).connect(transport);
        res.connected = true;
      } catch (err) {
        res.connected = false;
        res.error = String(err.message || err);
      }
      out[name] = res;
    }
    return out;
  },
};

const name = process.argv[2];
if (!scenarios[name]) {
  console.error(`unknown scenario ${name}`);
  process.exit(2);
}
try {
  console.log(JSON.stringify(await scenarios[name]()));
} catch (err) {
  console.error(err?.stack || String(err));
  process.exit(1);
}
