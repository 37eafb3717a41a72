// wick's JS door: the wasm core's loader, Tensor, errors, lifetimes, autograd and the argument marshalling the
// generated op surface (ops.mjs, from build/gen/ops.json by tools/gen_js.py) calls. Zero runtime dependencies;
// the same file runs in node and in a browser.
import { wasiImports } from './wasi.mjs';

let E = null;            // the instance's exports (null until init())
let DTYPES = [];         // index = wk_dtype value: 'bool', 'uint8', ..., 'float64' (read from the core)
const DTYPE_INDEX = {};  // name -> wk_dtype
export const info = { simd: false, engine: '', wasmBytes: 0 };

// ---------------------------------------------------------------------------------------------- errors
// torch's exception kinds (wk_error_kind order). TypeError is JavaScript's own; the others are classes named as
// Python names them; every one carries `kind` (the Python class name) and torch's message.
class TorchError extends Error {
  constructor(message, kind) { super(message); this.name = kind; this.kind = kind; }
}
export class RuntimeError extends TorchError { constructor(m, k = 'RuntimeError') { super(m, k); } }
export class IndexError extends TorchError { constructor(m) { super(m, 'IndexError'); } }
export class ValueError extends TorchError { constructor(m) { super(m, 'ValueError'); } }
export class NotImplementedError extends RuntimeError { constructor(m) { super(m, 'NotImplementedError'); } }
export class MemoryError extends TorchError { constructor(m) { super(m, 'MemoryError'); } }
export class OverflowError extends RuntimeError { constructor(m) { super(m, 'OverflowError'); } }
export class ZeroDivisionError extends TorchError { constructor(m) { super(m, 'ZeroDivisionError'); } }
export class LinAlgError extends RuntimeError { constructor(m) { super(m, 'LinAlgError'); } }
function typeError(m) { const e = new TypeError(m); e.kind = 'TypeError'; return e; }
const KINDS = [null, (m) => new RuntimeError(m), (m) => new IndexError(m), typeError, (m) => new ValueError(m),
  (m) => new NotImplementedError(m), (m) => new MemoryError(m), (m) => new OverflowError(m),
  (m) => new ZeroDivisionError(m), (m) => new LinAlgError(m)];

let warningHandler = (msg) => console.warn('UserWarning: ' + msg);
/** Where torch's warnings (UserWarning) go: fn(message). The default prints with console.warn. */
export function setWarningHandler(fn) { const prev = warningHandler; warningHandler = fn; return prev; }

function takeWarnings() {
  const n = E.wk_warning_count();
  if (!n) return;
  const msgs = [];
  for (let i = 0; i < n; i++) msgs.push(cstr(E.wk_warning_message(i)));
  E.wk_warnings_clear();
  for (const m of msgs) warningHandler(m);
}

/** The pending C error as a JS exception (and clears it). */
function lastError() {
  const kind = E.wk_error_kind_get();
  const msg = cstr(E.wk_error_message());
  E.wk_error_clear();
  const make = KINDS[kind] || KINDS[1];
  return make(msg || 'wick: an operation failed without a message');
}
function check(rc) { if (rc < 0) throw lastError(); takeWarnings(); return rc; }

// ---------------------------------------------------------------------------------------------- memory
const heap = () => E.memory.buffer; // re-taken after every call: memory.grow detaches old views
const dv = () => new DataView(E.memory.buffer);
const encoder = new TextEncoder(), decoder = new TextDecoder();
function cstr(p) {
  if (!p) return '';
  const b = new Uint8Array(heap(), p);
  let n = 0;
  while (b[n]) n++;
  return decoder.decode(b.subarray(0, n));
}
function malloc(n) {
  const p = E.malloc(Math.max(n, 1));
  if (!p) throw new MemoryError(`wick: out of wasm memory allocating ${n} bytes`);
  return p;
}

// Per-call scratch for marshalled arguments: a bump allocator over one block (grown on demand) that is reset when
// the call returns. The C core never calls back into JS, so calls do not nest.
let scratch = 0, scratchSize = 0, scratchTop = 0;
const bigBlocks = [];
function salloc(n, align = 8) {
  const off = (scratchTop + align - 1) & ~(align - 1);
  if (off + n <= scratchSize) { scratchTop = off + n; return scratch + off; }
  const p = malloc(n); // too big for the scratch block: its own block, freed with the frame
  bigBlocks.push(p);
  return p;
}
function sreset() {
  scratchTop = 0;
  while (bigBlocks.length) E.free(bigBlocks.pop());
}

// ---------------------------------------------------------------------------------------------- loader
// (module () -> v128: i32.const 0; i8x16.splat): valid exactly where the engine has fixed-width SIMD.
const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 8, 1, 6, 0, 65, 0, 253, 15, 11]);
export function simdSupported() { return WebAssembly.validate(SIMD_PROBE); }
const isNode = typeof process !== 'undefined' && !!(process.versions && process.versions.node);

async function fetchBytes(where) {
  if (typeof where === 'string' && !/^[a-z]+:/.test(where)) {
    if (isNode) return new Uint8Array(await (await import('node:fs/promises')).readFile(where));
    where = new URL(where, globalThis.location ? globalThis.location.href : undefined);
  }
  if (where instanceof URL && where.protocol === 'file:') {
    const { readFile } = await import('node:fs/promises');
    const { fileURLToPath } = await import('node:url');
    return new Uint8Array(await readFile(fileURLToPath(where)));
  }
  const r = await fetch(where);
  if (!r.ok) throw new Error(`wick: fetching ${where} failed: ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

/** Loads the core. opts.wasm: a URL, a path, bytes or a WebAssembly.Module (default: wick.wasm next to this
 *  file, or wick-nosimd.wasm where WebAssembly.validate rejects SIMD); opts.simd forces the choice. */
export async function init(opts = {}) {
  if (E) return info;
  const simd = opts.simd !== undefined ? !!opts.simd : simdSupported();
  let src = opts.wasm || new URL(simd ? './wick.wasm' : './wick-nosimd.wasm', import.meta.url);
  let module;
  if (src instanceof WebAssembly.Module) module = src;
  else {
    const bytes = src instanceof Uint8Array || src instanceof ArrayBuffer ? new Uint8Array(src) : await fetchBytes(src);
    info.wasmBytes = bytes.length;
    module = await WebAssembly.compile(bytes);
  }
  let memory = null;
  const instance = await WebAssembly.instantiate(module, wasiImports(module, () => memory));
  E = instance.exports;
  memory = E.memory;
  if (E._initialize) E._initialize();
  info.simd = simd;
  info.engine = isNode ? `node ${process.versions.node}` : (globalThis.navigator ? navigator.userAgent : 'unknown');
  DTYPES = [];
  for (let i = 0; ; i++) {
    const p = E.wk_dtype_name(i);
    if (!p || cstr(p) === '' || i > 64) break;
    const name = cstr(p);
    if (DTYPES.includes(name)) break;
    DTYPES.push(name);
    DTYPE_INDEX[name] = i;
  }
  scratchSize = 64 * 1024;
  scratch = malloc(scratchSize);
  return info;
}
export function exports_() { return E; }
function need() { if (!E) throw new Error('wick: call `await init()` first'); }

// ---------------------------------------------------------------------------------------------- dtypes
/** A dtype name ('float32', ...) or torch spelling ('torch.float32'); aliases as torch's (float, long, ...). */
const ALIASES = { float: 'float32', double: 'float64', half: 'float16', long: 'int64', int: 'int32', short: 'int16',
  cfloat: 'complex64', cdouble: 'complex128' };
export function dtypeIndex(d) {
  if (d === null || d === undefined) return -1;
  if (typeof d !== 'string') throw typeError(`expected a dtype name, got ${typeof d}`);
  let n = d.startsWith('torch.') ? d.slice(6) : d;
  n = ALIASES[n] || n;
  const i = DTYPE_INDEX[n];
  if (i === undefined) throw typeError(`wick: unknown or unsupported dtype '${d}'`);
  return i;
}
export function dtypeName(i) { return DTYPES[i]; }
export const float32 = 'float32', float64 = 'float64', float16 = 'float16', bfloat16 = 'bfloat16', int64 = 'int64',
  int32 = 'int32', int16 = 'int16', int8 = 'int8', uint8 = 'uint8', bool = 'bool';
export function getDefaultDtype() { need(); return DTYPES[E.wk_get_default_dtype()]; }
export function setDefaultDtype(d) { need(); check(E.wk_set_default_dtype(dtypeIndex(d))); }

// The typed array each dtype's elements are stored in (float16 and bfloat16 as raw 16-bit patterns).
const STORE = { bool: Uint8Array, uint8: Uint8Array, int8: Int8Array, int16: Int16Array, int32: Int32Array,
  int64: BigInt64Array, float16: Uint16Array, bfloat16: Uint16Array, float32: Float32Array, float64: Float64Array };
// What toTypedArray() gives for each dtype (the halves widened to float32).
const OUT = { ...STORE, float16: Float32Array, bfloat16: Float32Array };
function dtypeOfTyped(a) {
  if (a instanceof Float32Array) return 'float32';
  if (a instanceof Float64Array) return 'float64';
  if (a instanceof Int32Array) return 'int32';
  if (a instanceof BigInt64Array) return 'int64';
  if (a instanceof Int16Array) return 'int16';
  if (a instanceof Int8Array) return 'int8';
  if (a instanceof Uint8Array || a instanceof Uint8ClampedArray) return 'uint8';
  throw typeError(`wick: ${a.constructor.name} has no wick dtype`);
}

// ---------------------------------------------------------------------------------------------- scalars
/** A JS number is an int Scalar when Number.isInteger says so; wrap it to pass a Python float: f(2) is 2.0. */
export class FloatScalar { constructor(v) { this.value = Number(v); } valueOf() { return this.value; } }
export function f(v) { return new FloatScalar(v); }

// ---------------------------------------------------------------------------------------------- lifetimes
// Every Tensor wraps one reference to a C tensor. dispose() drops it; scope(fn) drops those created inside fn
// except what fn returns and what keep() marked; the FinalizationRegistry drops what was forgotten and counts it.
const scopes = [];
let leaks = 0, leakHandler = null;
const registry = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry((h) => {
  leaks++;
  if (E) E.wk_release(h);
  if (leakHandler) leakHandler(h);
}) : null;
let liveCount = 0;
/** Tensors collected by the garbage collector without dispose(): each was a leak that the registry freed. */
export function leakCount() { return leaks; }
export function onLeak(fn) { leakHandler = fn; }
/** Tensors created and not yet disposed. */
export function liveTensors() { return liveCount; }

// Note [Handles]: a C pointer never crosses the JS API. A Tensor's handle is a private field set only by this module
// (the constructor wants TOKEN), so it is always a reference this module took from the core and still holds (the C
// tensor cannot be freed under it); dispose() zeroes it and every use raises after. Arguments are taken as tensors
// only by brand (`#h in v`): an object with a `handle` property, an Object.create(Tensor.prototype) or a number is
// refused with a TypeError, never passed on as a pointer. Generators are held the same way. exports_() is the raw
// C ABI and trusts its caller, as C does.
const TOKEN = Symbol('wick.handle');
/** The C handle of tensor argument v (a TypeError naming `what` for anything that is not a live wick Tensor). */
function th(v, what) {
  if (!Tensor.isTensor(v)) throw typeError(`wick: ${what} must be a Tensor, not ${describe(v)}`);
  return v.handle;
}
function describe(v) {
  if (v === null) return 'null';
  if (typeof v !== 'object') return typeof v;
  return v.constructor && v.constructor.name ? v.constructor.name : 'object';
}
export class Tensor {
  #h = 0;
  #kept = false;
  constructor(token, h) {
    if (token !== TOKEN) throw typeError('wick: use Tensor.from(data, shape, {dtype}) or an op to make a tensor');
    this.#h = h;
    liveCount++;
    if (registry) registry.register(this, h, this);
    if (scopes.length) scopes[scopes.length - 1].push(this);
  }
  /** Whether v is a wick Tensor made by this module (its brand: not instanceof, which a prototype can fake). */
  static isTensor(v) { return typeof v === 'object' && v !== null && #h in v; }
  /** The C handle; raises on a disposed tensor (never reads recycled memory). */
  get handle() {
    if (!Tensor.isTensor(this)) throw typeError('wick: not a Tensor (a Tensor is made by Tensor.from, tensor() or an op)');
    if (!this.#h) throw new RuntimeError('wick: this tensor was disposed (dispose() or the end of its scope()); it cannot be used');
    return this.#h;
  }
  get isDisposed() { return this.#h === 0; }
  dispose() {
    if (!this.#h) return;
    const h = this.#h;
    this.#h = 0;
    liveCount--;
    if (registry) registry.unregister(this);
    E.wk_release(h);
  }
  keep() { this.#kept = true; return this; }
  get kept() { return this.#kept; }

  static from(data, shape, opts = {}) { return fromData(data, shape, opts); }

  get shape() { const h = this.handle; const n = E.wk_ndim(h), p = E.wk_sizes(h); const d = dv(); const s = [];
    for (let i = 0; i < n; i++) s.push(Number(d.getBigInt64(p + 8 * i, true))); return s; }
  get dtype() { return DTYPES[E.wk_tensor_dtype(this.handle)]; }
  get ndim() { return E.wk_ndim(this.handle); }
  dim() { return this.ndim; }
  size(d) {
    const s = this.shape;
    if (d === undefined) return s;
    const n = s.length, i = d < 0 ? d + n : d;
    if (i < 0 || i >= Math.max(n, 1) || n === 0) throw new IndexError(`Dimension out of range (expected to be in range of [${-Math.max(n, 1)}, ${Math.max(n, 1) - 1}], but got ${d})`);
    return s[i];
  }
  strides() { const h = this.handle; const n = E.wk_ndim(h), p = E.wk_strides(h); const d = dv(); const s = [];
    for (let i = 0; i < n; i++) s.push(Number(d.getBigInt64(p + 8 * i, true))); return s; }
  isContiguous() { return !!E.wk_is_contiguous(this.handle); }
  numel() { return Number(E.wk_numel(this.handle)); }
  nelement() { return this.numel(); }
  ndimension() { return this.ndim; }
  stride(d) {
    const s = this.strides();
    if (d === undefined) return s;
    const n = s.length, i = d < 0 ? d + n : d;
    if (i < 0 || i >= Math.max(n, 1) || n === 0) throw new IndexError(`Dimension out of range (expected to be in range of [${-Math.max(n, 1)}, ${Math.max(n, 1) - 1}], but got ${d})`);
    return s[i];
  }
  elementSize() { return E.wk_dtype_size(E.wk_tensor_dtype(this.handle)); }
  isFloatingPoint() { return !!E.wk_dtype_is_floating(E.wk_tensor_dtype(this.handle)); }
  // torch's dtype shorthands: x.float() is x.to(float32)
  float() { return this.to('float32'); }
  double() { return this.to('float64'); }
  half() { return this.to('float16'); }
  bfloat16() { return this.to('bfloat16'); }
  long() { return this.to('int64'); }
  int() { return this.to('int32'); }
  short() { return this.to('int16'); }
  char() { return this.to('int8'); }
  byte() { return this.to('uint8'); }
  bool() { return this.to('bool'); }

  /** The elements, row-major, as a typed array (a copy): float16/bfloat16 widen to Float32Array, bool is 0/1. */
  toTypedArray() {
    const h = this.handle, dt = this.dtype, n = Number(E.wk_numel(h));
    const Out = OUT[dt];
    const outDtype = dt === 'float16' || dt === 'bfloat16' ? 'float32' : dt;
    const bytes = n * Out.BYTES_PER_ELEMENT;
    const p = malloc(bytes);
    try {
      check(E.wk_copy_to_buffer(h, DTYPE_INDEX[outDtype], p));
      return new Out(heap().slice(p, p + bytes));
    } finally { E.free(p); }
  }
  /** torch's tolist(): nested arrays of numbers (int64 as Number; BigInt beyond 2^53) or booleans. */
  toArray() {
    const flat = this.toTypedArray(), dt = this.dtype, shape = this.shape;
    const conv = dt === 'bool' ? (x) => x !== 0 : dt === 'int64'
      ? (x) => (x >= -9007199254740992n && x <= 9007199254740992n ? Number(x) : x) : (x) => x;
    let i = 0;
    const build = (d) => {
      if (d === shape.length) return conv(flat[i++]);
      const out = [];
      for (let k = 0; k < shape[d]; k++) out.push(build(d + 1));
      return out;
    };
    return build(0);
  }
  tolist() { return this.toArray(); }
  item() {
    const h = this.handle;
    const p = salloc(16);
    try {
      check(E.wk_item(h, p));
      return readScalar(p);
    } finally { sreset(); }
  }
  toString() {
    const p = E.wk_repr(this.handle);
    if (!p) throw lastError();
    const s = cstr(p);
    E.wk_free_string(p);
    return s;
  }
  [Symbol.for('nodejs.util.inspect.custom')]() { return this.isDisposed ? 'Tensor(<disposed>)' : this.toString(); }

  // ---- indexing: x[a, b] is x.get(a, b); x[a, b] = v is x.set(v, a, b). An item is an integer, slice(start, stop,
  // step), null (None), '...' (Ellipsis), a boolean, a Tensor or an array (a list: an index tensor). tuple(a) is x[a,].
  get(...items) { return wrap(indexCall(this, items, (h, p, n, tup) => E.wk_getitem(h, p, BigInt(n), tup))); }
  set(value, ...items) {
    if (Tensor.isTensor(value)) check(indexCall(this, items, (h, p, n, tup) => E.wk_setitem(h, p, BigInt(n), tup, th(value, 'the value'))));
    else check(indexCall(this, items, (h, p, n, tup) => E.wk_setitem_scalar(h, p, BigInt(n), tup, putScalar(value))));
    return this;
  }

  // ---- autograd
  get requiresGrad() { return !!E.wk_requires_grad(this.handle); }
  set requiresGrad(v) { check(E.wk_requires_grad_(this.handle, v ? 1 : 0)); }
  requiresGrad_(v = true) { check(E.wk_requires_grad_(this.handle, v ? 1 : 0)); return this; }
  get isLeaf() { return !!E.wk_is_leaf(this.handle); }
  get grad() { const g = E.wk_grad(this.handle); return g ? new Tensor(TOKEN, E.wk_retain(g)) : null; }
  set grad(t) { check(E.wk_set_grad(this.handle, none(t) ? 0 : th(t, 'grad'))); }
  /** The node that made this tensor (a Node, one reference), or null for a leaf. */
  get gradNode() { const n = E.wk_grad_fn(this.handle); return n ? new Node(TOKEN, n) : null; }
  /** The name of the node that made this tensor ('MulBackward0'), or null for a leaf. */
  get gradFn() { const n = E.wk_grad_fn(this.handle); return n ? cstr(E.wk_node_name(n)) : null; }
  backward(gradient = null, opts = {}) {
    runBackward([this], [gradient], { ...opts, grad: false }); // the engine, so that a hook's error comes back as itself
  }
  /** x.data: the same storage and geometry, no history, a version counter of its own; setData(src): x.data = src. */
  get data() { return wrap(E.wk_variable_data(this.handle)); }
  setData(src) { check(E.wk_set_data(this.handle, src.handle)); return this; }
  /** x._version: the in-place write counter x shares with its views; bumpVersion() counts an outside write. */
  get version() { return E.wk_version_get(this.handle) >>> 0; }
  bumpVersion() { E.wk_bump_version(this.handle); }
  storageOffset() { return Number(E.wk_storage_offset(this.handle)); }
  /** x._is_view(): a differentiable view of viewBase (x._base: the root tensor it views, or null). */
  get isView() { return !!E.wk_is_view(this.handle); }
  get viewBase() { const b = E.wk_view_base(this.handle); return b ? new Tensor(TOKEN, E.wk_retain(b)) : null; }
  /** The wasm address of element 0 (0 for an empty tensor, as torch's data_ptr()). */
  dataPtr() { const h = this.handle; return Number(E.wk_numel(h)) === 0 ? 0 : E.wk_data_ptr(h) >>> 0; }
  /** x.retain_grad(): a non-leaf keeps its .grad after backward. */
  retainGrad() { check(E.wk_retain_grad(this.handle)); return this; }
  get retainsGrad() { return !!E.wk_retains_grad(this.handle); }
  /** x.register_hook(fn): fn(grad) runs when the gradient of x is computed and may return a replacement (a Tensor
   *  of the same dtype and shape) or null/undefined. Returns the id for removeHook(). */
  registerHook(fn, name) { return registerHook(this, fn, name); }
  removeHook(id) { check(E.wk_tensor_remove_hook(this.handle, id)); }
}

// A graph node (x.grad_fn): one reference (wk_node_retain) dropped by dispose() or, if forgotten, the registry.
const nodeRegistry = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry((n) => { if (E) E.wk_node_release(n); }) : null;
export class Node {
  #n = 0;
  constructor(token, n) {
    if (token !== TOKEN) throw typeError('wick: nodes come from Tensor.gradNode');
    E.wk_node_retain(n);
    this.#n = n;
    if (nodeRegistry) nodeRegistry.register(this, n, this);
  }
  get handle() { if (!this.#n) throw new RuntimeError('wick: this node was disposed'); return this.#n; }
  /** torch's class name: 'MulBackward0' ('AccumulateGrad' for a leaf's) */
  get name() { return cstr(E.wk_node_name(this.handle)); }
  /** Is it one of torch's C++ nodes (grad_fn.name() says 'torch::autograd::' + name)? */
  get isCpp() { return !!E.wk_node_name_is_cpp(E.wk_node_name(this.handle)); }
  /** next_functions: [[Node | null, input_nr], ...] */
  get nextFunctions() {
    const n = this.handle, k = E.wk_node_num_next(n), out = [];
    const p = malloc(4); // [1] input_nr (u32)
    try {
      for (let i = 0; i < k; i++) {
        const nx = E.wk_node_next(n, i, p);
        out.push([nx ? new Node(TOKEN, nx) : null, dv().getUint32(p, true)]);
      }
    } finally { E.free(p); }
    return out;
  }
  /** AccumulateGrad's leaf (a new Tensor), else null. */
  get variable() { const t = E.wk_node_variable(this.handle); return t ? new Tensor(TOKEN, E.wk_retain(t)) : null; }
  dispose() {
    if (!this.#n) return;
    const n = this.#n;
    this.#n = 0;
    if (nodeRegistry) nodeRegistry.unregister(this);
    E.wk_node_release(n);
  }
}

export class Slice { constructor(start, stop, step) { this.start = start ?? null; this.stop = stop ?? null; this.step = step ?? null; } }
/** Python's slice(start, stop, step) for Tensor.get/set (null or undefined: None). */
export function slice(start, stop, step) {
  if (stop === undefined && step === undefined) return new Slice(null, start, null);
  return new Slice(start, stop, step);
}
class IndexTuple { constructor(items) { this.items = items; } }
/** x.get(tuple(i)) is x[i,] (a one-element tuple index), which torch treats apart from x[i] for some items. */
export function tuple(...items) { return new IndexTuple(items); }
export const ellipsis = '...';

// wk_index_item on wasm32: kind i32 @0, i i64 @8, start @16, stop @24, step @32, t pointer @40; 48 bytes
function indexCall(self, items, fn) {
  const h = self.handle;
  let tup = items.length !== 1;
  if (items.length === 1 && items[0] instanceof IndexTuple) { items = items[0].items; tup = true; }
  const made = [];
  try {
    const p = salloc(48 * Math.max(items.length, 1));
    const d = dv();
    items.forEach((it, k) => {
      const q = p + 48 * k;
      for (let b = 0; b < 48; b += 8) d.setBigInt64(q + b, 0n, true);
      let kind;
      if (it === null || it === undefined) kind = 2;
      else if (it === '...') kind = 3;
      else if (typeof it === 'boolean') { kind = 4; d.setBigInt64(q + 8, it ? 1n : 0n, true); }
      else if (isInt(it)) { kind = 0; d.setBigInt64(q + 8, BigInt(it), true); }
      else if (it instanceof Slice) {
        const step = it.step === null ? 1 : it.step;
        if (step === 0) throw new ValueError('slice step cannot be zero');
        kind = 1;
        const big = 9223372036854775807n;
        const start = it.start === null ? (step > 0 ? 0n : big) : BigInt(it.start);
        const stop = it.stop === null ? (step > 0 ? big : -big - 1n) : BigInt(it.stop);
        d.setBigInt64(q + 16, start, true); d.setBigInt64(q + 24, stop, true); d.setBigInt64(q + 32, BigInt(step), true);
      } else if (Tensor.isTensor(it)) { kind = 5; d.setUint32(q + 40, it.handle, true); }
      else if (Array.isArray(it)) { // a list index: torch makes it a tensor (bool or int64)
        const flat = it.flat(Infinity);
        const t = fromData(it, undefined, { dtype: flat.length && flat.every((x) => typeof x === 'boolean') ? 'bool' : 'int64' });
        made.push(t);
        kind = 5; d.setUint32(q + 40, t.handle, true);
      } else throw typeError(`wick: cannot index with ${typeof it}`);
      d.setInt32(q, kind, true);
    });
    return fn(h, p, items.length, tup ? 1 : 0);
  } finally { sreset(); made.forEach((t) => t.dispose()); }
}

function readScalar(p) {
  const d = dv(), tag = d.getInt32(p, true);
  if (tag === 1) return d.getBigInt64(p + 8, true) !== 0n;
  if (tag === 2) { const v = d.getBigInt64(p + 8, true); return v >= -9007199254740992n && v <= 9007199254740992n ? Number(v) : v; }
  return d.getFloat64(p + 8, true);
}

/** Wraps a new C reference (0 = the pending C error, raised); module-internal (Note [Handles]). */
function wrap(h) {
  if (!h) throw lastError();
  takeWarnings();
  return new Tensor(TOKEN, h);
}

// ---------------------------------------------------------------------------------------------- creation
function flatten(data, shape, d, out) {
  if (Array.isArray(data)) {
    if (d === shape.length) shape.push(data.length);
    else if (shape[d] !== data.length) throw new ValueError(`expected sequence of length ${shape[d]} at dim ${d} (got ${data.length})`);
    for (const x of data) flatten(x, shape, d + 1, out);
  } else {
    if (d !== shape.length) throw typeError(`wick: a ragged nested array (a scalar at dim ${d})`);
    out.push(data);
  }
}

function fromData(data, shape, opts) {
  need();
  opts = opts || {};
  let flat, inferred = [], native = null;
  if (ArrayBuffer.isView(data)) {
    native = dtypeOfTyped(data);
    flat = data;
    inferred = [data.length];
  } else if (Array.isArray(data)) {
    flat = [];
    flatten(data, inferred, 0, flat);
  } else if (typeof data === 'number' || typeof data === 'boolean' || typeof data === 'bigint' || data instanceof FloatScalar) {
    flat = [data];
  } else throw typeError(`wick: Tensor.from takes a typed array, a (nested) array or a number, got ${typeof data}`);
  if (shape === undefined || shape === null) shape = inferred;
  shape = Array.from(shape, Number);
  let numel = 1;
  for (const s of shape) {
    if (!Number.isInteger(s) || s < 0) throw new RuntimeError(`wick: invalid shape [${shape.join(', ')}]`);
    numel *= s;
  }
  if (numel !== flat.length) throw new RuntimeError(`shape '[${shape.join(', ')}]' is invalid for input of size ${flat.length}`);
  let dt;
  if (opts.dtype) dt = DTYPES[dtypeIndex(opts.dtype)];
  else if (native) dt = native;
  else if (flat.length && flat.every((x) => typeof x === 'boolean')) dt = 'bool';
  else if (flat.every((x) => typeof x === 'bigint' || (typeof x === 'number' && Number.isInteger(x)) || typeof x === 'boolean')) dt = 'int64';
  else dt = DTYPES[E.wk_get_default_dtype()];
  // halves are made as float32 and converted by the core (its rounding, bit for bit torch's)
  const via = dt === 'float16' || dt === 'bfloat16' ? 'float32' : dt;
  const Store = STORE[via];
  let buf;
  if (native === via) buf = flat;
  else {
    buf = new Store(flat.length);
    for (let i = 0; i < flat.length; i++) {
      let x = flat[i];
      if (x instanceof FloatScalar) x = x.value;
      if (via === 'int64') buf[i] = typeof x === 'bigint' ? x : BigInt(Math.trunc(Number(x)));
      else if (via === 'bool') buf[i] = x ? 1 : 0;
      else buf[i] = typeof x === 'bigint' ? Number(x) : Number(x);
    }
  }
  const bytes = buf.length * Store.BYTES_PER_ELEMENT;
  const p = malloc(bytes), sp = malloc(8 * shape.length);
  let h;
  try {
    new Uint8Array(heap(), p, bytes).set(new Uint8Array(buf.buffer, buf.byteOffset, bytes));
    const d = dv();
    shape.forEach((s, i) => d.setBigInt64(sp + 8 * i, BigInt(s), true));
    h = E.wk_from_data(p, DTYPE_INDEX[via], shape.length, sp);
  } finally { E.free(p); E.free(sp); }
  let t = wrap(h);
  if (via !== dt) {
    const c = E.wk_to_dtype(t.handle, DTYPE_INDEX[dt], 0, 0);
    t.dispose();
    t = wrap(c);
  }
  if (opts.requiresGrad) t.requiresGrad_(true);
  return t;
}
/** torch.tensor(data, {dtype, requiresGrad}). */
export function tensor(data, opts = {}) { return fromData(data, undefined, opts); }

// ---------------------------------------------------------------------------------------------- lifetimes API
function collect(v, into) {
  if (Tensor.isTensor(v)) into.add(v);
  else if (Array.isArray(v)) for (const x of v) collect(x, into);
  else if (v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) for (const x of Object.values(v)) collect(x, into);
}
/** Runs fn(); disposes every tensor created inside it except those in its return value and those kept. */
export function scope(fn) {
  const mine = [];
  scopes.push(mine);
  let result;
  try {
    result = fn();
    if (result && typeof result.then === 'function') throw typeError('wick: scope() takes a synchronous function');
  } finally {
    scopes.pop();
    const keepSet = new Set();
    collect(result, keepSet);
    for (const t of mine) {
      if (keepSet.has(t) || t.kept) { if (scopes.length && !t.kept) scopes[scopes.length - 1].push(t); }
      else t.dispose();
    }
  }
  return result;
}
/** Marks tensors (one, or those in an array/object) so that no scope() disposes them. */
export function keep(v) { const s = new Set(); collect(v, s); for (const t of s) t.keep(); return v; }
export function dispose(v) { const s = new Set(); collect(v, s); for (const t of s) t.dispose(); }

// ---------------------------------------------------------------------------------------------- autograd, rng
export function isGradEnabled() { need(); return !!E.wk_is_grad_enabled(); }
export function setGradEnabled(on) { need(); return !!E.wk_set_grad_enabled(on ? 1 : 0); }
/** torch.inference_mode(on): nothing is recorded and new tensors are inference tensors; returns the previous mode. */
export function setInferenceMode(on) { need(); return !!E.wk_set_inference_mode(on ? 1 : 0); }
export function isInferenceModeEnabled() { need(); return !!E.wk_is_inference_mode_enabled(); }
/** torch.no_grad(): runs fn with gradient recording off. */
export function noGrad(fn) {
  need();
  const prev = E.wk_set_grad_enabled(0);
  try { return fn(); } finally { E.wk_set_grad_enabled(prev); }
}
export function enableGrad(fn) {
  need();
  const prev = E.wk_set_grad_enabled(1);
  try { return fn(); } finally { E.wk_set_grad_enabled(prev); }
}

/** torch.autograd.backward / torch.autograd.grad over the core's engine (wk_run_backward). roots: Tensors;
 *  grads: null or one entry per root (null: implicit, for a one-element root). opts: retainGraph, createGraph,
 *  inputs (Tensors), grad (true: autograd.grad, returns the inputs' gradients, a Tensor or null each, and no .grad
 *  changes; false: backward(inputs=...), only the inputs' .grad accumulate), allowUnused. */
export function runBackward(roots, grads = null, opts = {}) {
  need();
  const nr = roots.length, inputs = opts.inputs || null, ni = inputs ? inputs.length : 0;
  const wantGrads = !!(inputs && opts.grad);
  if (grads && grads.length !== nr) throw new RuntimeError(`grad_tensors has ${grads.length} elements but tensors has ${nr}`);
  // the arrays live in their own block, not the call scratch: a hook that runs inside may call ops
  const p = malloc(4 * (2 * nr + 2 * ni)); // roots[nr], grads[nr], inputs[ni], outs[ni]: handles (i32)
  const pg = p + 4 * nr, pi = pg + 4 * nr, po = pi + 4 * ni;
  try {
    const d = dv();
    for (let i = 0; i < nr; i++) {
      d.setUint32(p + 4 * i, th(roots[i], 'each root'), true);
      d.setUint32(pg + 4 * i, grads && !none(grads[i]) ? th(grads[i], 'gradient') : 0, true);
    }
    for (let i = 0; i < ni; i++) { d.setUint32(pi + 4 * i, th(inputs[i], 'each input'), true); d.setUint32(po + 4 * i, 0, true); }
    const rc = E.wk_run_backward(nr, p, pg, opts.retainGraph ? 1 : 0, opts.createGraph ? 1 : 0, ni, inputs ? pi : 0,
      wantGrads ? po : 0, opts.allowUnused ? 1 : 0);
    if (rc < 0) {
      if (hookError) { const e = hookError; hookError = null; E.wk_error_clear(); E.wk_warnings_clear(); throw e; }
      throw lastError();
    }
    takeWarnings();
    if (!wantGrads) return undefined;
    const out = [], d2 = dv();
    for (let i = 0; i < ni; i++) { const h = d2.getUint32(po + 4 * i, true); out.push(h ? new Tensor(TOKEN, h) : null); }
    return out;
  } finally { E.free(p); }
}
/** torch.autograd.grad(outputs, inputs, gradOutputs, opts): the gradients of `inputs` (a Tensor or null each). */
export function grad(outputs, inputs, gradOutputs = null, opts = {}) {
  const retainGraph = opts.retainGraph ?? !!opts.createGraph; // torch's default: retain_graph = create_graph
  return runBackward(outputs, gradOutputs, { ...opts, retainGraph, inputs, grad: true });
}

// ---- hooks: JS functions called by the core through its function table. One trampoline per C signature: a tiny
// module that imports the JS function and re-exports it (so it is a wasm function the table can hold); ctx is an
// id into `hooks`.
// (module (type (func (param i32 i32 i32) (result i32))) (type (func (param i32))) (type (func (param i32) (result i32)))
//  (import "e" "h" (func 0)) (import "e" "f" (func 1)) (import "e" "p" (func 2)) (export "h" 0) (export "f" 1) (export "p" 2))
const TRAMPOLINES = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0,
  1, 17, 3, 96, 3, 127, 127, 127, 1, 127, 96, 1, 127, 0, 96, 1, 127, 1, 127,
  2, 19, 3, 1, 101, 1, 104, 0, 0, 1, 101, 1, 102, 0, 1, 1, 101, 1, 112, 0, 2,
  7, 13, 3, 1, 104, 0, 0, 1, 102, 0, 1, 1, 112, 0, 2]);
const hooks = new Map(); // ctx id -> { fn, name }
let nextHook = 1, hookSlot = 0, freeSlot = 0, postAccSlot = 0, hookError = null, postAccFn = null;
function failHook(e, errp) {
  hookError = e;
  if (errp) dv().setInt32(errp, 1, true);
  const b = encoder.encode(`hook raised ${e && e.message ? e.message : e}`);
  const m = malloc(b.length + 1);
  new Uint8Array(heap(), m, b.length + 1).set([...b, 0]);
  E.wk_error_set(1, m);
  E.free(m);
}
/** What a hook returns to fail the backward without throwing (a front that keeps its own exception to re-raise). */
export const hookFailed = Object.freeze({ hookFailed: true });
function callHook(ctx, g, errp) {
  const h = hooks.get(ctx);
  try {
    const r = h.fn(new Tensor(TOKEN, E.wk_retain(g)));
    if (r === hookFailed) throw new RuntimeError('hook raised');
    if (r === null || r === undefined) return 0;
    if (!Tensor.isTensor(r)) throw typeError(`expected Variable, but hook returned '${typeof r}'`);
    const a = E.wk_tensor_dtype(g), b = E.wk_tensor_dtype(r.handle);
    const sh = (x) => { const n = E.wk_ndim(x), p = E.wk_sizes(x), d = dv(); const s = [];
      for (let i = 0; i < n; i++) s.push(d.getBigInt64(p + 8 * i, true)); return s.join(','); };
    const nm = (k) => cstr(E.wk_dtype_scalar_name(k)); // 'Float': torch.FloatTensor
    if (a !== b) throw new RuntimeError(`hook '${h.name}' has changed the type of value (was torch.${nm(a)}Tensor got torch.${nm(b)}Tensor)`);
    if (sh(g) !== sh(r.handle)) throw new RuntimeError(`hook '${h.name}' has changed the size of value`);
    return E.wk_retain(r.handle);
  } catch (e) { failHook(e, errp); return 0; }
}
function freeHook(ctx) {
  const h = hooks.get(ctx);
  hooks.delete(ctx);
  if (h && h.onFree) h.onFree();
}
function callPostAcc(leaf) {
  if (!postAccFn) return 0;
  try {
    if (postAccFn(new Tensor(TOKEN, E.wk_retain(leaf))) === hookFailed) throw new RuntimeError('hook raised');
    return 0;
  } catch (e) { failHook(e, 0); return -1; }
}
function trampolines() {
  if (hookSlot) return;
  const table = E.__indirect_function_table;
  if (!table || typeof table.grow !== 'function')
    throw new NotImplementedError('wick: tensor hooks need a wasm build that exports its function table');
  const inst = new WebAssembly.Instance(new WebAssembly.Module(TRAMPOLINES), { e: { h: callHook, f: freeHook, p: callPostAcc } });
  const at = table.grow(3);
  table.set(at, inst.exports.h); table.set(at + 1, inst.exports.f); table.set(at + 2, inst.exports.p);
  hookSlot = at; freeSlot = at + 1; postAccSlot = at + 2;
}
/** t.register_hook(fn) (see Tensor.registerHook); opts.onFree runs when the core drops the hook. */
export function registerHook(t, fn, name = fn.name || '<unknown>', onFree = null) {
  need();
  const h = th(t, 'the tensor');
  trampolines();
  const ctx = nextHook++;
  hooks.set(ctx, { fn, name, onFree });
  const id = E.wk_tensor_register_hook(h, hookSlot, ctx, freeSlot);
  if (id < 0) { hooks.delete(ctx); throw lastError(); }
  return id;
}
/** Tensor.register_post_accumulate_grad_hook's engine side: fn(leaf) runs after a flagged leaf's .grad was
 *  accumulated (one function per process, as the core keeps it); setPostAccumulateGradFlag(t, on) flags a leaf. */
export function setPostAccumulateGradCallback(fn) { need(); trampolines(); postAccFn = fn; E.wk_set_post_accumulate_grad_callback(postAccSlot); }
export function setPostAccumulateGradFlag(t, on) { E.wk_tensor_set_post_accumulate_grad_flag(th(t, 'the tensor'), on ? 1 : 0); }
/** How many hooks the core still holds (for leak checks). */
export function liveHooks() { return hooks.size; }

export class Generator {
  #g = 0;
  /** new Generator(): a fresh generator (a handle is taken only from this module: Note [Handles]) */
  constructor(token, h) { need(); this.#g = token === TOKEN ? h : E.wk_generator_new(); if (!this.#g) throw lastError(); }
  static handleOf(v) {
    if (typeof v !== 'object' || v === null || !(#g in v)) throw typeError(`wick: generator must be a Generator, not ${describe(v)}`);
    return v.handle;
  }
  get handle() { if (!this.#g) throw new RuntimeError('wick: this generator was disposed'); return this.#g; }
  manualSeed(seed) { E.wk_generator_manual_seed(this.handle, BigInt.asUintN(64, BigInt(seed))); return this; }
  initialSeed() { return E.wk_generator_initial_seed(this.handle); }
  /** Reseeds from a nondeterministic source; returns the seed (a BigInt). */
  seed() { return BigInt.asUintN(64, BigInt(E.wk_generator_seed(this.handle))); }
  /** The engine's state: a uint8 Tensor of STATE_BYTES bytes, torch's CPUGeneratorImplState layout. */
  getState() {
    const h = this.handle, p = malloc(Generator.STATE_BYTES); // [5056] the state bytes
    try {
      E.wk_generator_get_state(h, p);
      return Tensor.from(new Uint8Array(heap(), p, Generator.STATE_BYTES).slice(), [Generator.STATE_BYTES], { dtype: 'uint8' });
    } finally { E.free(p); }
  }
  /** Sets the state from a uint8 Tensor that getState() gave (torch's checks: size and engine validity). */
  setState(t) {
    const h = this.handle, b = t.toTypedArray(), p = malloc(b.length); // [n] the bytes, row-major
    try {
      new Uint8Array(heap(), p, b.length).set(b);
      check(E.wk_generator_set_state(h, p, b.length));
    } finally { E.free(p); }
    return this;
  }
  /** Generator.clone_state(): a new generator at the same state. */
  cloneState() { const c = E.wk_generator_clone(this.handle); if (!c) throw lastError(); return new Generator(TOKEN, c); }
  dispose() { if (this.#g) { E.wk_generator_release(this.#g); this.#g = 0; } }
}
Generator.STATE_BYTES = 5056; // WK_GENERATOR_STATE_SIZE
let defaultGen = null;
export function defaultGenerator() { need(); return defaultGen || (defaultGen = new Generator(TOKEN, E.wk_default_generator())); }
/** torch.manual_seed(seed): the default generator's mt19937 seeded as torch's (same streams, bit for bit). */
export function manualSeed(seed) { return defaultGenerator().manualSeed(seed); }
export function initialSeed() { return defaultGenerator().initialSeed(); }

export function setNumThreads(n) { need(); check(E.wk_set_num_threads(n)); }
export function getNumThreads() { need(); return E.wk_get_num_threads(); }

// ---------------------------------------------------------------------------------------------- op calls
// The generated surface calls callOp(name, overloads, args, self): overloads are [op, ...] entries of OPS (see
// tools/gen_js.py): {c, ret, nret, params: [[name, jsName, type, default, kwonly, pyonly, listSize], ...], out}.
const isPlain = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v) &&
  (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);
const isInt = (v) => (typeof v === 'number' && Number.isInteger(v)) || typeof v === 'bigint';
const isNum = (v) => typeof v === 'number' || typeof v === 'bigint' || v instanceof FloatScalar;
const isScalar = (v) => isNum(v) || typeof v === 'boolean';
const none = (v) => v === null || v === undefined;
const TYPE_OK = {
  'Tensor': (v) => Tensor.isTensor(v), 'Tensor?': (v) => none(v) || Tensor.isTensor(v),
  'Tensor[]': (v) => Array.isArray(v) && v.every((x) => Tensor.isTensor(x)),
  'Tensor?[]': (v) => Array.isArray(v) && v.every((x) => none(x) || Tensor.isTensor(x)),
  'Scalar': isScalar, 'Scalar?': (v) => none(v) || isScalar(v),
  'int': (v) => isInt(v), 'int?': (v) => none(v) || isInt(v),
  'int[]': (v, ls) => (Array.isArray(v) && v.every(isInt)) || (ls > 0 && isInt(v)),
  'int[]?': (v, ls) => none(v) || (Array.isArray(v) && v.every(isInt)) || (ls > 0 && isInt(v)),
  'float': isNum, 'float?': (v) => none(v) || isNum(v),
  'float[]': (v) => (Array.isArray(v) && v.every(isNum)) || isNum(v),
  'float[]?': (v) => none(v) || (Array.isArray(v) && v.every(isNum)) || isNum(v),
  'bool': (v) => typeof v === 'boolean', 'bool?': (v) => none(v) || typeof v === 'boolean',
  'str': (v) => typeof v === 'string', 'str?': (v) => none(v) || typeof v === 'string',
  'ScalarType': (v) => typeof v === 'string' && (DTYPE_INDEX[v.replace(/^torch\./, '')] !== undefined || ALIASES[v.replace(/^torch\./, '')] !== undefined),
  'Generator?': (v) => none(v) || v instanceof Generator,
};
TYPE_OK['ScalarType?'] = (v) => none(v) || TYPE_OK['ScalarType'](v);

function putScalar(v) {
  const p = salloc(16), d = dv();
  if (none(v)) { d.setInt32(p, 0, true); d.setBigInt64(p + 8, 0n, true); }
  else if (typeof v === 'boolean') { d.setInt32(p, 1, true); d.setBigInt64(p + 8, v ? 1n : 0n, true); }
  else if (typeof v === 'bigint') { d.setInt32(p, 2, true); d.setBigInt64(p + 8, v, true); }
  else if (v instanceof FloatScalar || !Number.isInteger(v)) { d.setInt32(p, 3, true); d.setFloat64(p + 8, Number(v), true); }
  else if (!Number.isSafeInteger(v)) { d.setInt32(p, 3, true); d.setFloat64(p + 8, v, true); }
  else { d.setInt32(p, 2, true); d.setBigInt64(p + 8, BigInt(v), true); }
  return p;
}
function putList(xs, elem, setter) { // {data pointer at 0, int64 len at 8}
  const p = salloc(16), data = salloc(Math.max(xs.length, 1) * elem);
  const d = dv();
  xs.forEach((x, i) => setter(d, data + elem * i, x));
  d.setUint32(p, data, true);
  d.setBigInt64(p + 8, BigInt(xs.length), true);
  return p;
}
function putNoneList() { const p = salloc(16), d = dv(); d.setUint32(p, 0, true); d.setBigInt64(p + 8, -1n, true); return p; }
function putOpt(v, isFloat) {
  const p = salloc(16), d = dv();
  d.setUint8(p, none(v) ? 0 : 1);
  if (isFloat) d.setFloat64(p + 8, none(v) ? 0 : Number(v), true);
  else d.setBigInt64(p + 8, none(v) ? 0n : BigInt(v), true);
  return p;
}
function putStr(s) { const b = encoder.encode(s); const p = salloc(b.length + 1, 1); const u = new Uint8Array(heap(), p, b.length + 1); u.set(b); u[b.length] = 0; return p; }
const setI64 = (d, p, x) => d.setBigInt64(p, BigInt(x), true);
const setF64 = (d, p, x) => d.setFloat64(p, Number(x), true);
const setPtr = (d, p, x) => d.setUint32(p, none(x) ? 0 : th(x, 'each element of a tensor list'), true);

const temps = []; // wrapped numbers made for one call, released when it returns
function marshal(type, v, ls) {
  switch (type) {
    case 'Tensor': case 'Tensor?':
      if (none(v)) return 0;
      if (Tensor.isTensor(v)) return v.handle;
      { const h = E.wk_wrapped_number(putScalar(v)); if (!h) throw lastError(); temps.push(h); return h; }
    case 'Tensor[]': case 'Tensor?[]': return putList(v, 4, setPtr);
    case 'Scalar': case 'Scalar?': return putScalar(v);
    case 'int': return BigInt(v);
    case 'int?': return putOpt(v, false);
    case 'int[]': case 'int[]?': return none(v) ? putNoneList() : putList(Array.isArray(v) ? v : [v], 8, setI64);
    case 'float': return Number(v);
    case 'float?': return putOpt(v, true);
    case 'float[]': case 'float[]?': return none(v) ? putNoneList() : putList(Array.isArray(v) ? v : [v], 8, setF64);
    case 'bool': return v ? 1 : 0;
    case 'bool?': return none(v) ? -1 : v ? 1 : 0;
    case 'str': case 'str?': return none(v) ? 0 : putStr(v);
    case 'ScalarType': case 'ScalarType?': return dtypeIndex(v);
    case 'Generator?': return none(v) ? 0 : Generator.handleOf(v);
  }
  throw new NotImplementedError(`wick: the JS API cannot pass an argument of type ${type}`);
}


// Binds JS arguments to one overload: returns the per-param values, or {why, ...} saying what did not fit.
function bind(op, pos, kw, self) {
  const ps = op.params, vals = new Array(ps.length);
  const used = new Set();
  let k = 0;
  let selfIdx = -1;
  if (self !== undefined) {
    selfIdx = ps.findIndex((p) => p[0] === 'self');
    if (selfIdx < 0) selfIdx = 0;
    vals[selfIdx] = self;
    used.add(selfIdx);
  }
  const positional = [];
  for (let i = 0; i < ps.length; i++) if (i !== selfIdx && !ps[i][4]) positional.push(i);
  const where = new Array(ps.length); // the 1-based position an argument came at (undefined: by keyword)
  for (let j = 0; j < pos.length; j++) {
    if (k >= positional.length) return { why: 'extra' };
    const i = positional[k++];
    const p = ps[i];
    // int[] as varargs (x.view(2, 3), zeros(2, 3)): the first list parameter takes the remaining ints
    // (torch allows it where the signature has exactly one positional parameter, an int list)
    if ((p[2] === 'int[]') && isInt(pos[j]) && j === 0 && pos.every(isInt) && positional.length === 1) {
      vals[i] = pos.slice(j);
      used.add(i);
      where[i] = k;
      break;
    }
    vals[i] = pos[j];
    used.add(i);
    where[i] = k;
  }
  for (const key of Object.keys(kw)) {
    if (key === 'out') continue;
    const i = ps.findIndex((p) => p[1] === key || p[0] === key);
    if (i < 0) return { why: 'kw', key };
    if (used.has(i)) return { why: 'multiple', key };
    vals[i] = kw[key];
    used.add(i);
  }
  for (let i = 0; i < ps.length; i++) {
    const [name, , type, dflt, , pyonly, ls] = ps[i];
    if (!used.has(i) || vals[i] === undefined) {
      if (dflt === undefined) return { why: 'missing', name };
      vals[i] = dflt && typeof dflt === 'object' && 'float' in dflt ? new FloatScalar(dflt.float) : dflt;
      continue;
    }
    if (pyonly) {
      if (none(vals[i]) || (name === 'device' && vals[i] === 'cpu')) continue;
      return { why: 'unsupported', name };
    }
    if (op.wrap && (type === 'Tensor' || type === 'Tensor?') && isScalar(vals[i])) continue; // a wrapped number
    // a one-element tensor where a Number is expected is its value, as torch's parser takes it (arange(t))
    if ((type === 'Scalar' || type === 'Scalar?') && Tensor.isTensor(vals[i]) && !vals[i].isDisposed && vals[i].numel() === 1) {
      const t = vals[i], x = t.item();
      vals[i] = E.wk_dtype_is_floating(E.wk_tensor_dtype(t.handle)) ? new FloatScalar(x) : x;
      continue;
    }
    if (!TYPE_OK[type] || !TYPE_OK[type](vals[i], ls)) return { why: 'type', i, name, type, position: where[i], value: vals[i] };
  }
  return vals;
}

// torch's names for parameter types in its argument parser's messages
const PY_TYPE = { 'Tensor': 'Tensor', 'Tensor?': 'Tensor', 'Tensor[]': 'tuple of Tensors', 'Tensor?[]': 'tuple of Tensors',
  'Scalar': 'Number', 'Scalar?': 'Number', 'int': 'int', 'int?': 'int', 'int[]': 'tuple of ints', 'int[]?': 'tuple of ints',
  'float': 'float', 'float?': 'float', 'float[]': 'tuple of floats', 'float[]?': 'tuple of floats', 'bool': 'bool',
  'bool?': 'bool', 'str': 'str', 'str?': 'str', 'ScalarType': 'torch.dtype', 'ScalarType?': 'torch.dtype',
  'Generator?': 'torch.Generator' };
function pyTypeOf(v) {
  if (Tensor.isTensor(v)) return 'Tensor';
  if (v === null || v === undefined) return 'NoneType';
  if (v instanceof FloatScalar) return 'float';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'str';
  if (Array.isArray(v)) return 'list';
  return typeof v;
}

// The message for a call that fits no overload. Where one overload is plausible by arity torch names the argument
// ("atan2(): argument 'other' (position 2) must be Tensor, not int"); otherwise it lists the overloads.
function argError(name, overloads, fails, args, kw, self) {
  const nargs = args.length + Object.keys(kw).filter((k) => k !== 'out').length;
  const plausible = overloads.map((op, j) => [op, fails[j]]).filter(([op]) => {
    const ps = op.params.filter((p) => !(self !== undefined && p[0] === 'self'));
    const nreq = ps.filter((p) => p[3] === undefined).length;
    return nargs >= nreq && nargs <= ps.length + (op.out && self === undefined ? 1 : 0);
  });
  const short = name.replace(/^.*\./, '');
  if (plausible.length === 1) {
    const f = plausible[0][1];
    const pname = f.name === 'self' && self === undefined ? 'input' : f.name;
    if (f.why === 'type') {
      return f.position !== undefined
        ? `${short}(): argument '${pname}' (position ${f.position}) must be ${PY_TYPE[f.type] || f.type}, not ${pyTypeOf(f.value)}`
        : `${short}(): argument '${pname}' must be ${PY_TYPE[f.type] || f.type}, not ${pyTypeOf(f.value)}`;
    }
    if (f.why === 'kw') return `${short}() got an unexpected keyword argument '${f.key}'`;
    if (f.why === 'multiple') return `${short}() got multiple values for argument '${f.key}'`;
    if (f.why === 'missing') return `${short}() missing 1 required positional arguments: "${f.name === 'self' ? 'input' : f.name}"`;
  }
  const got = args.map(pyTypeOf).concat(Object.keys(kw).map((k) => `${k}=${pyTypeOf(kw[k])}`));
  return `${short}() received an invalid combination of arguments - got (${got.join(', ')}), but expected one of:\n` +
    overloads.map((op, j) => ` * ${op.schema}` + (fails[j] && fails[j].why === 'unsupported' ? ` (${fails[j].name}= is not supported by the JS API)` : '')).join('\n');
}

/** Calls the first overload the arguments match (torch's order); in-place/out variants return their tensor(s). */
export function callOp(name, overloads, args, self, variant) {
  need();
  let kw = {};
  if (args.length && isPlain(args[args.length - 1])) { kw = args[args.length - 1]; args = args.slice(0, -1); }
  const wantOut = kw.out !== undefined && kw.out !== null;
  const fails = [];
  for (const op of overloads) {
    if (wantOut && !op.out) { fails.push({ why: 'kw', key: 'out' }); continue; }
    const vals = bind(op, args, kw, self);
    if (!Array.isArray(vals)) { fails.push(vals); continue; }
    return invoke(op, vals, variant, wantOut ? kw.out : null, self);
  }
  const unsupported = fails.find((f) => f.why === 'unsupported');
  if (unsupported && fails.every((f) => f.why === 'unsupported' || f.why === 'type' || f.why === 'extra')) {
    throw new NotImplementedError(`wick: ${name}(): argument '${unsupported.name}' is not supported by the JS API (only null, or 'cpu' for device)`);
  }
  throw typeError(argError(name, overloads, fails, args, kw, self));
}

function invoke(op, vals, variant, out, self) {
  const ret = op.ret;
  const cname = op.c + (out ? '_out' : variant === 'inplace' ? '_' : '');
  const fn = E[cname];
  if (!fn) throw new NotImplementedError(`wick: ${cname} is not exported by the wasm core`);
  try {
    const cargs = [];
    if (ret === 'tensorlist') cargs.push(salloc(16));
    if (out) {
      if (ret === 'tuple') {
        if (!Array.isArray(out) || out.length !== op.nret || !out.every((t) => Tensor.isTensor(t))) throw typeError(`out= must be an array of ${op.nret} tensors`);
        cargs.push(putList(out, 4, setPtr) /* the list's data pointer is what C takes */);
        cargs[cargs.length - 1] = dv().getUint32(cargs[cargs.length - 1], true);
      } else {
        cargs.push(th(out, 'out='));
      }
    }
    op.params.forEach((p, i) => { if (!p[5]) cargs.push(marshal(p[2], vals[i], p[6])); });
    let resPtr = 0;
    if (!out && ret !== 'tensor' && ret !== 'tensorlist' && ret !== 'none') {
      resPtr = salloc(ret === 'tuple' ? 4 * op.nret : 16);
      cargs.push(resPtr);
    }
    const r = fn(...cargs);
    if (ret === 'tensor') {
      if (!r) throw lastError();
      if (out) { E.wk_release(r); takeWarnings(); return out; }
      if (variant === 'inplace' && self) { E.wk_release(r); takeWarnings(); return self; }
      return wrap(r);
    }
    if (ret === 'tensorlist') {
      const d = dv(), data = d.getUint32(cargs[0], true), n = Number(d.getBigInt64(cargs[0] + 8, true));
      if (!data && E.wk_error_kind_get() !== 0) throw lastError();
      const hs = [];
      for (let i = 0; i < n; i++) hs.push(d.getUint32(data + 4 * i, true));
      if (data) E.free(data); // wk_tensorvec_free without releasing: the references move into the wrappers
      takeWarnings();
      return hs.map((h) => new Tensor(TOKEN, h));
    }
    check(r);
    if (out) return out;
    const d = dv();
    switch (ret) {
      case 'tuple': { const ts = []; for (let i = 0; i < op.nret; i++) ts.push(new Tensor(TOKEN, d.getUint32(resPtr + 4 * i, true)));
        if (op.fields) op.fields.forEach((f, i) => { if (f) ts[f] = ts[i]; });
        return ts; }
      case 'bool': return d.getUint8(resPtr) !== 0;
      case 'int': return Number(d.getBigInt64(resPtr, true));
      case 'float': return d.getFloat64(resPtr, true);
      case 'dtype': return DTYPES[d.getInt32(resPtr, true)];
      case 'scalar': return readScalar(resPtr);
      case 'none': return variant === 'inplace' && self ? self : undefined;
    }
    throw new NotImplementedError(`wick: return kind ${ret}`);
  } finally {
    sreset();
    while (temps.length) E.wk_release(temps.pop());
  }
}
