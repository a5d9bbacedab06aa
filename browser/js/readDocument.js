// readDocument fetches the current document's address again from the page
// itself, so that the browser sends what it sent for the document (its
// cookies, for a file behind a sign-in), and answers {type, data} with the
// bytes in base64, or {error} saying why not; a body over max bytes is not
// read past the limit.
async function readDocument(max) {
  let r;
  try {
    r = await fetch(location.href, { credentials: 'include' });
  } catch (e) {
    return { error: String(e && e.message || e) };
  }
  if (!r.ok) return { error: 'the server answered ' + r.status };
  const declared = Number(r.headers.get('content-length'));
  if (declared > max) return { error: 'too large', size: declared };
  const chunks = [];
  let size = 0;
  const reader = r.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      reader.cancel();
      return { error: 'too large', size };
    }
    chunks.push(value);
  }
  // btoa takes a binary string; built in slices, since one call per byte
  // or one call for all of them is too slow or too deep for a big file.
  let bin = '';
  for (const c of chunks) {
    for (let i = 0; i < c.length; i += 0x8000) bin += String.fromCharCode.apply(null, c.subarray(i, i + 0x8000));
  }
  return { type: r.headers.get('content-type') || '', data: btoa(bin) };
}
