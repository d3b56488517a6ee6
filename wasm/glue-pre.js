// glue-pre.js: emcc --pre-js for web/dist/qkv-core.js (build.sh). It runs inside the glue's
// factory, so this `var` hides the global fetch from the glue alone.
//
// The WASM is inlined as a data: URI (-sSINGLE_FILE), yet Emscripten 3.1.6's glue still fetch()es
// that URI when it runs in a browser. Under a Content-Security-Policy whose connect-src does not
// list data: (the README's `default-src 'self'` does not), the browser refuses the request and
// logs two console errors before the glue falls back to decoding the base64 itself. Without a
// fetch to call, the glue decodes it directly: the same bytes, no request, no CSP report.
// (The glue has no other use for fetch: with -sENVIRONMENT=web it reads files with XHR only.)
// eslint-disable-next-line no-var, no-unused-vars
var fetch = undefined;
