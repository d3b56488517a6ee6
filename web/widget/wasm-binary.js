// wasm-binary.js: the widget's copy of the WebAssembly module travels gzip-compressed inside the
// script (tools/build-page.mjs swaps the Emscripten glue's base64 data URI for this), and is
// inflated by the browser's own DecompressionStream. Two reasons: the widget is about 10 KiB
// smaller, and the glue, handed the bytes as `wasmBinary`, never fetch()es a data: URL, which a
// host page's CSP (connect-src 'self') would refuse and report as a console error.
export async function gunzipBase64(text) {
  const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
