// passwordFields runs in an isolated world of one frame, where the page's
// scripts cannot reach what it keeps. It remembers every field of the
// document (and of its open shadow roots) that is a password field now (its
// type, the autocomplete of a password, or a text field drawn as discs, as
// pages that keep password managers away make them), and
// returns the value of each field it remembers, whatever its type is now or
// whether it is still in the document: a page's "Show password" turns the
// field into a text field, and a page may swap the field for another. Keys
// are the document's random token and the field's index; at most max fields
// are remembered per document.
//
// As the document goes away (beforeunload, pagehide), it reports the same through the
// binding named leaving, when this world has it: a page that leaves at
// once with what was typed (a PIN pad's last digit sends it) is read all
// the same.
function passwordFields(max, leaving) {
  const key = Symbol.for('chaperone.passwordFields');
  let known = globalThis[key];
  const read = () => {
    const out = [];
    known.fields.forEach((el, i) => {
      if (typeof el.value === 'string' && el.value !== '') out.push({key: known.token + ':' + i, value: el.value});
    });
    return out;
  };
  if (!known) {
    const token = Array.from(crypto.getRandomValues(new Uint8Array(8)), b => b.toString(16).padStart(2, '0')).join('');
    known = {token, fields: []};
    Object.defineProperty(globalThis, key, {value: known, configurable: false, enumerable: false, writable: false});
    const report = () => {
      const out = read();
      if (typeof globalThis[leaving] === 'function' && out.length) globalThis[leaving](JSON.stringify({url: location.href, fields: out}));
    };
    for (const ev of ['beforeunload', 'pagehide']) addEventListener(ev, report, true);
  }
  const secret = el => el.type === 'password' || /\b(current|new)-password\b/i.test(el.autocomplete || el.getAttribute('autocomplete') || '') ||
    (getComputedStyle(el).webkitTextSecurity || 'none') !== 'none';
  const scan = root => {
    for (const el of root.querySelectorAll('input, textarea')) {
      if (known.fields.length < max && !known.fields.includes(el) && secret(el)) known.fields.push(el);
    }
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) scan(el.shadowRoot);
    }
  };
  scan(document);
  return read();
}
