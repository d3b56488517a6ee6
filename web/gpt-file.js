// gpt-file.js: the GPT file format (docs/gpt-generation.md, "GPT files"): what GPT.save() writes
// (version 1, float32) and loadGPT reads (versions 1 and 2: web/gpt-quantize.js writes int8
// matrices with a float32 scale per row), with the parameter layout both versions share and
// the FNV-1a checksum. Pure JavaScript on bytes: gpt.js makes and checks the GPT around them.
import { argumentError, describe } from './matrix.js';
import { BLOCK_PARAMETERS } from './heap.js';

/** The save() format's first bytes: "QKVGPT\r\n". */
const MAGIC = [0x51, 0x4b, 0x56, 0x47, 0x50, 0x54, 0x0d, 0x0a];
/** The versions loadGPT reads: 1 (float32), 2 (int8 matrices with a float32 scale per row). */
const FORMAT_VERSIONS = [1, 2];
const HEADER_INTS = 9;  // version, V, L, H, C, T, steps, seed, vocab bytes
const END = '\n';

/** Floats of a GPT's parameters (wasm/qkv.h's layout). */
export function parameterFloats(V, layers, dim, context) {
  return V * dim + context * dim + layers * (12 * dim * dim + 13 * dim) + 2 * dim;
}

/**
 * The version-1 file of a GPT: "QKVGPT\r\n", then little-endian uint32 version 1, V, layers,
 * heads, dim, context, steps, seed, the vocabulary's UTF-8 byte length; the vocabulary (its
 * characters in token order, UTF-8), zero-padded to 4 bytes; the parameters (paramBytes, float32
 * in wasm/qkv.h's order); a uint32 FNV-1a checksum of everything before it.
 */
export function encodeGPTFile({ vocab, layers, heads, dim, context, steps, seed }, paramBytes) {
  const vocabBytes = new TextEncoder().encode(vocab.join(''));
  const pad = (4 - (vocabBytes.length % 4)) % 4;
  const head = MAGIC.length + 4 * HEADER_INTS;
  const total = head + vocabBytes.length + pad + paramBytes.length + 4;
  const bytes = new Uint8Array(total);
  const view = new DataView(bytes.buffer);
  bytes.set(MAGIC, 0);
  [1, vocab.length, layers, heads, dim, context, steps, seed, vocabBytes.length].forEach((v, i) => view.setUint32(MAGIC.length + 4 * i, v, true));
  bytes.set(vocabBytes, head);
  bytes.set(paramBytes, head + vocabBytes.length + pad);
  view.setUint32(total - 4, fnv1a(bytes.subarray(0, total - 4)), true);
  return bytes;
}

/**
 * A GPT file (version 1 or 2) → { config: { layers, heads, dim, context, seed, batch: 1 }, vocab
 * (characters, '\n' first), params (float32 bytes in wasm/qkv.h's order), steps, version },
 * refusing truncated or foreign bytes with errors that start with `op`. checkHeader(config, V)
 * runs on the header alone, before the bytes are hashed or anything is allocated (loadGPT holds
 * it to createGPT's limits there).
 */
export function decodeGPTFile(op, bytes, checkHeader = () => {}) {
  if (!(bytes instanceof Uint8Array)) {
    throw argumentError(TypeError, `${op}: bytes must be a Uint8Array (what gpt.save() returns), got ${describe(bytes)}`);
  }
  // a Proxy passes instanceof but is no view: the engine's own getters would throw on it
  if (!ArrayBuffer.isView(bytes)) {
    throw argumentError(TypeError, `${op}: bytes must be a Uint8Array itself (what gpt.save() returns), not a Proxy or ` +
      `another object that only looks like one`);
  }
  const head = MAGIC.length + 4 * HEADER_INTS;
  if (bytes.length < head + 4 || MAGIC.some((b, i) => bytes[i] !== b)) {
    throw argumentError(RangeError, `${op}: these ${bytes.length} bytes are not a qkv-lab GPT file ` +
      `(it starts with "QKVGPT\\r\\n" and a ${head}-byte header)`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ints = Array.from({ length: HEADER_INTS }, (_, i) => view.getUint32(MAGIC.length + 4 * i, true));
  const [version, V, layers, heads, dim, context, steps, seed, vocabLength] = ints;
  if (!FORMAT_VERSIONS.includes(version)) {
    throw argumentError(RangeError, `${op}: file format version ${version}; this qkv-lab reads versions ${FORMAT_VERSIONS.join('–')}`);
  }
  // the header alone, before the bytes are hashed or anything is allocated
  const config = { layers, heads, dim, context, seed, batch: 1 };
  checkHeader(config, V);
  const pad = (4 - (vocabLength % 4)) % 4;
  const layout = parameterLayout(V, layers, dim, context);
  const paramsAt = head + vocabLength + pad;
  const paramBytes = version === 1 ? 4 * parameterFloats(V, layers, dim, context) : int8Bytes(layout);
  const expected = paramsAt + paramBytes + 4;
  if (bytes.length !== expected) {
    throw argumentError(RangeError, `${op}: the file has ${bytes.length} bytes; its header describes ${expected} ` +
      `(${bytes.length < expected ? 'truncated' : 'trailing bytes'})`);
  }
  const sum = view.getUint32(expected - 4, true);
  if (fnv1a(bytes.subarray(0, expected - 4)) !== sum) throw argumentError(RangeError, `${op}: the checksum does not match: the bytes were changed`);
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(head, head + vocabLength));
  } catch {
    throw argumentError(RangeError, `${op}: the vocabulary is not valid UTF-8`);
  }
  const vocab = Array.from(text);
  if (vocab.length !== V || vocab[0] !== END || new Set(vocab).size !== V) {
    throw argumentError(RangeError, `${op}: the vocabulary holds ${vocab.length} characters, not the ${V} distinct ones ` +
      `(the end-of-text '\\n' first) the header says`);
  }
  let params;
  if (version === 1) {
    params = bytes.slice(paramsAt, paramsAt + paramBytes);
  } else {
    params = new Uint8Array(dequantize(op, bytes.subarray(paramsAt, paramsAt + paramBytes), layout).buffer);
  }
  const floats = new Float32Array(params.buffer);
  for (let i = 0; i < floats.length; i++) {
    if (!Number.isFinite(floats[i])) throw argumentError(RangeError, `${op}: parameter ${i} is ${floats[i]}; a saved GPT has finite parameters`);
  }
  return { config, vocab, params, steps, version };
}

// ---- the version-2 file: int8 matrices with a float32 scale per row ----

/**
 * The parameters in wasm/qkv.h's order, as tensors { name, rows, cols, matrix }: wte (V, C),
 * wpe (T, C), each block's (BLOCK_PARAMETERS), lnfw, lnfb (C). matrix: stored as int8 rows in
 * a version-2 file (wte, wpe, qkvw, attprojw, fcw, fcprojw); the rest as float32.
 */
export function parameterLayout(V, layers, C, T) {
  const h = 4 * C;
  const block = {
    ln1w: [1, C], ln1b: [1, C], qkvw: [C, 3 * C], qkvb: [1, 3 * C], attprojw: [C, C], attprojb: [1, C],
    ln2w: [1, C], ln2b: [1, C], fcw: [C, h], fcb: [1, h], fcprojw: [h, C], fcprojb: [1, C],
  };
  const matrices = new Set(['qkvw', 'attprojw', 'fcw', 'fcprojw']);
  const out = [{ name: 'wte', rows: V, cols: C, matrix: true }, { name: 'wpe', rows: T, cols: C, matrix: true }];
  for (let l = 0; l < layers; l++) {
    for (const name of BLOCK_PARAMETERS) {
      const [rows, cols] = block[name];
      out.push({ name: `blocks[${l}].${name}`, rows, cols, matrix: matrices.has(name) });
    }
  }
  out.push({ name: 'lnfw', rows: 1, cols: C, matrix: false }, { name: 'lnfb', rows: 1, cols: C, matrix: false });
  return out;
}

/** Bytes of a version-2 parameter section: per matrix its row scales (float32), its int8 rows,
 * zero padding to 4 bytes; per vector its float32 values. */
export function int8Bytes(layout) {
  let n = 0;
  for (const t of layout) n += t.matrix ? 4 * t.rows + Math.ceil(t.rows * t.cols / 4) * 4 : 4 * t.rows * t.cols;
  return n;
}

/** The version-2 section → float32 parameters (q × scale, rounded to float32), refusing what
 * web/gpt-quantize.js cannot write: a negative or non-finite scale, a value of −128, padding
 * that is not zero. */
function dequantize(op, bytes, layout) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const floats = new Float32Array(layout.reduce((n, t) => n + t.rows * t.cols, 0));
  let at = 0, to = 0;
  for (const t of layout) {
    const count = t.rows * t.cols;
    if (!t.matrix) {
      for (let i = 0; i < count; i++) floats[to + i] = view.getFloat32(at + 4 * i, true);
      at += 4 * count;
      to += count;
      continue;
    }
    const values = at + 4 * t.rows;
    for (let r = 0; r < t.rows; r++) {
      const scale = view.getFloat32(at + 4 * r, true);
      if (!(scale >= 0 && scale < Infinity)) {
        throw argumentError(RangeError, `${op}: the scale of row ${r} of ${t.name} is ${scale}; a version-2 file has finite scales ≥ 0`);
      }
      for (let c = 0; c < t.cols; c++) {
        const q = view.getInt8(values + r * t.cols + c);
        if (q === -128) throw argumentError(RangeError, `${op}: ${t.name}[${r}][${c}] is −128; a version-2 file holds −127 to 127`);
        floats[to + r * t.cols + c] = Math.fround(q * scale);
      }
    }
    const end = values + Math.ceil(count / 4) * 4;
    for (let i = values + count; i < end; i++) {
      if (bytes[i] !== 0) throw argumentError(RangeError, `${op}: the padding after ${t.name} is not zero`);
    }
    at = end;
    to += count;
  }
  return floats;
}

/** 32-bit FNV-1a (h: the hash of what came before, to hash in pieces) */
export function fnv1a(bytes, h = 0x811c9dc5) {
  for (let i = 0; i < bytes.length; i++) {
    h ^= bytes[i];
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}
