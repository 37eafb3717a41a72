// The playground (web/) tested as a person uses it, in headless Chromium (Debian's chromium driven by
// playwright-core): load the page from web/serve.mjs, wait for "ready" (the load time is printed), check the editor
// is CodeMirror and the status line names SIMD and threads, then
// - pick each example (web/examples/NAME.py) from the list, press Run, wait for "done", compare the output pane
//   character for character with what real torch printed for it (tests/pyodide/examples/NAME.txt, pin.py); where
//   the example plots a training curve (web/plot.py), check the canvas drew every point;
// - put three pinned programs (tests/pyodide/programs/NAME.py/.txt) into the editor and do the same;
// - run a program that raises: the pane ends with torch's exception line (the message pinned in errors.txt);
// - open the lesson pages (web/learn.html#NAME), press Run all, compare each block's output with torch's
//   (tests/pyodide/lessons/NAME.json);
// - run `while True`, check the page still answers while it runs (Python is in a worker), press Stop, check it
//   stops (KeyboardInterrupt through the interrupt buffer) and that the next Run works; then the same on
//   ?stop=restart, where Stop terminates the worker and starts a new one.
// A request that leaves 127.0.0.1 fails the run. Screenshots under build/test-output/playground-*.png.
// Run: node tests/pyodide/playground.mjs [build/js]
import { readFileSync, existsSync, mkdtempSync, rmSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { servePlayground } from '../../web/serve.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const jsDir = process.argv.slice(2).find((a) => !a.startsWith('-')) || 'build/js';
const PROGRAMS = ['tensors_basics', 'autograd_engine', 'errors']; // stdout pinned from torch
const EXAMPLES = readdirSync(join(root, 'web/examples')).filter((f) => f.endsWith('.py')).map((f) => f.slice(0, -3)).sort();
let pw;
try { pw = createRequire(join(root, 'tests/browser/package.json'))('playwright-core'); } catch (e) {
  console.error(`playground: playwright-core is not installed (${e.message.split('\n')[0]}); run tools/install-test-deps.sh`);
  process.exit(2);
}
const executablePath = [process.env.CHROMIUM, '/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((p) => p && existsSync(p));
if (!executablePath) { console.error('playground: no chromium binary; run tools/install-test-deps.sh'); process.exit(2); }

const outDir = join(root, 'build/test-output');
mkdirSync(outDir, { recursive: true });
const server = await servePlayground({ jsDir });
const profile = mkdtempSync(join(tmpdir(), 'wick-playground-'));
let context, offsite = 0, passed = 0, failed = 0;
const errors = [];
const check = (ok, what, detail = '') => {
  if (ok) passed++; else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${ok || !detail ? '' : '\n' + detail}`);
};
// the comparison must be able to fail: torch's text with one character changed differs
const same = (got, want) => got === want && got !== want.replace(/^./, (c) => (c === 'x' ? 'y' : 'x'));
const firstDiff = (got, want) => got.split('\n').findIndex((l, i) => l !== want.split('\n')[i]) + 1;
const STATE = (s) => `body[data-state="${s}"]`;
const output = (page) => page.evaluate(() => document.getElementById('output').textContent);

async function ready(page, url) {
  const t0 = Date.now();
  await page.goto(url);
  await page.waitForSelector(STATE('ready'), { timeout: 180000 });
  const status = await page.textContent('#status'), info = await page.textContent('#info');
  console.log(`playground ${new URL(url).search || ''}ready in ${((Date.now() - t0) / 1000).toFixed(2)} s (page says: ${status}; ${info})`);
}

async function runAndCompare(page, what, want, shot) {
  await page.click('#run');
  await page.waitForSelector(STATE('done'), { timeout: 180000 });
  const got = await output(page);
  await page.screenshot({ path: join(outDir, `playground-${shot}.png`), fullPage: true });
  check(same(got, want), `${what} (${want.split('\n').length - 1} lines, ${await page.textContent('#status')})`,
    `differs at line ${firstDiff(got, want)}:\n${got.slice(0, 2000)}`);
}

async function stopLoop(page, how) {
  await page.evaluate(() => { window.wickPlayground.editor.value = "print('start', flush=True)\nn = 0\nwhile True:\n    n += 1\n"; });
  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('output').textContent.includes('start'), null, { timeout: 60000 });
  // the page answers while Python runs: timers fire, the DOM changes, in the same frame budget
  const lag = await page.evaluate(() => new Promise((ok) => { const t = performance.now(); setTimeout(() => ok(performance.now() - t), 10); }));
  check(lag < 1000 && (await page.getAttribute('body', 'data-state')) === 'running', `${how}: the page answers while \`while True\` runs (a 10 ms timer fired after ${lag.toFixed(0)} ms)`);
  const t = Date.now();
  await page.click('#stop');
  await page.waitForSelector(how === 'interrupt' ? STATE('stopped') : STATE('ready'), { timeout: 180000 });
  const got = await output(page);
  await page.screenshot({ path: join(outDir, `playground-stop-${how}.png`), fullPage: true });
  const mark = how === 'interrupt' ? /KeyboardInterrupt\n$/ : /\[stopped: the worker was restarted\]\n$/;
  check(mark.test(got), `${how}: Stop stopped the loop in ${((Date.now() - t) / 1000).toFixed(2)} s`, got.slice(-500));
  await page.evaluate(() => { window.wickPlayground.editor.value = 'import torch\nprint(torch.arange(3) * 2)\n'; });
  await page.click('#run');
  await page.waitForSelector(STATE('done'), { timeout: 60000 });
  check((await output(page)) === 'tensor([0, 2, 4])\n', `${how}: the next Run works after Stop`, await output(page));
}

// the lesson pages (web/learn.html#NAME): Run all runs every block in one namespace; each block's output pane must
// equal what real torch printed for that block (tests/pyodide/lessons/NAME.json, pin.py)
async function lessons(ctx) {
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  const t0 = Date.now();
  await page.goto(server.url.replace('index.html', 'learn.html'));
  await page.waitForSelector(STATE('ready'), { timeout: 180000 });
  console.log(`lessons page ready in ${((Date.now() - t0) / 1000).toFixed(2)} s`);
  const names = await page.evaluate(() => window.wickLessons.LESSONS.map(([n]) => n));
  for (const name of names) {
    const pinned = JSON.parse(readFileSync(join(root, 'tests/pyodide/lessons', name + '.json'), 'utf8')).blocks;
    await page.evaluate((n) => { location.hash = n; }, name);
    await page.waitForFunction((n) => document.querySelector('nav a.current')?.getAttribute('href') === '#' + n &&
      window.wickLessons.blocks().length > 0, name, { timeout: 10000 });
    await page.click('#runall');
    await page.waitForSelector(STATE('done'), { timeout: 180000 });
    const got = await page.evaluate(() => window.wickLessons.blocks().map((b) => [b.editor.value + '\n', b.out.textContent]));
    await page.screenshot({ path: join(outDir, `lesson-${name}.png`), fullPage: true });
    const bad = got.map(([code, out], i) => (pinned[i] && pinned[i].code === code && same(out, pinned[i].stdout) ? -1 : i)).filter((i) => i >= 0);
    check(got.length === pinned.length && !bad.length, `lesson ${name}: ${got.length} blocks, each prints what torch printed`,
      bad.map((i) => `block ${i + 1}:\n${got[i][1].slice(0, 800)}`).join('\n'));
    await page.evaluate(() => { document.body.dataset.state = 'ready'; });
  }
  await page.close();
}

try {
  context = await pw.chromium.launchPersistentContext(profile, { executablePath, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
  const origin = new URL(server.url).origin;
  await context.route('**/*', (route) => {
    if (route.request().url().startsWith(origin + '/')) return route.continue();
    offsite++;
    return route.abort();
  });
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('response', (r) => { if (r.status() >= 400) errors.push(`${r.status()} ${r.url()}`); });
  await ready(page, server.url);
  const editor = await page.evaluate(() => ({ cm: !!document.querySelector('#editor .cm-editor .cm-content[contenteditable]'),
    textarea: document.querySelectorAll('textarea').length }));
  check(editor.cm && editor.textarea === 0, 'the editor is CodeMirror (no textarea)');
  check(/SIMD (on|off)/.test(await page.textContent('#info')) && /threads \d+/.test(await page.textContent('#info')) &&
    /loaded in \d+\.\d\d s/.test(await page.textContent('#status')), 'the status line gives the load time, SIMD and threads');

  for (const name of EXAMPLES) {
    const src = readFileSync(join(root, 'web/examples', name + '.py'), 'utf8');
    await page.selectOption('#examples', name);
    await page.waitForFunction((s) => window.wickPlayground.editor.value === s, src, { timeout: 10000 });
    await runAndCompare(page, `example ${name}`, readFileSync(join(root, 'tests/pyodide/examples', name + '.txt'), 'utf8'), `example-${name}`);
    // an example that plots one point per training step (plot.point in a `for step in range(N)` loop) drew them all:
    // the canvas counts N points and shows the first series' colour (web/plot.mjs's #1f77b4) on enough pixels
    const steps = /for step in range\((\d+)\):[\s\S]*plot\.point\(/.exec(src);
    if (steps) {
      const drawn = await page.evaluate(() => {
        const c = document.getElementById('plot'), d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let blue = 0;
        for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - 31) < 40 && Math.abs(d[i + 1] - 119) < 40 && Math.abs(d[i + 2] - 180) < 40) blue++;
        return { points: Number(c.dataset.points), blue, hidden: c.hidden };
      });
      check(drawn.points === Number(steps[1]) && drawn.blue > 150 && !drawn.hidden,
        `example ${name}: the plot shows its ${steps[1]} points (${drawn.points} drawn, ${drawn.blue} pixels of the curve)`);
    }
  }
  for (const name of PROGRAMS) {
    const src = readFileSync(join(root, 'tests/pyodide/programs', name + '.py'), 'utf8');
    await page.evaluate((s) => { window.wickPlayground.editor.value = s; }, src);
    await runAndCompare(page, `program ${name}`, readFileSync(join(root, 'tests/pyodide/programs', name + '.txt'), 'utf8'), name);
  }
  // a traceback ends with torch's exception line (type and message pinned from torch in errors.txt's first line)
  const pinned = readFileSync(join(root, 'tests/pyodide/programs/errors.txt'), 'utf8').split('\n')[0].match(/^0 (\w+) (.*)$/);
  await page.evaluate(() => { window.wickPlayground.editor.value = 'import torch\na = torch.ones(2, 3)\nprint(a @ a)\n'; });
  await page.click('#run');
  await page.waitForSelector(STATE('done'), { timeout: 60000 });
  const tb = await output(page);
  check(tb.startsWith('Traceback (most recent call last):\n  File "<playground>", line 3, in <module>\n') &&
    tb.endsWith(`\n${pinned[1]}: ${pinned[2]}\n`), 'a traceback names the program\'s line and ends with torch\'s exception', tb);

  await lessons(context);
  await stopLoop(page, 'interrupt');
  await ready(page, server.url + '?stop=restart');
  await stopLoop(page, 'restart');
} finally {
  if (context) await context.close();
  await server.close();
  rmSync(profile, { recursive: true, force: true });
}
if (offsite) errors.push(`${offsite} request(s) left 127.0.0.1`);
for (const e of errors) console.log(`error: ${e}`);
console.log(`playground (chromium): ${passed} passed, ${failed} failed; screenshots in build/test-output/`);
process.exit(failed || errors.length || !passed ? 1 : 0);
