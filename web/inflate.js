// inflate.js: a small decoder for raw DEFLATE (RFC 1951), after Mark Adler's puff.c. qkv-lab's
// WebAssembly modules travel compressed in dist/qkv-wasm.js (as base64, so that loading never
// fetches): compressed first, they are about 30% smaller there than base64 of the bare bytes.
// The browser's DecompressionStream would do this, but not in every browser that runs
// WebAssembly (Safari before 16.4, for one, which is also where the scalar build is needed), so
// the API carries its own. Codes of up to 9 bits (nearly all of them) are decoded by one table
// look-up, longer ones bit by bit as puff does: the page runs this once, mostly in V8's
// interpreter, where the table took decoding the core and SIMD128 kernels from 21 to 5 ms
// (node --jitless, best of 60; 0.55 to 0.36 ms once compiled).

const ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
const LENGTH_BASE = [], LENGTH_EXTRA = [], DISTANCE_BASE = [], DISTANCE_EXTRA = [];
for (let i = 0, base = 3; i < 28; i++) {
  LENGTH_EXTRA.push(i < 8 ? 0 : (i >> 2) - 1);
  LENGTH_BASE.push(base);
  base += 1 << LENGTH_EXTRA[i];
}
LENGTH_BASE.push(258);
LENGTH_EXTRA.push(0);
for (let i = 0, base = 1; i < 30; i++) {
  DISTANCE_EXTRA.push(i < 4 ? 0 : (i >> 1) - 1);
  DISTANCE_BASE.push(base);
  base += 1 << DISTANCE_EXTRA[i];
}

/** Codes up to this many bits are decoded by one table look-up (the rest bit by bit). */
const FAST_BITS = 9;

/**
 * Canonical Huffman code from code lengths: { counts per length, symbols by code, fast }, fast a
 * table indexed by the next FAST_BITS bits of the stream (first bit lowest): symbol << 4 | length
 * for a code that short, 0 for a longer one.
 */
function huffman(lengths) {
  const counts = new Uint16Array(16), offsets = new Uint16Array(16), symbols = new Uint16Array(lengths.length);
  for (const length of lengths) counts[length]++;
  counts[0] = 0;
  for (let i = 1; i < 16; i++) offsets[i] = offsets[i - 1] + counts[i - 1];
  lengths.forEach((length, symbol) => { if (length) symbols[offsets[length]++] = symbol; });
  const fast = new Int32Array(1 << FAST_BITS), next = new Uint16Array(16);
  for (let length = 1, code = 0; length < 16; length++) next[length] = code = (code + counts[length - 1]) << 1;
  for (let symbol = 0; symbol < lengths.length; symbol++) {
    const length = lengths[symbol];
    if (!length) continue;
    const code = next[length]++;
    if (length > FAST_BITS) continue;
    let reversed = 0;
    for (let b = 0; b < length; b++) reversed |= ((code >> b) & 1) << (length - 1 - b);
    for (let i = reversed; i < fast.length; i += 1 << length) fast[i] = (symbol << 4) | length;
  }
  return { counts, symbols, fast };
}

/**
 * The `size` bytes that the raw DEFLATE stream `input` (a Uint8Array) encodes; with `first`,
 * decoding stops once that many are out (the rest of the array is left unwritten).
 */
export function inflate(input, size, first = size) {
  const out = new Uint8Array(size);
  let at = 0, bitBuffer = 0, bitCount = 0, written = 0;
  const bits = (n) => {
    while (bitCount < n) {
      if (at >= input.length) throw new Error('inflate: the compressed data ends early');
      bitBuffer |= input[at++] << bitCount;
      bitCount += 8;
    }
    const value = bitBuffer & ((1 << n) - 1);
    bitBuffer >>>= n;
    bitCount -= n;
    return value;
  };
  const decode = ({ counts, symbols, fast }) => {
    while (bitCount < FAST_BITS && at < input.length) {
      bitBuffer |= input[at++] << bitCount;
      bitCount += 8;
    }
    const hit = fast[bitBuffer & ((1 << FAST_BITS) - 1)];
    if (hit && (hit & 15) <= bitCount) {
      bitBuffer >>>= hit & 15;
      bitCount -= hit & 15;
      return hit >> 4;
    }
    let code = 0, first = 0, index = 0;
    for (let length = 1; length < 16; length++) {
      code |= bits(1);
      const count = counts[length];
      if (code - first < count) return symbols[index + code - first];
      index += count;
      first = (first + count) << 1;
      code <<= 1;
    }
    throw new Error('inflate: an invalid Huffman code');
  };
  let last;
  do {
    last = bits(1);
    const type = bits(2);
    if (type === 0) {  // stored
      bitBuffer = bitCount = 0;
      const length = input[at] | (input[at + 1] << 8);
      at += 4;
      out.set(input.subarray(at, at + length), written);
      at += length;
      written += length;
      if (written >= first) return out;
      continue;
    }
    let lengthCode, distanceCode;
    if (type === 1) {  // fixed codes
      const lengths = new Array(288).fill(8, 0, 144).fill(9, 144, 256).fill(7, 256, 280).fill(8, 280, 288);
      lengthCode = huffman(lengths);
      distanceCode = huffman(new Array(30).fill(5));
    } else if (type === 2) {  // dynamic codes
      const literals = bits(5) + 257, distances = bits(5) + 1, codeLengths = bits(4) + 4;
      const lengths = new Array(19).fill(0);
      for (let i = 0; i < codeLengths; i++) lengths[ORDER[i]] = bits(3);
      const lengthsCode = huffman(lengths);
      const all = [];
      while (all.length < literals + distances) {
        const symbol = decode(lengthsCode);
        if (symbol < 16) all.push(symbol);
        else if (symbol === 16) all.push(...new Array(3 + bits(2)).fill(all[all.length - 1]));
        else all.push(...new Array(symbol === 17 ? 3 + bits(3) : 11 + bits(7)).fill(0));
      }
      lengthCode = huffman(all.slice(0, literals));
      distanceCode = huffman(all.slice(literals));
    } else {
      throw new Error('inflate: an invalid block type');
    }
    for (;;) {
      const symbol = decode(lengthCode);
      if (symbol < 256) {
        out[written++] = symbol;
        if (written >= first) return out;
      } else if (symbol === 256) {
        break;
      } else {
        const s = symbol - 257;
        const length = LENGTH_BASE[s] + bits(LENGTH_EXTRA[s]);
        const d = decode(distanceCode);
        const distance = DISTANCE_BASE[d] + bits(DISTANCE_EXTRA[d]);
        for (let i = 0; i < length; i++, written++) out[written] = out[written - distance];
        if (written >= first) return out;
      }
    }
  } while (!last);
  if (written !== size) throw new Error(`inflate: ${written} bytes, expected ${size}`);
  return out;
}
