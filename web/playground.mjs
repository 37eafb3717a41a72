// The playground page: loads Pyodide and wick (js/pyodide.mjs, the package from /bundle/wick-py.json), then runs
// the textarea's program on Run with stdout captured in Python (a traceback is printed into it on failure), so the
// output pane shows exactly what the program printed. The status line says loading / ready (SIMD, load time) /
// running / done.
import { loadPyodide } from '/pyodide/pyodide.mjs';
import { installWick } from '/js/pyodide.mjs';

const $ = (id) => document.getElementById(id);
const status = (s) => { $('status').textContent = s; document.body.dataset.state = s.split(' ')[0]; };

async function start() {
  const t0 = performance.now();
  const py = await loadPyodide({ indexURL: '/pyodide/' });
  const files = await (await fetch('/bundle/wick-py.json')).json();
  const info = await installWick(py, { files });
  py.runPython(`
import wick, contextlib, io, traceback
wick.install_as_torch()
def _wick_run(src):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        try:
            exec(compile(src, '<playground>', 'exec'), {'__name__': '__main__'})
        except BaseException:
            traceback.print_exc(file=buf)
    return buf.getvalue()
`);
  const run = py.globals.get('_wick_run');
  const loaded = ((performance.now() - t0) / 1000).toFixed(2);
  status(`ready (SIMD ${info.simd ? 'on' : 'off'}, loaded in ${loaded} s)`);
  $('run').disabled = false;
  $('run').onclick = () => {
    $('run').disabled = true;
    status('running');
    // let the status paint before the (synchronous) run
    setTimeout(() => {
      const t = performance.now();
      $('output').textContent = run($('code').value);
      status(`done in ${((performance.now() - t) / 1000).toFixed(2)} s`);
      $('run').disabled = false;
    }, 0);
  };
}
start().catch((e) => { status('failed'); $('output').textContent = String(e && e.stack || e); });
