// wasm-binary.js: in the classic script (web/dist/qkv-lab-widget.js) the WebAssembly module
// travels gzip-compressed (tools/build-page.mjs swaps the Emscripten glue's base64 data URI for
// this) and is inflated by the browser's own DecompressionStream: gzipped, the script carries
// 17.5 KB for the module instead of 21.4 KB (base64 of the gzipped module vs base64 of the
// module). The ES-module widget (qkv-lab-widget.mjs) does not use this: it shares the API's own
// glue and WASM. Neither fetch()es a data: URL, which a host page's CSP (connect-src 'self')
// would refuse: the glue is built without fetch (wasm/glue-pre.js).
export async function gunzipBase64(text) {
  const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
