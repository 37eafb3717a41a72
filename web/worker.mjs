// The playground's Python: Pyodide + wick run in this module worker, so a long program never freezes the page.
// Messages from the page: {type: 'init', interrupt?: SharedArrayBuffer}, {type: 'run', code, ns?, fresh?} (ns: a
// lesson's namespace, kept between runs). To the page:
// {type: 'ready', info}, {type: 'out', text} (stdout, as the program writes it), {type: 'plot', items} (web/plot.py), {type: 'done', ms}, {type: 'error',
// text}. Stop: where the page is cross-origin isolated it writes 2 (SIGINT) into the interrupt buffer and Python
// raises KeyboardInterrupt at its next check; otherwise (or when a C call does not return) the page terminates this
// worker and starts a new one.
import { loadPyodide } from '/pyodide/pyodide.mjs';
import { installWick } from '/js/pyodide.mjs';

const post = (m) => self.postMessage(m);
let run = null;

// stdout reaches the page as Python writes it (line-buffered), so a training loop shows its lines as they come
const decoder = new TextDecoder();
let pending = '';
let lastPost = 0;
let plots = []; // plot.py's calls since the last flush
function flush() {
  if (pending) post({ type: 'out', text: pending });
  if (plots.length) post({ type: 'plot', items: plots });
  pending = '';
  plots = [];
  lastPost = performance.now();
}
function write(bytes) {
  // posted at once: the worker's thread is busy until the program ends, so no timer could send it later
  pending += decoder.decode(bytes, { stream: true });
  flush();
  return bytes.length;
}

async function init(msg) {
  const t0 = performance.now();
  const py = await loadPyodide({ indexURL: '/pyodide/' });
  const tPyodide = performance.now() - t0;
  const files = await (await fetch('/bundle/wick-py.json')).json();
  const info = await installWick(py, { files });
  // the shipped data (examples/data, served at /data/), where programs open it: data/digits.csv
  py.FS.mkdirTree('/home/pyodide/data');
  py.FS.writeFile('/home/pyodide/data/digits.csv', new Uint8Array(await (await fetch('/data/digits.csv')).arrayBuffer()));
  py.setStdout({ write });
  py.setStderr({ write });
  // web/plot.py's channel: send(kind, series, xs, ys), sent to the page with the next stdout piece
  py.registerJsModule('_playground', {
    send(kind, series, xs, ys) {
      const x = xs.toJs(), y = ys.toJs();
      xs.destroy(); ys.destroy();
      plots.push({ kind, series, x, y });
      if (performance.now() - lastPost > 50) flush();
    },
  });
  if (msg.interrupt) py.setInterruptBuffer(new Int32Array(msg.interrupt));
  py.runPython(`
import sys, traceback
import wick
wick.install_as_torch()
sys.stdout.reconfigure(line_buffering=True)
sys.stderr.reconfigure(line_buffering=True)
_NAMESPACES = {}
def _wick_run(src, ns='', fresh=False):
    # ns: a lesson's blocks share one namespace (fresh: start it again); '' runs in a new one
    if ns and (fresh or ns not in _NAMESPACES):
        _NAMESPACES[ns] = {'__name__': '__main__'}
    g = _NAMESPACES[ns] if ns else {'__name__': '__main__'}
    try:
        exec(compile(src, '<lesson>' if ns else '<playground>', 'exec'), g)
    except BaseException as e:
        # the program's frames only (not this runner's), as \`python3 program.py\` prints them
        traceback.print_exception(type(e), e, e.__traceback__.tb_next, file=sys.stdout)
    finally:
        sys.stdout.flush()
`);
  run = py.globals.get('_wick_run');
  const threads = py.runPython('import torch; torch.get_num_threads()');
  post({ type: 'ready', info: { simd: info.simd, threads, python: py.runPython('sys.version.split()[0]'),
    pyodide: py.version, tPyodide, tTotal: performance.now() - t0, interrupt: !!msg.interrupt } });
}

self.onmessage = async ({ data: msg }) => {
  try {
    if (msg.type === 'init') await init(msg);
    else if (msg.type === 'run') {
      const t = performance.now();
      lastPost = t;
      run(msg.code, msg.ns || '', !!msg.fresh);
      flush();
      post({ type: 'done', ms: performance.now() - t });
    }
  } catch (e) {
    flush();
    post({ type: 'error', text: String((e && e.stack) || e) });
  }
};
