// gpt-quantize.js: a version-1 GPT file (float32) → the version-2 file (int8 matrices with a
// float32 scale per row; docs/gpt-generation.md, "GPT files"), on bytes alone: no WebAssembly.
// tools/quantize-gpt.mjs uses it; loadGPT (web/gpt.js) reads the result. Kept apart from the
// engine so that what a page loads to run a GPT does not carry the writer of a format it only reads.
import { parameterLayout, int8Bytes, fnv1a } from './gpt-file.js';

const HEAD = 8 + 4 * 9;

/**
 * quantizeGPTFile(v1) → { bytes (version 2), maxError (the largest |w − q × scale|), layout }.
 * v1 must be a file loadGPT accepts (check it with loadGPT first: this trusts its header).
 */
export function quantizeGPTFile(v1) {
  const view = new DataView(v1.buffer, v1.byteOffset, v1.byteLength);
  const [version, V, layers, , dim, context, , , vocabLength] = Array.from({ length: 9 }, (_, i) => view.getUint32(8 + 4 * i, true));
  if (version !== 1) throw new RangeError(`quantizeGPTFile: the file is version ${version}; it quantizes version 1 (float32)`);
  const layout = parameterLayout(V, layers, dim, context);
  const paramsAt = HEAD + Math.ceil(vocabLength / 4) * 4;
  const count = layout.reduce((n, t) => n + t.rows * t.cols, 0);
  const floats = new Float32Array(v1.slice(paramsAt, paramsAt + 4 * count).buffer);
  const { bytes: section, maxError } = quantizeParameters(floats, layout);
  const out = new Uint8Array(paramsAt + int8Bytes(layout) + 4);
  out.set(v1.subarray(0, paramsAt));
  out.set(section, paramsAt);
  const outView = new DataView(out.buffer);
  outView.setUint32(8, 2, true);
  outView.setUint32(out.length - 4, fnv1a(out.subarray(0, out.length - 4)), true);
  return { bytes: out, maxError, layout };
}

/**
 * float32 parameters (layout order) → the version-2 section, and the largest |w − dequantized w|.
 * Per row: scale = fround(max|w| / 127), q = round(w / scale) clamped to ±127 (0 for a zero row).
 */
export function quantizeParameters(floats, layout) {
  const out = new Uint8Array(int8Bytes(layout));
  const view = new DataView(out.buffer);
  let at = 0, from = 0, maxError = 0;
  for (const t of layout) {
    if (!t.matrix) {
      for (let i = 0; i < t.rows * t.cols; i++) view.setFloat32(at + 4 * i, floats[from + i], true);
      at += 4 * t.rows * t.cols;
      from += t.rows * t.cols;
      continue;
    }
    const scales = at, values = at + 4 * t.rows;
    for (let r = 0; r < t.rows; r++) {
      let max = 0;
      for (let c = 0; c < t.cols; c++) max = Math.max(max, Math.abs(floats[from + r * t.cols + c]));
      const scale = Math.fround(max / 127);
      view.setFloat32(scales + 4 * r, scale, true);
      for (let c = 0; c < t.cols; c++) {
        const w = floats[from + r * t.cols + c];
        const q = scale === 0 ? 0 : Math.max(-127, Math.min(127, Math.round(w / scale)));
        view.setInt8(values + r * t.cols + c, q);
        maxError = Math.max(maxError, Math.abs(w - Math.fround(q * scale)));
      }
    }
    at = values + Math.ceil(t.rows * t.cols / 4) * 4;
    from += t.rows * t.cols;
  }
  return { bytes: out, maxError };
}

