// Smoke test of the WebAssembly build (wasm32-wasi reactor): the same C core answers the same text as torch.
// Run: node tests/wasm/smoke.mjs build/wick.wasm
import { readFile } from 'node:fs/promises';
import { WASI } from 'node:wasi';

const path = process.argv[2] || 'build/wick.wasm';
const wasi = new WASI({ version: 'preview1', args: [], env: {} });
const { instance } = await WebAssembly.instantiate(await readFile(path), { wasi_snapshot_preview1: wasi.wasiImport });
wasi.initialize(instance);
const e = instance.exports;
const mem = () => new DataView(e.memory.buffer);
const cstr = (p) => { const b = new Uint8Array(e.memory.buffer, p); let n = 0; while (b[n]) n++; return new TextDecoder().decode(b.subarray(0, n)); };
const WK_FLOAT32 = 8, WK_DTYPE_NONE = -1;

function fromFloats(xs, shape) {
  const data = e.malloc(4 * xs.length), sizes = e.malloc(8 * shape.length);
  xs.forEach((x, i) => mem().setFloat32(data + 4 * i, x, true));
  shape.forEach((s, i) => mem().setBigInt64(sizes + 8 * i, BigInt(s), true));
  const t = e.wk_from_data(data, WK_FLOAT32, shape.length, sizes);
  e.free(data); e.free(sizes);
  return t;
}
const repr = (t) => { const p = e.wk_repr(t); const s = cstr(p); e.wk_free_string(p); return s; };

let failures = 0;
function expect(got, want) {
  if (got !== want) { failures++; console.log(`FAIL: got ${JSON.stringify(got)} want ${JSON.stringify(want)}`); }
  else console.log('ok: ' + JSON.stringify(got));
}
const x = fromFloats([1, 2, 3, 4, 5, 6], [2, 3]);
expect(repr(x), 'tensor([[1., 2., 3.],\n        [4., 5., 6.]])');
const y = e.wk_mul(x, x);
const s = e.wk_sum(y, WK_DTYPE_NONE);
expect(repr(s), 'tensor(91.)');
const bad = e.wk_mm(x, x);  // 2x3 @ 2x3
expect(bad, 0);
expect(cstr(e.wk_error_message()), 'mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)');
e.wk_error_clear();
[x, y, s].forEach((t) => e.wk_release(t));
if (failures) { console.log(`${failures} failure(s)`); process.exit(1); }
console.log('wasm smoke test passed');
