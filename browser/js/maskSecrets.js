// maskSecrets draws as discs, the way a password field draws its value, every
// element of the document (and of its open shadow roots; each frame has a
// call of its own, in an isolated world) whose text holds one of texts: the smallest element that holds it,
// a field whose value or placeholder does, and an element whose ::before,
// ::after or ::marker draws it with CSS content (attr() included). Text is
// compared as a person reads it: in compatibility form (full width is
// narrow), in lower case, without invisible characters or the separators a
// page may put between characters; a short text (a PIN) only as a whole
// token. With coverCanvas, every canvas is hidden too, since what it draws
// cannot be read. It keeps what it changed for unmaskSecrets, and returns
// how many elements it changed; when there were some it resolves only once
// the document has rendered them (or after cap milliseconds), so that a
// screenshot taken next shows them masked.
function maskSecrets(texts, cap, coverCanvas) {
  const key = Symbol.for('chaperone.maskSecrets');
  const attr = 'data-chaperone-mask';
  // The first cascade layer wins among !important rules, whatever the
  // page's specificity: a page's own ::before rule cannot unmask.
  const rule = '@layer chaperone-mask{[' + attr + ']::before,[' + attr + ']::after{-webkit-text-security:disc!important}' +
    '[' + attr + ']::marker{content:"\\2022  "!important}[' + attr + ']::placeholder{color:transparent!important}}';
  // As internal/redact reads text: invisible characters, combining marks
  // and the separators a page may put between characters are skipped, a
  // letter with marks is the letter, and a Cyrillic or Greek letter drawn
  // as a Latin one is that one.
  const skip = /[\p{Cf}\p{Mn}\p{Me}\u034f\u115f\u1160\u3164\uffa0\ufe00-\ufe0f\s\p{Pd}._\u00b7\u2022|,:;\/\\"'`[\](){}+*=~]/gu;
  const alike = {'а': 'a', 'в': 'b', 'с': 'c', 'е': 'e', 'һ': 'h', 'і': 'i', 'ј': 'j', 'к': 'k', 'м': 'm', 'н': 'h',
    'о': 'o', 'р': 'p', 'ѕ': 's', 'т': 't', 'у': 'y', 'х': 'x', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'ӏ': 'l',
    'α': 'a', 'β': 'b', 'ε': 'e', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ο': 'o', 'ρ': 'p', 'τ': 't', 'υ': 'u',
    'χ': 'x', 'γ': 'y', 'η': 'n', 'μ': 'u'};
  const norm = s => String(s).normalize('NFKD').toLowerCase().replace(skip, '').replace(/[^\x00-\x7f]/gu, c => alike[c] || c);
  const needles = [...new Set(texts.map(norm))].filter(t => t.length > 0);
  const cls = c => c === undefined ? 0 : /\p{L}/u.test(c) ? 1 : /\p{Nd}/u.test(c) ? 2 : 0;
  const edge = (c, e) => { const k = cls(c); return k === 0 || k !== cls(e); };
  const holds = s => {
    if (!s) return false;
    s = norm(s);
    for (const n of needles) {
      if (n.length >= 6) {
        if (s.includes(n)) return true;
        continue;
      }
      for (let i = s.indexOf(n); i >= 0; i = s.indexOf(n, i + 1)) {
        if (edge(s[i - 1], n[0]) && edge(s[i + n.length], n[n.length - 1])) return true;
      }
    }
    return false;
  };
  const changed = [];
  // touched are the elements restyled; a page that restyles one of them
  // while the screenshot is taken has fought the mask (watch below).
  const touched = new Set();
  const setStyle = (el, prop, value) => {
    if (!el.style || changed.some(c => c.el === el && c.prop === prop)) return;
    touched.add(el);
    changed.push({el, prop, value: el.style.getPropertyValue(prop), priority: el.style.getPropertyPriority(prop)});
    el.style.setProperty(prop, value, 'important');
  };
  // A transition outranks even an !important declaration in the cascade:
  // one the page set would keep the old look for as long as it says. It is
  // stopped first, so that what is set next takes at once.
  const force = (el, prop, value) => {
    setStyle(el, 'transition', 'none');
    setStyle(el, prop, value);
  };
  // Discs are inherited, and a descendant's own rule (a span the page
  // styles with -webkit-text-security:none, or its shadow tree's) would
  // draw its part in clear: every element under the one masked, shadow
  // trees included, is drawn as discs on its own.
  const masked = [];
  const deep = el => {
    force(el, '-webkit-text-security', 'disc');
    for (const c of el.children) deep(c);
    if (el.shadowRoot) for (const c of el.shadowRoot.children) deep(c);
  };
  const mask = el => {
    if (touched.has(el) && masked.includes(el)) return;
    masked.push(el);
    deep(el);
    // A broken image draws its alt text where no disc reaches: it is not
    // drawn at all.
    if (el.tagName === 'IMG' || el.tagName === 'INPUT' && el.type === 'image') {
      force(el, 'color', 'transparent');
      force(el, '-webkit-text-fill-color', 'transparent');
    }
  };
  const sheets = new Set();
  const canvases = [];
  const drawnEls = [];
  const maskDrawn = el => {
    mask(el);
    drawnEls.push(el);
    if (!el.hasAttribute(attr)) {
      changed.push({el, attr});
      el.setAttribute(attr, '');
    }
    const root = el.getRootNode();
    if (sheets.has(root)) return;
    sheets.add(root);
    const style = (root.ownerDocument || root).createElement('style');
    style.textContent = rule;
    const parent = root.nodeType === 9 ? root.documentElement : root;
    if (!parent) return;
    parent.insertBefore(style, parent.firstChild);
    changed.push({style});
  };
  const unescape = c => c.replace(/\\([0-9a-fA-F]{1,6}) ?|\\(.)/gs, (m, h, ch) => {
    if (!h) return ch;
    const n = parseInt(h, 16);
    return n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : '';
  });
  const drawn = (el, pseudo) => {
    let c = '';
    try { c = getComputedStyle(el, pseudo).content; } catch (e) { return false; }
    return !!c && c !== 'none' && c !== 'normal' && holds(unescape(c));
  };
  // descend masks, under el whose text holds a needle, the elements that
  // hold it: those whose own text nodes do, and el itself when the needle
  // runs across its children.
  const descend = el => {
    let inChild = false;
    for (const c of el.children) {
      if (holds(c.textContent)) {
        inChild = true;
        descend(c);
      }
    }
    let own = false;
    for (const n of el.childNodes) {
      if (n.nodeType === 3 && holds(n.data)) own = true;
    }
    if (own || !inChild) mask(el.tagName === 'OPTION' && el.closest('select') || el);
  };
  // A run of fields, read in order as one text: a page spreads a code over
  // six one-character boxes, none of which holds it alone.
  const longest = Math.max(0, ...needles.map(n => n.length));
  const scanFields = root => {
    const fields = [...root.querySelectorAll('input,textarea')].filter(f => f.value &&
      !/^(password|checkbox|radio|hidden|submit|button|reset|image|file|range|color)$/.test(f.type));
    for (let i = 0; i < fields.length; i++) {
      let joined = '';
      for (let j = i; j < fields.length && joined.length < longest; j++) {
        joined += norm(fields[j].value);
        if (j > i && holds(joined)) {
          for (let k = i; k <= j; k++) mask(fields[k]);
          break;
        }
      }
    }
  };
  const scanRoot = root => {
    const top = root.body || root.documentElement || root;
    if (needles.length && top && top.children && holds(top.textContent)) descend(top);
    if (needles.length) scanFields(root);
    for (const el of root.querySelectorAll('*')) {
      if (needles.length) {
        if ((el.tagName === 'INPUT' && el.type !== 'password' || el.tagName === 'TEXTAREA') && holds(el.value)) mask(el);
        if ((el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') && holds(el.placeholder)) maskDrawn(el);
        if ((el.tagName === 'IMG' || el.tagName === 'INPUT' && el.type === 'image') && holds(el.alt)) mask(el);
        if (drawn(el, '::before') || drawn(el, '::after') || (el.tagName === 'LI' || el.tagName === 'SUMMARY') && drawn(el, '::marker')) maskDrawn(el);
      }
      if (coverCanvas && el.tagName === 'CANVAS') {
        force(el, 'visibility', 'hidden');
        canvases.push(el);
      }
      if (el.shadowRoot) scan(el.shadowRoot);
    }
  };
  // watch keeps, until unmaskSecrets asks, whether the page fought the
  // mask while the screenshot was taken: it restyled or filled an element
  // masked, removed the masking rule, or put a secret or a canvas where
  // none was masked (a mutation observer that undoes the mask in the
  // microtask after it, a loop that draws again); and, when asked, whether
  // each element still draws discs and each canvas is still hidden. A
  // screenshot of a page that fought it is not kept.
  const watch = roots => {
    let fought = false;
    const styles = new Set(changed.filter(c => c.style).map(c => c.style));
    // A style sheet the page adds or changes may outrank the masking rule
    // (a layer it declares first).
    const sheetEl = n => n.nodeType === 1 && (n.tagName === 'STYLE' || n.tagName === 'LINK');
    const sheet = n => drawnEls.length > 0 && (sheetEl(n) || n.nodeType === 1 && !!n.querySelector('style, link'));
    const shows = n => n.nodeType === 1 ? holds(n.textContent) || sheet(n) || coverCanvas && (n.tagName === 'CANVAS' || !!n.querySelector('canvas')) :
      n.nodeType === 3 && holds(n.data);
    const seen = records => {
      for (const r of records) {
        const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
        if (el && (touched.has(el) || drawnEls.length > 0 && sheetEl(el) && !styles.has(el))) fought = true;
        else if (r.type === 'characterData') fought ||= holds(r.target.data);
        else if (r.type === 'attributes') {
          const t = r.target;
          fought ||= (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA') && (holds(t.value) || holds(t.placeholder)) ||
            (t.tagName === 'IMG' || t.tagName === 'INPUT') && holds(t.alt) ||
            drawn(t, '::before') || drawn(t, '::after');
        }
        for (const n of r.addedNodes || []) fought ||= shows(n);
        for (const n of r.removedNodes || []) fought ||= styles.has(n);
        if (fought) return;
      }
    };
    const observer = new MutationObserver(seen);
    for (const root of roots) observer.observe(root, {attributes: true, childList: true, characterData: true, subtree: true});
    const check = () => {
      seen(observer.takeRecords());
      observer.disconnect();
      const style = (el, pseudo) => { try { return getComputedStyle(el, pseudo); } catch (e) { return null; } };
      for (const el of touched) {
        if (canvases.includes(el)) {
          if (el.isConnected && style(el)?.visibility !== 'hidden') fought = true;
        } else if (el.isConnected && style(el)?.getPropertyValue('-webkit-text-security') !== 'disc') fought = true;
      }
      for (const el of drawnEls) {
        for (const p of ['::before', '::after']) {
          if (drawn(el, p) && style(el, p)?.getPropertyValue('-webkit-text-security') !== 'disc') fought = true;
        }
      }
      return fought;
    };
    const watchKey = Symbol.for('chaperone.maskWatch');
    const watches = globalThis[watchKey] || [];
    Object.defineProperty(globalThis, watchKey, {value: watches.concat([check]), configurable: true, enumerable: false, writable: true});
  };
  const roots = [];
  const scan = root => {
    roots.push(root);
    scanRoot(root);
  };
  if (needles.length || coverCanvas) scan(document);
  const before = globalThis[key] || [];
  Object.defineProperty(globalThis, key, {value: before.concat(changed), configurable: true, enumerable: false, writable: true});
  if (changed.length) watch(roots);
  if (!changed.length) return 0;
  return new Promise(resolve => {
    let left = 2;
    const tick = () => { if (--left <= 0) resolve(changed.length); else requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
    setTimeout(() => resolve(changed.length), cap);
  });
}
