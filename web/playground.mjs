// The playground page: a CodeMirror 6 editor (build/web/editor.js, bundled from npm by web/build.mjs), Run / Stop,
// examples (web/examples/), code shared by URL (#code=base64), output as the program prints it, a plot area (what
// web/plot.py sends: web/plot.mjs), and a status line
// (loading / ready / running / done / stopped / failed: also body[data-state] for tests) with the load time, SIMD,
// threads and the device. Python runs in a module worker (web/worker.mjs): the page never freezes. Stop writes
// SIGINT into the worker's interrupt buffer where the page is cross-origin isolated (SharedArrayBuffer), and
// terminates and restarts the worker when there is none or the program does not stop within STOP_GRACE_MS.
import { createEditor } from '/bundle/editor.js';
import { Plot } from './plot.mjs';

export const EXAMPLES = [
  ['tensors', 'Tensors'],
  ['autograd', 'Autograd'],
  ['mlp', 'An MLP'],
  ['digits', 'A CNN on digits'],
];
const STOP_GRACE_MS = 1500;
const $ = (id) => document.getElementById(id);
const state = (s, text) => { $('status').textContent = text || s; document.body.dataset.state = s; };

let worker = null, interrupt = null, running = false, stopTimer = null, loadStart = 0;
// the output pane: text is appended once per frame (a program may print thousands of lines)
const out = {
  pending: '',
  append(s) {
    if (!this.pending) requestAnimationFrame(() => this.paint());
    this.pending += s;
  },
  paint() { if (this.pending) { $('output').textContent += this.pending; this.pending = ''; $('output').scrollTop = 1e9; } },
  clear() { this.pending = ''; $('output').textContent = ''; },
};

function startWorker() {
  loadStart = performance.now();
  state('loading', 'loading Python and wick…');
  $('run').disabled = true;
  worker = new Worker(new URL('./worker.mjs', import.meta.url), { type: 'module' });
  // ?stop=restart: Stop always restarts the worker (what a page without cross-origin isolation does)
  const restartOnly = new URLSearchParams(location.search).get('stop') === 'restart';
  interrupt = globalThis.crossOriginIsolated && !restartOnly ? new SharedArrayBuffer(4) : null;
  worker.onmessage = ({ data: m }) => {
    if (m.type === 'ready') {
      const s = ((performance.now() - loadStart) / 1000).toFixed(2);
      state('ready', `ready: loaded in ${s} s`);
      $('info').textContent = `Python ${m.info.python} (Pyodide ${m.info.pyodide}) · device cpu (wasm) · SIMD ` +
        `${m.info.simd ? 'on' : 'off'} · threads ${m.info.threads} · Stop by ${m.info.interrupt ? 'interrupt' : 'restart'}`;
      document.body.dataset.loadSeconds = s;
      $('run').disabled = false;
    } else if (m.type === 'out') out.append(m.text);
    else if (m.type === 'plot') plot.apply(m.items);
    else if (m.type === 'done' || m.type === 'error') {
      if (m.type === 'error') out.append(m.text);
      finish(m.type === 'error' ? 'failed' : (stopTimer ? 'stopped' : 'done'), m.ms);
    }
  };
  worker.onerror = (e) => { state('failed', `failed: ${e.message || e}`); };
  worker.postMessage({ type: 'init', interrupt });
}

function finish(s, ms) {
  out.paint();
  running = false;
  if (stopTimer) { clearTimeout(stopTimer); stopTimer = null; }
  state(s, ms !== undefined ? `${s} in ${(ms / 1000).toFixed(2)} s` : s);
  $('run').disabled = false;
  $('stop').disabled = true;
}

function runCode() {
  if (running || $('run').disabled) return;
  running = true;
  out.clear();
  plot.clear();
  if (interrupt) new Int32Array(interrupt)[0] = 0;
  state('running', 'running…');
  $('run').disabled = true;
  $('stop').disabled = false;
  worker.postMessage({ type: 'run', code: editor.value });
}

function stop() {
  if (!running || stopTimer) return;
  state('stopping', 'stopping…');
  if (interrupt) new Int32Array(interrupt)[0] = 2; // SIGINT: KeyboardInterrupt at Python's next check
  // no interrupt buffer, or stuck in a C call: a new worker (Python and wick load again)
  stopTimer = setTimeout(() => {
    worker.terminate();
    running = false;
    stopTimer = null;
    out.append('\n[stopped: the worker was restarted]\n');
    $('stop').disabled = true;
    startWorker();
  }, interrupt ? STOP_GRACE_MS : 0);
}

// code shared by URL: #code=<base64 of UTF-8>
const encode = (s) => btoa(String.fromCharCode(...new TextEncoder().encode(s)));
const decode = (b) => new TextDecoder().decode(Uint8Array.from(atob(b), (c) => c.charCodeAt(0)));
function sharedCode() {
  const m = /^#code=(.*)$/.exec(location.hash);
  try { return m ? decode(decodeURIComponent(m[1])) : null; } catch { return null; }
}

async function loadExample(name) {
  const r = await fetch(`./examples/${name}.py`);
  editor.value = await r.text();
}

const plot = new Plot($('plot'));
const editor = createEditor($('editor'), sharedCode() || '', { onRun: runCode });
for (const [name, title] of EXAMPLES) $('examples').add(new Option(title, name));
$('examples').onchange = () => loadExample($('examples').value);
$('run').onclick = runCode;
$('stop').onclick = stop;
$('share').onclick = () => {
  history.replaceState(null, '', '#code=' + encodeURIComponent(encode(editor.value)));
  if (navigator.clipboard) navigator.clipboard.writeText(location.href).catch(() => {});
};
window.wickPlayground = { editor, loadExample, run: runCode, stop };
if (!sharedCode()) await loadExample(EXAMPLES[0][0]);
startWorker();
