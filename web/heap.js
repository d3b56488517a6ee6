// heap.js: the one owner of qkv-lab's WebAssembly memory, and the C enums' names in JavaScript.
//
// load() (qkv-lab.js) makes one Heap per instance over the core (Emscripten glue: allocator,
// RNG, model) and the kernels (products, softmax, attention), which share one memory. Every
// other module (qkv-lab.js's API calls, model.js, the GPT engine) reaches that memory only
// through the Heap's methods below, never through the glue's HEAP* views: the views are detached
// whenever the memory grows, and the Heap re-reads them on every access.
//
// The internal interface (addresses are byte addresses; "copy" means a fresh array the caller
// may keep; nothing here checks user input: callers check at the API boundary):
//   call(name, ...args)           calls the core's C function `name` (e.g. 'qkv_model_update'),
//                                 returns what it returns (a status code, a pointer, a size)
//   kernels                       the kernel module's exports, called directly on hot paths:
//                                 heap.kernels.qkv_matmul(out, A, B, n, k, m) → status
//   gptKernels                    the GPT kernels' exports, once the GPT engine is attached
//                                 (loader.js attachGPT), else null
//   writeFloats(ptr, values)      copies an array of numbers in as float32 (a Matrix: .data)
//   copyInput(ptr, input)         copies a read input's data in, checking it on the way when
//                                 readInput left that to the copy (matrix.js copyChecked)
//   writeInts(ptr, values)        copies an array of integers in as int32
//   writeBytes(ptr, bytes)        copies a Uint8Array in
//   readMatrix(ptr, rows, cols)   → a ReturnedMatrix holding a copy of rows×cols float32
//   readFloats(ptr, count)        → Float32Array copy
//   readDoubles(ptr, count)       → Float64Array copy
//   readInts(ptr, count)          → Int32Array copy
//   readBytes(ptr, count)         → Uint8Array copy
//   readInt(ptr), readDouble(ptr) → one int32 / one double
//   readString(ptr)               → the NUL-terminated UTF-8 string there
//   floatView(ptr, count)         → a LIVE Float32Array over the heap, valid until the next call
//                                   that may allocate (use it to read or write in place, at once)
//   allocations(op)               → a group of tracked allocations freed together:
//                                   .bytes(n), .floats(n), .ints(n) → address (8-byte aligned,
//                                   a RangeError naming `op` when memory runs out);
//                                   .freeAll() frees every one (safe to call twice)
//   frame(floats, fn)             runs fn(frameAlloc) with short-lived buffers of about `floats`
//                                 floats in all: frameAlloc.floats(n) / .bytes(n) → address;
//                                 they are gone when fn returns or throws (open/take/close below
//                                 are the same for callers that cannot pass a function)
//   used()                        bytes currently allocated on the heap (flat across calls)
//   memoryBytes()                 size of the whole WebAssembly memory (grows, never shrinks)
// `core` is the Emscripten module itself: only tests of the raw C API and the kernel benchmark
// use it.
import { ReturnedMatrix, copyChecked } from './matrix.js';

/** Status codes of every C function (qkv_status in wasm/qkv.h; tests/heap.test.js compares). */
export const STATUS = Object.freeze({
  OK: 0, NULL: 1, SIZE: 2, SHAPE: 3, NONFINITE: 4, ALLOC: 5, ARGUMENT: 6, MASKED_ROW: 7,
  TOKEN: 8, DIVERGED: 9, OVERFLOW: 10,
});
/** qkv_model_set_optimizer's optimizer (QKV_OPTIMIZER_* in wasm/qkv.h). */
export const OPTIMIZER = Object.freeze({ sgd: 0, adam: 1 });
/** qkv_model_tensor's groups (QKV_MODEL_* in wasm/qkv.h). */
export const TENSOR_GROUP = Object.freeze({ params: 0, grads: 1, positions: 2, activations: 3 });
/** qkv_model_tensor's `which` in the params and grads groups, in wasm/model.c's order. */
export const MODEL_PARAMETERS = Object.freeze(['embedding', 'Wq', 'Wk', 'Wv', 'Wout', 'bout']);
/** qkv_model_tensor's `which` in the activations group (the last forward), in wasm/model.c's order. */
export const MODEL_ACTIVATIONS = Object.freeze(['X', 'Q', 'K', 'V', 'scores', 'weights', 'attention',
  'h', 'logits', 'probs']);

/** qkv_gpt_tensor's groups (QKV_GPT_* in wasm/qkv.h). */
export const GPT_TENSOR_GROUP = Object.freeze({ params: 0, grads: 1, activations: 2, adapters: 3, dadapters: 4 });
/** LoRA's targets, in wasm/qkv.h's order (QKV_LORA_WQ …): bit t of qkv_gpt_create_lora's mask. */
export const LORA_TARGETS = Object.freeze(['Wq', 'Wk', 'Wv', 'Wo', 'W1', 'W2']);
/** qkv_gpt_tensor's layer for the whole parameter block (QKV_GPT_LAYER_ALL in wasm/qkv.h); layer L
 * (the GPT's layers) holds the tensors outside the blocks, named below. */
export const GPT_LAYER_ALL = -1;
/** qkv_gpt_tensor's `which` at layer L in the params and grads groups (QKV_GPT_WTE …). */
export const GPT_OUTSIDE_PARAMETERS = Object.freeze(['wte', 'wpe', 'lnfw', 'lnfb']);
/** qkv_gpt_tensor's `which` at layer L in the activations group (QKV_GPT_ACT_X0 …). */
export const GPT_OUTSIDE_ACTIVATIONS = Object.freeze(['x0', 'lnf', 'logits', 'probs']);
/** One Transformer block's parameters, in wasm/qkv.h's order (QKV_BLOCK_LN1W …). */
export const BLOCK_PARAMETERS = Object.freeze(['ln1w', 'ln1b', 'qkvw', 'qkvb', 'attprojw', 'attprojb', 'ln2w',
  'ln2b', 'fcw', 'fcb', 'fcprojw', 'fcprojb']);
/** One Transformer block's activations, in wasm/qkv.h's order (QKV_BLOCK_ACT_LN1 …). */
export const BLOCK_ACTIVATIONS = Object.freeze(['ln1', 'ln1_mean', 'ln1_rstd', 'qkv', 'q', 'k', 'v', 'scores',
  'weights', 'head_out', 'concat', 'attn', 'resid1', 'ln2', 'ln2_mean', 'ln2_rstd', 'hidden', 'gelu', 'mlp', 'out']);

// Scratch memory, allocated once per instance and reused by every frame that fits (results are
// copied out before the frame closes); a larger frame allocates one block and frees it when it
// closes. used() therefore counts the scratch from the start and stays flat across calls.
const SCRATCH_BYTES = 1 << 18;
const FRAME_BUFFERS = 16;  // a frame's alignment slack allows this many buffers beyond its floats

export class Heap {
  constructor(core, kernels, memory = null) {
    this.core = core;
    this.kernels = kernels;
    /** the GPT kernels' exports (GELU's loops, AdamW, the output layer's softmax), once the GPT engine is attached */
    this.gptKernels = null;
    /**
     * null, or (name, function) → the function to bind: attachGPT (loader.js) passes each of the
     * GPT engine's imports through it (bench/gpt-profile.mjs times the kernels so). Internal.
     */
    this.importHook = null;
    /** the WebAssembly.Memory the modules share (the GPT engine's instantiation needs it) */
    this.memory = memory;
    /**
     * Every function call() reaches, by the glue's names (_qkv_…): the core's (this object's
     * prototype) and those of the modules attached since (attach(): the GPT engine's). The
     * Emscripten module itself is never written to.
     */
    this.functions = Object.create(core);
    this._scratch = core._qkv_alloc_bytes(SCRATCH_BYTES);
    if (!this._scratch) throw new RangeError('load: out of WebAssembly memory');
    this._busy = false;
    this._block = 0;
  }

  call(name, ...args) {
    return this.functions['_' + name](...args);
  }

  /**
   * A module instantiated on this memory (the kernels, the GPT engine) gets its C stack here:
   * `bytes` allocated for the instance's lifetime (used() counts them) and its __stack_pointer
   * set to their top (stacks grow down).
   */
  giveStack(exports, bytes, op) {
    const stack = this.core._qkv_alloc_bytes(bytes);
    if (!stack) throw new RangeError(`${op}: out of WebAssembly memory for a stack of ${bytes} bytes`);
    exports.__stack_pointer.value = (stack + bytes) & ~15;
  }

  /** Makes a module's exported functions callable by name through call() (and `functions`). */
  attach(exports) {
    for (const [name, value] of Object.entries(exports)) if (typeof value === 'function') this.functions['_' + name] = value;
  }

  used() { return this.core._qkv_heap_used(); }
  memoryBytes() { return this.core.HEAPU8.byteLength; }

  // ---- copies in and out (each re-reads the glue's view: memory may have grown) ----
  writeFloats(ptr, values) { this.core.HEAPF32.set(values, ptr >> 2); }
  copyInput(ptr, input) { copyChecked(input, this.core.HEAPF32, ptr >> 2); }
  writeInts(ptr, values) { this.core.HEAP32.set(values, ptr >> 2); }
  writeBytes(ptr, bytes) { this.core.HEAPU8.set(bytes, ptr); }
  readFloats(ptr, count) { return this.core.HEAPF32.slice(ptr >> 2, (ptr >> 2) + count); }
  readDoubles(ptr, count) { return this.core.HEAPF64.slice(ptr >> 3, (ptr >> 3) + count); }
  readInts(ptr, count) { return this.core.HEAP32.slice(ptr >> 2, (ptr >> 2) + count); }
  readBytes(ptr, count) { return this.core.HEAPU8.slice(ptr, ptr + count); }
  readInt(ptr) { return this.core.HEAP32[ptr >> 2]; }
  readDouble(ptr) { return this.core.HEAPF64[ptr >> 3]; }
  readString(ptr) { return this.core.UTF8ToString(ptr); }
  readMatrix(ptr, rows, cols) { return new ReturnedMatrix(rows, cols, this.readFloats(ptr, rows * cols)); }
  floatView(ptr, count) { return this.core.HEAPF32.subarray(ptr >> 2, (ptr >> 2) + count); }

  /** A group of allocations that live until freeAll() (a model's buffers, say). */
  allocations(op) {
    const core = this.core;
    let pointers = [];
    const bytes = (n) => {
      const ptr = core._qkv_alloc_bytes(n);
      if (!ptr) throw new RangeError(`${op}: out of WebAssembly memory (${n} bytes)`);
      pointers.push(ptr);
      return ptr;
    };
    return {
      bytes,
      floats: (n) => bytes(4 * n),
      ints: (n) => bytes(4 * n),
      freeAll() {
        for (const ptr of pointers) core._qkv_free(ptr);
        pointers = [];
      },
    };
  }

  // ---- frames: the short-lived buffers of one call ----

  /** Runs fn with a frame of about `floats` floats; see the header. */
  frame(floats, fn) {
    this.open(floats + FRAME_BUFFERS);  // room for byte counts rounded up to floats
    try {
      return fn({ floats: (count) => this.take(count), bytes: (count) => this.take((count + 3) >> 2) });
    } finally {
      this.close();
    }
  }

  /** Opens a frame for `floats` floats in up to FRAME_BUFFERS buffers (frames do not nest). */
  open(floats) {
    if (this._busy) throw new Error('qkv-lab: internal error: a call began inside another');
    const need = 4 * floats + 16 * FRAME_BUFFERS;
    if (need <= SCRATCH_BYTES) {
      this._base = this._scratch;
      this._limit = SCRATCH_BYTES;
    } else {
      const block = this.core._qkv_alloc_bytes(need);
      if (!block) throw new RangeError(`out of WebAssembly memory: could not allocate ${need} bytes`);
      this._block = block;
      this._base = block;
      this._limit = need;
    }
    this._offset = 0;
    this._busy = true;
  }

  /** The next 16-byte aligned buffer of `floats` floats in the open frame (its address). */
  take(floats) {
    const size = (4 * floats + 15) & ~15;
    if (this._offset + size > this._limit) throw new Error('qkv-lab: internal error: frame too small');
    const ptr = this._base + this._offset;
    this._offset += size;
    return ptr;
  }

  /** Closes the open frame (call it in a finally). */
  close() {
    if (this._block) {
      this.core._qkv_free(this._block);
      this._block = 0;
    }
    this._busy = false;
  }
}
