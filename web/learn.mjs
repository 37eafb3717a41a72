// The lesson pages (learn.html#NAME): web/lessons/NAME.md rendered (headings, paragraphs, lists, `code`, links),
// each ```python block an editor with its Run button and an output pane; the blocks of a lesson share one Python
// namespace in the worker (web/worker.mjs, the playground's), as a notebook. Run all runs them in order from a
// fresh namespace. body[data-state] is loading / ready / running / done (for tests).
import { createEditor } from '/bundle/editor.js';
import { LESSONS, lessonBlocks } from './lessons.mjs';

const $ = (id) => document.getElementById(id);
const state = (s, text) => { $('status').textContent = text || s; document.body.dataset.state = s; };
const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const inline = (s) => esc(s).replace(/`([^`]+)`/g, '<code>$1</code>').replace(/\*([^*]+)\*/g, '<em>$1</em>')
  .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, '<a href="$2">$1</a>');

let worker, lesson, blocks = [], queue = Promise.resolve(), current = null;

function render(md) {
  const art = $('lesson');
  art.innerHTML = '';
  blocks = [];
  const codes = lessonBlocks(md);
  // prose between the code blocks, a paragraph per blank-line-separated chunk
  const prose = md.split(/^```python\n[\s\S]*?^```$/m);
  prose.forEach((text, i) => {
    for (const chunk of text.split(/\n\s*\n/)) {
      const t = chunk.trim();
      if (!t) continue;
      let el;
      const h = /^(#{1,3}) (.*)$/.exec(t);
      if (h) { el = document.createElement('h' + h[1].length); el.innerHTML = inline(h[2]); }
      else if (/^- /.test(t)) { el = document.createElement('ul'); el.innerHTML = t.split(/\n- /).map((x) => `<li>${inline(x.replace(/^- /, ''))}</li>`).join(''); }
      else { el = document.createElement('p'); el.innerHTML = inline(t); }
      art.append(el);
    }
    if (i < codes.length) {
      const div = document.createElement('div');
      div.className = 'block';
      const ed = document.createElement('div'), btn = document.createElement('button'), out = document.createElement('pre');
      btn.textContent = 'Run';
      out.className = 'out';
      div.append(ed, btn, out);
      art.append(div);
      const b = { editor: createEditor(ed, codes[i].replace(/\n$/, ''), { onRun: () => runBlock(b) }), out };
      btn.onclick = () => runBlock(b);
      blocks.push(b);
    }
  });
}

// one run at a time, in order: resolves when the worker said done
function runBlock(b, fresh = false) {
  queue = queue.then(() => new Promise((ok) => {
    current = { b, ok };
    b.out.textContent = '';
    state('running', 'running…');
    worker.postMessage({ type: 'run', code: b.editor.value + '\n', ns: 'lesson:' + lesson, fresh });
  }));
  return queue;
}

async function runAll() {
  $('runall').disabled = true;
  for (let i = 0; i < blocks.length; i++) await runBlock(blocks[i], i === 0);
  $('runall').disabled = false;
  state('done', `ran ${blocks.length} blocks`);
}

async function show() {
  lesson = (location.hash.slice(1) || LESSONS[0][0]);
  $('lessons').innerHTML = LESSONS.map(([n, t]) => `<a href="#${n}"${n === lesson ? ' class="current"' : ''}>${esc(t)}</a>`).join('');
  render(await (await fetch(`./lessons/${lesson}.md`)).text());
  document.title = `wick: ${LESSONS.find(([n]) => n === lesson)?.[1] || lesson}`;
}

worker = new Worker(new URL('./worker.mjs', import.meta.url), { type: 'module' });
const t0 = performance.now();
worker.onmessage = ({ data: m }) => {
  if (m.type === 'ready') { state('ready', `ready: loaded in ${((performance.now() - t0) / 1000).toFixed(2)} s`); $('runall').disabled = false; }
  else if (m.type === 'out' && current) current.b.out.textContent += m.text;
  else if ((m.type === 'done' || m.type === 'error') && current) {
    if (m.type === 'error') current.b.out.textContent += m.text;
    const c = current;
    current = null;
    state('ready', 'ready');
    c.ok();
  }
};
worker.postMessage({ type: 'init', interrupt: null });
window.addEventListener('hashchange', show);
$('runall').onclick = runAll;
window.wickLessons = { runAll, blocks: () => blocks, LESSONS };
await show();
