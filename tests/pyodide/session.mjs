// One Pyodide session, the same in node and in a page: loads Pyodide, installs wick (js/pyodide.mjs), makes
// `import torch` resolve to wick, then runs each program in a fresh namespace with stdout captured in Python (a
// traceback is printed into it on failure). Returns {pyodide, python, engine, simd, tPyodide, tWick, outputs:
// [[name, stdout, ms], ...]}.
export async function runSession({ loadPyodide, installWick, indexURL, files, programs }) {
  const t0 = performance.now();
  const py = await loadPyodide({ indexURL });
  const tPy = performance.now();
  const info = await installWick(py, { files });
  py.runPython('import wick; wick.install_as_torch()');
  const tWick = performance.now();
  py.runPython(`
import contextlib, io, traceback
def _wick_run_program(src, name):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        try:
            exec(compile(src, name, 'exec'), {'__name__': '__main__'})
        except BaseException:
            traceback.print_exc(file=buf)
    return buf.getvalue()
`);
  const run = py.globals.get('_wick_run_program');
  const outputs = [];
  for (const [name, src] of programs) {
    const t = performance.now();
    const out = run(src, name);
    outputs.push([name, out, performance.now() - t]);
  }
  run.destroy();
  // C tensors still referenced once the programs' namespaces are gone (each Python tensor releases its reference
  // when it is collected), and those JS's FinalizationRegistry had to free (a dropped wrapper: a leak)
  const live = py.runPython('import gc, _wickjs; gc.collect(); _wickjs.wick.liveTensors()');
  const leaks = py.runPython('_wickjs.wick.leakCount()');
  return { pyodide: py.version, python: py.runPython('import sys; sys.version.split()[0]'), engine: info.engine,
    simd: info.simd, tPyodide: tPy - t0, tWick: tWick - tPy, outputs, live, leaks,
    isolated: typeof crossOriginIsolated !== 'undefined' ? crossOriginIsolated : null };
}
