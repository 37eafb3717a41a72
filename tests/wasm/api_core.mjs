// The JS API's own tests, shared by node (tests/wasm/test_js.mjs) and the browser page (tests/browser/page.mjs):
// the cases pinned under torch (api_cases.json, from tests/wasm/api_cases.py), torch's repr text, lifetimes
// (scope/keep/dispose, a freed tensor raises, the FinalizationRegistry counts leaks where globalThis.gc exists),
// errors and out-of-memory. No node or browser API here: the caller passes the module, the fixture and a log.
import { makeCapture, captureError, compare } from './capture.mjs';

/** Runs the tests on `w` (an initialised build/js/wick.mjs); fixture: the parsed api_cases.json; log(line) gets
 *  each failure and note. Returns {passed, failed}. */
export async function runApiTests(w, { fixture, log = () => {} }) {
  const { capture } = makeCapture(w);
  const KIND_ONLY = new Set(['bad_kwarg_type']); // the arg parser's text names Python types (see js/README.md)

  let passed = 0, failed = 0;
  function report(name, ok, why) {
    if (ok) passed++;
    else { failed++; log(`FAIL ${name}: ${why}`); }
  }

  for (const c of fixture.cases) {
    w.manualSeed(12345);
    let lib;
    const live = w.liveTensors();
    try {
      lib = w.scope(() => {
        const v = new Function('w', `return (${c.js});`)(w);
        return { ok: capture(v) };
      });
    } catch (e) { lib = { raised: captureError(e) }; }
    const { n, diffs } = compare(c.outcome, lib, { kindOnly: KIND_ONLY.has(c.name) });
    report(c.name, diffs.length === 0 && n > 0, diffs.join('; ') || 'compared nothing');
    report(c.name + ' (no tensor outlives its scope)', w.liveTensors() === live, `${w.liveTensors() - live} tensors left`);
  }
  for (const c of fixture.reprs) {
    const got = w.scope(() => String(new Function('w', `return (${c.js});`)(w)));
    report(c.name, got === c.repr, `want ${JSON.stringify(c.repr)} got ${JSON.stringify(got)}`);
  }

  // ---- typed arrays in and out
  w.scope(() => {
    const t = w.Tensor.from(new Float64Array([1.5, -2, 3]), [3]);
    const a = t.toTypedArray();
    report('typed out float64', a instanceof Float64Array && a[0] === 1.5 && a[2] === 3, String(a));
    const i = w.Tensor.from(new BigInt64Array([1n, -(2n ** 60n)])).toTypedArray();
    report('typed out int64', i instanceof BigInt64Array && i[1] === -(2n ** 60n), String(i));
    report('toArray int64 beyond 2^53 is a BigInt', w.Tensor.from(new BigInt64Array([2n ** 60n])).toArray()[0] === 2n ** 60n, '');
    const h = w.tensor([1.1, 2.2], { dtype: 'float16' }).toTypedArray();
    report('typed out float16 widens to Float32Array', h instanceof Float32Array && Math.abs(h[0] - 1.099609375) < 1e-9, String(h));
    const nc = w.arange(6).view(2, 3).t();
    report('non-contiguous out', nc.isContiguous() === false && JSON.stringify(nc.toArray()) === '[[0,3],[1,4],[2,5]]', JSON.stringify(nc.toArray()));
  });

  // ---- lifetimes
  {
    const a = w.tensor([1, 2, 3]);
    a.dispose();
    let err = null;
    try { a.add(1); } catch (e) { err = e; }
    report('a disposed tensor raises on use', err instanceof w.RuntimeError && /disposed/.test(err.message), String(err));
    err = null;
    try { a.toString(); } catch (e) { err = e; }
    report('a disposed tensor raises on print', err instanceof w.RuntimeError, String(err));
    a.dispose(); // twice is a no-op

    const before = w.liveTensors();
    let kept;
    const out = w.scope(() => {
      const x = w.ones(3), y = x.mul(2);
      kept = w.keep(x.add(1));
      return y.sum();
    });
    const liveAfter = w.liveTensors();
    report('scope frees all but its result and kept tensors', liveAfter === before + 2 && out.item() === 6 &&
      w.scope(() => kept.sum().item()) === 6, `live ${liveAfter - before}`);
    w.dispose([out, kept]);
    const nested = w.scope(() => { const inner = w.scope(() => w.ones(2)); return inner.add(1); });
    report('nested scopes', w.liveTensors() === before + 1 && w.scope(() => nested.sum().item()) === 4, `live ${w.liveTensors() - before}`);
    nested.dispose();
    // a forgotten tensor is freed by the FinalizationRegistry, and counted as a leak
    if (globalThis.gc) {
      const leaks0 = w.leakCount();
      (() => { w.ones(1000); })();
      for (let i = 0; i < 10 && w.leakCount() === leaks0; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 10)); }
      report('the FinalizationRegistry reports a leaked tensor', w.leakCount() === leaks0 + 1, `leaks ${w.leakCount() - leaks0}`);
    } else log('note: run with --expose-gc to test the leak report');
  }

  // ---- bad handles (issue 16; js/core.mjs Note [Handles]): nothing but a live wick Tensor reaches C as a tensor
  {
    const raises = (name, fn, Kind, re) => {
      let err = null;
      try { fn(); } catch (e) { err = e; }
      report(name, err instanceof Kind && (!re || re.test(err.message)), String(err));
    };
    const a = w.ones(2), dead = w.ones(2);
    const real = a.handle; // a C pointer: a number that must never be taken back as a tensor
    dead.dispose();
    const forged = { handle: real }, proto = Object.create(w.Tensor.prototype), live0 = w.liveTensors();
    raises('a disposed tensor as an argument raises', () => a.add(dead), w.RuntimeError, /disposed/);
    raises('a disposed tensor in a list raises', () => w.cat([a, dead]), w.RuntimeError, /disposed/);
    raises('a disposed tensor as out= raises', () => w.add(a, a, { out: dead }), w.RuntimeError, /disposed/);
    raises('a disposed tensor as an index raises', () => a.get(dead), w.RuntimeError, /disposed/);
    raises('an object with a handle is not a tensor', () => a.add(forged), TypeError);
    raises('a prototype-made object is not a tensor', () => a.add(proto), TypeError);
    raises('its handle getter raises', () => proto.handle, TypeError, /not a Tensor/);
    raises('a forged tensor in a list raises', () => w.cat([a, forged]), TypeError);
    raises('a forged tensor as out= raises', () => w.add(a, a, { out: forged }), TypeError);
    raises('a forged tensor as .grad raises', () => { a.grad = forged; }, TypeError, /grad must be a Tensor/);
    raises('a forged gradient in backward raises', () => a.backward(forged), TypeError, /gradient must be a Tensor/);
    raises('a forged setitem value raises', () => a.set([0], proto), TypeError);
    raises('a raw number is not a generator', () => w.rand([2], { generator: real }), TypeError);
    raises('a tensor is not a generator', () => w.rand([2], { generator: a }), TypeError);
    raises('new Generator(pointer) makes a fresh one, never wraps it', () => {
      const g = new w.Generator(real);
      const ok = g.handle !== real;
      g.dispose();
      if (!ok) throw new Error('wrapped the pointer');
      throw new TypeError('fresh');
    }, TypeError, /fresh/);
    report('wrap(pointer) is not exported', w.wrap === undefined, typeof w.wrap);
    report('no tensor made by the refused calls', w.liveTensors() === live0, `${w.liveTensors() - live0}`);
    report('the tensor is intact after them', w.scope(() => a.sum().item()) === 2, '');
    a.dispose();
  }

  // ---- errors keep torch's kind; out-of-memory raises and the module stays usable
  {
    let err = null;
    try { w.mm(w.ones(2, 3), w.ones(2, 3)); } catch (e) { err = e; }
    report('C errors become JS exceptions with kind', err instanceof w.RuntimeError && err.kind === 'RuntimeError', String(err));
    err = null;
    try { w.zeros(1 << 20, 1 << 20); } catch (e) { err = e; }
    report('out of memory raises (4 TiB on wasm32: no size_t wrap)', err instanceof w.RuntimeError && /can't allocate memory/.test(err.message), String(err));
    err = null;
    try { w.zeros(1 << 28, 4); } catch (e) { err = e; } // 4 GiB: past wasm32's whole address space
    report('out of memory raises (4 GiB)', err instanceof w.RuntimeError && /can't allocate memory/.test(err.message), String(err));
    const after = w.scope(() => w.ones(4).sum().item());
    report('the module stays usable after out-of-memory', after === 4, String(after));
    err = null;
    try { w.Tensor.from(new Float32Array(4), [2, 3]); } catch (e) { err = e; }
    report('shape mismatch in Tensor.from', err instanceof w.RuntimeError, String(err));
  }

  // ---- autograd across the API
  w.scope(() => {
    const x = w.tensor([1, 2, 3], { dtype: 'float32', requiresGrad: true });
    const y = w.noGrad(() => x.mul(2));
    report('noGrad', y.requiresGrad === false && w.isGradEnabled() === true, '');
    const z = x.mul(x).sum();
    z.backward();
    report('backward fills .grad', JSON.stringify(x.grad.toArray()) === '[2,4,6]' && x.gradFn === null && z.gradFn === 'SumBackward0', z.gradFn);
  });

  // ---- the engine's hooks: a JS function in the wasm function table (values are checked by the pinned cases)
  {
    const hooks0 = w.liveHooks(), live0 = w.liveTensors();
    w.scope(() => {
      const x = w.tensor([1, 2], { dtype: 'float32', requiresGrad: true });
      const boom = new Error('boom');
      x.registerHook(() => { throw boom; });
      let err = null;
      try { x.mul(x).sum().backward(); } catch (e) { err = e; }
      report('a hook that throws: backward throws that very error', err === boom, String(err));
      let seen = 0;
      const y = w.tensor([3], { dtype: 'float32', requiresGrad: true });
      y.registerHook((g) => { seen += g.item(); });
      y.mul(2).sum().backward();
      y.mul(2).sum().backward();
      report('a hook runs once per backward and may return nothing', seen === 4 && y.grad.item() === 4, `${seen} ${y.grad.item()}`);
      let leaf = null;
      w.setPostAccumulateGradCallback((t) => { leaf = t.grad.item(); });
      w.setPostAccumulateGradFlag(y, true);
      y.mul(5).sum().backward();
      report('post-accumulate-grad callback sees the accumulated .grad', leaf === 9, String(leaf));
      w.setPostAccumulateGradFlag(y, false);
    });
    report('hooks are dropped with their tensor', w.liveHooks() === hooks0, `${w.liveHooks() - hooks0} hooks left`);
    report('no tensor outlives the hooks scope', w.liveTensors() === live0, `${w.liveTensors() - live0} tensors left`);
  }

  return { passed, failed };
}

/** The closing line, the same in node and the browser. */
export function apiSummary(info, fixture, r) {
  return `${r.passed} passed, ${r.failed} failed (JS API, ${fixture.cases.length} pinned cases, ${fixture.reprs.length} reprs, SIMD ${info.simd ? 'on' : 'off'})`;
}
