// training/embedding-export.js: the trained embedding table in the TensorFlow Embedding Projector's format
// (https://projector.tensorflow.org, "Load"). Downloads go through dom.js's download().
//   vectors.tsv   one row per word, its numbers separated by tabs, no header
//   metadata.tsv  one word per line, same order; a single column has no header line
// Pure functions.

/** vocab×dim Matrix → vectors.tsv text. Throws if any entry is not finite (nothing half-written). */
export function vectorsTSV(matrix) {
  const lines = [];
  for (let i = 0; i < matrix.rows; i++) {
    const cells = [];
    for (let j = 0; j < matrix.cols; j++) {
      const v = matrix.data[i * matrix.cols + j];
      if (!Number.isFinite(v)) throw new RangeError(`vectorsTSV: row ${i}, column ${j} is ${v}`);
      // float32 carries about 7 significant digits; more would be noise
      cells.push(Number(v.toPrecision(7)).toString());
    }
    lines.push(cells.join('\t'));
  }
  return lines.join('\n') + '\n';
}

/** words → metadata.tsv text. Tabs and line breaks inside a word would break the columns. */
export function metadataTSV(words) {
  return words.map((w) => String(w).replace(/[\t\r\n]+/g, ' ')).join('\n') + '\n';
}

/** A data: URL (PNG) → Blob, for download(). */
export function dataURLToBlob(dataURL) {
  const [head, body] = dataURL.split(',');
  const type = /data:([^;]+)/.exec(head)?.[1] || 'application/octet-stream';
  const bytes = atob(body);
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = bytes.charCodeAt(i);
  return new Blob([out], { type });
}
