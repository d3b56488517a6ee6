// gpt/poet-text.js: the pretrained poet's whole training text (34,485 poems, one per line), for the
// generation section's novelty check: fetched once from where the host says it is (the page:
// web/pretrained/tang-poet-train.bin beside index.html, ctx.poetTextUrl; tools/poet-text.mjs writes
// it and checks it against the text the pretraining report names). Where it cannot be had (a
// widget, on a blog's host; the single-file page; a server without the file) the section checks
// what the page carries, saying so.
import { inflate } from '../../inflate.js';
import { fnv1a } from '../../gpt-file.js';

const MAGIC = 'QKVTEXT1';

/** Raw DEFLATE → size bytes: the browser's DecompressionStream off the page's thread where it has one, else inflate.js. */
async function inflateRaw(packed, size) {
  if (typeof DecompressionStream === 'function') {
    try {
      const stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
      return new Uint8Array(await new Response(stream).arrayBuffer());
    } catch { /* 'deflate-raw' unknown to this browser: inflate.js below */ }
  }
  return inflate(packed, size);
}

/** The file's bytes → the text, refusing what is not one or does not hold what its header says. */
export async function decodePoetText(file) {
  const bytes = new Uint8Array(file);
  if (bytes.length < 16 || String.fromCharCode(...bytes.subarray(0, 8)) !== MAGIC) throw new Error('not a QKVTEXT1 file');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const size = view.getUint32(8, true), checksum = view.getUint32(12, true);
  const text = await inflateRaw(bytes.subarray(16), size);
  if (text.length !== size || fnv1a(text) !== checksum) throw new Error('the text does not match its header');
  return new TextDecoder().decode(text);
}

const loading = new Map();   // url → Promise
/**
 * The poet's training text at `url` (the host's: the page serves it beside itself), fetched and
 * decoded once → { text, fileBytes }; a failure may be retried by a later call.
 */
export function loadPoetText(url) {
  if (!loading.has(url)) {
    loading.set(url, (async () => {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const file = await response.arrayBuffer();
      return { text: await decodePoetText(file), fileBytes: file.byteLength };
    })().catch((error) => { loading.delete(url); throw error; }));
  }
  return loading.get(url);
}
