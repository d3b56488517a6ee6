// glue-pre.js: emcc --pre-js for web/dist/qkv-core.js (build.sh). It runs inside the glue's
// factory, so this `var` hides the global fetch from the glue alone.
//
// The API hands the glue the modules' bytes itself (instantiateWasm, web/qkv-lab.js), so the glue
// has no reason to fetch anything; with -sENVIRONMENT=web it reads files with XHR only. Hiding
// fetch makes sure of it: a request from the glue (Emscripten 3.1.6 fetch()es its WASM URI when it
// loads it itself) would be refused, with console errors, under a Content-Security-Policy whose
// connect-src is 'self' (the README's), and a page that embeds qkv-lab makes no requests at all.
// eslint-disable-next-line no-var, no-unused-vars
var fetch = undefined;
