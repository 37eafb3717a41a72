// The parity suite's capture (tests/parity/capture.py) and comparison (tests/parity/compare.py) for values made
// through the JS API: the same JSON tree, the same tolerances, so a golden pinned under torch checks the wasm core.
export function makeCapture(w) {
  const encNum = (x) => (typeof x === 'bigint' ? (x >= -(2n ** 53n) && x <= 2n ** 53n ? Number(x) : String(x))
    : typeof x === 'number' ? (Number.isNaN(x) ? 'NaN' : x === Infinity ? 'Infinity' : x === -Infinity ? '-Infinity' : x) : x);
  const enc = (v) => (Array.isArray(v) ? v.map(enc) : encNum(v));
  function tensor(t) {
    const node = { k: 'tensor', cls: 'Tensor', shape: t.shape, dtype: 'torch.' + t.dtype, device: 'cpu',
      requires_grad: t.requiresGrad, is_leaf: t.isLeaf, grad_fn: t.gradFn, v: enc(t.toArray()) };
    if (node.is_leaf) { const g = t.grad; node.grad = g ? tensor(g) : { k: 'none' }; }
    return node;
  }
  function capture(v, hint) {
    if (v === null || v === undefined) return { k: 'none' };
    if (v instanceof w.Tensor) return tensor(v);
    if (typeof v === 'boolean') return { k: 'bool', v };
    if (v instanceof w.FloatScalar) return { k: 'float', v: encNum(v.value) };
    if (typeof v === 'bigint') return { k: 'int', v: encNum(v) };
    if (typeof v === 'number') return hint === 'float' || !Number.isInteger(v) ? { k: 'float', v: encNum(v) } : { k: 'int', v };
    if (typeof v === 'string') return { k: 'str', v };
    if (Array.isArray(v)) return { k: 'list', items: v.map((x) => capture(x)) };
    throw new Error('cannot capture ' + typeof v);
  }
  return { capture, tensor };
}

export function captureError(e) {
  const kind = e && e.kind ? e.kind : e instanceof TypeError ? 'TypeError' : 'JSError';
  const type = kind === 'LinAlgError' ? 'torch._C._LinAlgError' : kind;
  const builtin = kind === 'LinAlgError' ? 'RuntimeError' : kind;
  return { type, builtin, msg: String(e && e.message) };
}

const TOL = { 'torch.float64': [1e-10, 1e-12], 'torch.float32': [1e-5, 1e-6], 'torch.float16': [1e-3, 1e-5],
  'torch.bfloat16': [1.6e-2, 1e-5] };
const dec = (x) => (x === 'NaN' ? NaN : x === 'Infinity' ? Infinity : x === '-Infinity' ? -Infinity : x);

// Returns {n, diffs}: n leaf comparisons, diffs = ["path: want X got Y"].
export function compare(ref, lib, opts = {}) {
  const diffs = [];
  let n = 0;
  const diff = (path, a, b, why = '') => { if (diffs.length < 20) diffs.push(`${path}: want ${JSON.stringify(a)?.slice(0, 160)} got ${JSON.stringify(b)?.slice(0, 160)}${why ? ' (' + why + ')' : ''}`); };
  const tol = (dt) => [opts.rtol ?? (TOL[dt] || TOL['torch.float32'])[0], opts.atol ?? (TOL[dt] || TOL['torch.float32'])[1]];
  const eq = (path, a, b) => { n++; if (JSON.stringify(a) !== JSON.stringify(b)) { diff(path, a, b); return false; } return true; };
  function num(path, r, l, t) {
    n++;
    if (typeof r === 'boolean' || typeof l === 'boolean') { if (r !== l) diff(path, r, l); return; }
    if (typeof r === 'string' && !['NaN', 'Infinity', '-Infinity'].includes(r)) { if (String(l) !== r) diff(path, r, l); return; }
    const a = dec(r), b = dec(l);
    if (typeof a !== 'number' || typeof b !== 'number') { if (a !== b) diff(path, r, l); return; }
    if (Number.isNaN(a) || Number.isNaN(b)) { if (!(Number.isNaN(a) && Number.isNaN(b))) diff(path, r, l); return; }
    if (!Number.isFinite(a) || !Number.isFinite(b)) { if (a !== b) diff(path, r, l); return; }
    if (!(Math.abs(b - a) <= t[1] + t[0] * Math.abs(a))) diff(path, r, l, `|diff| ${Math.abs(b - a)}`);
  }
  function elems(path, r, l, t) {
    if (Array.isArray(r) && Array.isArray(l)) {
      if (r.length !== l.length) { n++; diff(path, `${r.length} elements`, `${l.length} elements`); return; }
      r.forEach((x, i) => elems(`${path}[${i}]`, x, l[i], t));
    } else if (Array.isArray(r) || Array.isArray(l)) { n++; diff(path, r, l, 'nesting'); }
    else num(path, r, l, t);
  }
  function node(r, l, path) {
    const seq = (k) => k === 'tuple' || k === 'list';
    if (r.k !== l.k && !(seq(r.k) && seq(l.k))) { // JS has arrays only: a tuple and a list compare alike
      // JS has one number type: a whole float the case returned may arrive as an int
      if (r.k === 'float' && l.k === 'int') { num(path, r.v, l.v, tol(null)); return; }
      n++; diff(path, r.k, l.k, 'kind'); return;
    }
    switch (r.k) {
      case 'none': n++; return;
      case 'bool': case 'int': case 'size': case 'dtype': case 'device': case 'str': eq(path, r.v, l.v); return;
      case 'float': num(path, r.v, l.v, tol(null)); return;
      case 'tensor': {
        let ok = eq(path + '.shape', r.shape, l.shape);
        ok = eq(path + '.dtype', r.dtype, l.dtype) && ok;
        if (ok) elems(path, r.v, l.v, tol(r.dtype));
        eq(path + '.requires_grad', r.requires_grad, l.requires_grad);
        eq(path + '.grad_fn', r.grad_fn, l.grad_fn);
        eq(path + '.is_leaf', r.is_leaf, l.is_leaf);
        if ('grad' in r && 'grad' in l) node(r.grad, l.grad, path + '.grad');
        else if ('grad' in r || 'grad' in l) { n++; diff(path + '.grad', 'grad' in r, 'grad' in l, 'presence'); }
        return;
      }
      case 'tuple': case 'list': {
        if (r.items.length !== l.items.length) { n++; diff(path + ' length', r.items.length, l.items.length); return; }
        r.items.forEach((x, i) => node(x, l.items[i], `${path}[${i}]`));
        return;
      }
      case 'dict': {
        if (r.items.length !== l.items.length) { n++; diff(path + ' keys', r.items.length, l.items.length); return; }
        r.items.forEach(([k, x], i) => { eq(path + ' key', k, l.items[i][0]); node(x, l.items[i][1], `${path}.${k.v}`); });
        return;
      }
    }
    n++; diff(path, r, l, 'unknown kind ' + r.k);
  }
  if (ref.raised || lib.raised) {
    if (!ref.raised || !lib.raised) { n++; diff('outcome', ref.raised ? 'raised ' + JSON.stringify(ref.raised) : 'a value', lib.raised ? 'raised ' + JSON.stringify(lib.raised) : 'a value'); }
    else {
      eq('raised builtin type', ref.raised.builtin, lib.raised.builtin);
      if (ref.raised.type === ref.raised.builtin) eq('raised type', ref.raised.type, lib.raised.type);
      if (opts.match) { n++; if (!new RegExp(opts.match).test(lib.raised.msg)) diff('raised message', '/' + opts.match + '/', lib.raised.msg); }
      else if (!opts.kindOnly) eq('raised message', ref.raised.msg, lib.raised.msg);
    }
  } else node(ref.ok, lib.ok, 'result');
  return { n, diffs };
}
