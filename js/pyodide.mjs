// wick's Python door in Pyodide: `import wick as torch` runs the pure-Python package wick/ over a `_C` written in
// Python (wick/_pyodide/_C.py) that reaches the wasm core through this module. Tensors stay JS Tensors (core.mjs)
// wrapped in Python objects; every op goes through core.mjs's callOp with the op table's overloads (ops.mjs's OPS
// and BINDINGS), so overload resolution and torch's argument errors are the JS door's, not re-implemented.
//
//   import { loadPyodide } from 'pyodide';
//   import { installWick } from './pyodide.mjs';
//   const py = await loadPyodide({ indexURL });
//   await installWick(py, { files });   // files: [[path under wick/, text], ...] (the package's .py files)
//   py.runPython('import wick as torch; print(torch.ones(2))');
import * as wick from './wick.mjs';
import { OPS, BINDINGS } from './ops.mjs';

// [overloads, variant] for a binding (group: 'function' | 'method' | 'linalgfunction' | 'nnfunction')
function overloads(group, name) {
  const lst = BINDINGS[group] && BINDINGS[group][name];
  if (!lst) return null;
  return [lst.map(([i]) => OPS[i]), lst[0][1]];
}

// Python's float: a JS number loses the int/float distinction, so the Python side wraps floats.
const f = wick.f;

// The bridge module Python imports as `_wickjs`.
function bridge() {
  const E = wick.exports_();
  return {
    wick, Tensor: wick.Tensor, callOp: wick.callOp, f, overloads,
    // callOp with the arguments as JS varargs (no per-call array conversion on the Python side)
    pycall: (name, ovl, self, variant, ...args) => wick.callOp(name, ovl, args, self === null ? undefined : self, variant),
    names: (group) => Object.keys(BINDINGS[group] || {}),
    isTensor: (v) => v instanceof wick.Tensor,
    // a Python hook (a PyProxy): the proxy is destroyed when the core drops the hook
    registerHook: (t, fn, name) => wick.registerHook(t, fn, name, () => fn.destroy()),
    setPostAccumulateGrad: (t, fn) => { wick.setPostAccumulateGradCallback(fn); wick.setPostAccumulateGradFlag(t, true); },
    slice: (a, b, c) => new wick.Slice(a, b, c),
    tuple: (items) => wick.tuple(...items),
    // the elements as a typed array (a copy in JS; Python takes one more copy with to_py / to_memoryview)
    typed: (t) => t.toTypedArray(),
    fromTyped: (a, shape, dtype) => wick.Tensor.from(a, shape, { dtype }),
    // print options: wk_set_printoptions(precision, threshold, edgeitems, linewidth, sci_mode)
    setPrintoptions: (p, th, e, l, s) => E.wk_set_printoptions(p, th, e, l, s),
    getPrintoptions: () => {
      const p = E.malloc(32);
      try {
        E.wk_get_printoptions(p, p + 8, p + 16, p + 20, p + 24);
        const d = new DataView(E.memory.buffer);
        return [d.getInt32(p, true), d.getFloat64(p + 8, true), d.getInt32(p + 16, true), d.getInt32(p + 20, true),
          d.getInt32(p + 24, true)];
      } finally { E.free(p); }
    },
    info: wick.info,
  };
}

/** Loads the wasm core (opts.wasm as for wick.init), registers `_wickjs` and writes the package's files under
 *  opts.root (default /lib/wick-py) so that `import wick` finds them; returns wick.info. */
export async function installWick(py, opts = {}) {
  const info = await wick.init(opts.wasm ? { wasm: opts.wasm, simd: opts.simd } : (opts.simd !== undefined ? { simd: opts.simd } : {}));
  py.registerJsModule('_wickjs', bridge());
  const root = opts.root || '/lib/wick-py';
  for (const [path, text] of opts.files || []) {
    const full = `${root}/${path}`;
    py.FS.mkdirTree(full.slice(0, full.lastIndexOf('/')));
    py.FS.writeFile(full, text);
  }
  py.runPython(`import sys\nif ${JSON.stringify(root)} not in sys.path: sys.path.insert(0, ${JSON.stringify(root)})`);
  return info;
}
