// Runs tests/pyodide/programs/*.py in Pyodide on wick's wasm core, offline, and compares each program's stdout,
// character for character, with NAME.txt pinned from real torch 2.13 by tests/pyodide/pin.py.
// Engines: node (default) or headless Chromium (--chromium: Debian's chromium driven by playwright-core, the page
// served from 127.0.0.1 by tests/browser/server.mjs, any other request aborted and counted as a failure).
// Pyodide is npm `pyodide` in tests/browser/node_modules (tools/install-test-deps.sh); the package wick/ is written
// into Pyodide's file system by js/pyodide.mjs and `import torch` resolves to it (wick.install_as_torch()).
// Prints one line per program, the load times and `N passed, N failed`; exits non-zero on any failure or when no
// program ran (programs listed in known.json with a reason are counted apart). --bench also times a small `a + b` per call (tests/pyodide/bench.py).
// Run: node tests/pyodide/run.mjs build/js [--chromium] [-k substring] [--verbose] [--bench] [--parity STEMS|all [--all-failures]]
import { readFileSync, readdirSync, statSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const argv = process.argv.slice(2);
const kIdx = argv.indexOf('-k');
const valued = new Set(['-k', '--parity']); // options that take the next argument
const jsDir = argv.find((a, i) => !a.startsWith('-') && !(i > 0 && valued.has(argv[i - 1]))) || 'build/js';
const only = kIdx >= 0 ? argv[kIdx + 1] : null;
const verbose = argv.includes('--verbose');
const chromium = argv.includes('--chromium');
const bench = argv.includes('--bench');
const root = fileURLToPath(new URL('../../', import.meta.url));
const pyodideDir = join(root, 'tests/browser/node_modules/pyodide');
if (!existsSync(join(pyodideDir, 'pyodide.mjs'))) {
  console.error('tests/pyodide: npm pyodide is not installed in tests/browser/node_modules; run tools/install-test-deps.sh');
  process.exit(2);
}

// the package's Python files, as [path under the Pyodide root, text]
function packageFiles(repo) {
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) { if (name !== '__pycache__') walk(p); }
      else if (name.endsWith('.py')) out.push([relative(repo, p), readFileSync(p, 'utf8')]);
    }
  };
  walk(join(repo, 'wick'));
  return out;
}

// --parity STEMS (comma-separated case files, or 'all'): the parity suite's harness itself (tests/parity) run in
// Pyodide against the pinned goldens (python3 -m tests.parity --golden STEMS): a measurement, its exit status the
// harness's
const pIdx = argv.indexOf('--parity');
if (pIdx >= 0) {
  const all = readdirSync(join(root, 'tests/parity')).filter((f) => /^cases_.*\.py$/.test(f)).map((f) => f.slice(0, -3)).sort();
  const stems = argv[pIdx + 1] === 'all' ? all : (argv[pIdx + 1] || '').split(',').filter(Boolean);
  const pfiles = packageFiles(root);
  for (const f of readdirSync(join(root, 'tests/parity')).sort()) {
    if (f.endsWith('.py') && (!f.startsWith('cases_') || stems.includes(f.slice(0, -3)))) {
      pfiles.push([`tests/parity/${f}`, readFileSync(join(root, 'tests/parity', f), 'utf8')]);
    }
  }
  for (const st of stems) {
    const g = join(root, `tests/parity/golden/${st}.json`);
    if (existsSync(g)) pfiles.push([`tests/parity/golden/${st}.json`, readFileSync(g, 'utf8')]);
  }
  const src = `import sys, warnings\nwarnings.simplefilter('ignore')\nfrom tests.parity.runner import main\n` +
    `rc = main(['--golden', ${argv.includes('--all-failures') ? "'--max-failures', '0', " : ''}${stems.map((x) => JSON.stringify(x)).join(', ')}])\nprint('harness exit status', rc)`;
  const { runSession } = await import('./session.mjs');
  const { loadPyodide } = await import(pathToFileURL(join(pyodideDir, 'pyodide.mjs')).href);
  const { installWick } = await import(pathToFileURL(join(root, jsDir, 'pyodide.mjs')).href);
  const r = await runSession({ loadPyodide, installWick, indexURL: pyodideDir + '/', files: pfiles, programs: [['parity.py', src]] });
  const out = r.outputs[0][1];
  process.stdout.write(verbose ? out : out.split('\n').filter((l) => !/^(FAIL|     at )/.test(l)).join('\n'));
  process.exit(/harness exit status 0\n/.test(out) ? 0 : 1);
}

const dir = join(root, 'tests/pyodide/programs');
const names = readdirSync(dir).filter((f) => f.endsWith('.py')).map((f) => f.slice(0, -3)).sort()
  .filter((n) => !only || n.includes(only));
const programs = names.map((n) => [n + '.py', readFileSync(join(dir, n + '.py'), 'utf8')]);
if (bench) programs.push(['bench.py', readFileSync(join(root, 'tests/pyodide/bench.py'), 'utf8')]);
const files = packageFiles(root);

// In node: the same session.mjs the page uses, with Pyodide and the JS API imported from disk.
async function runNode() {
  const { runSession } = await import('./session.mjs');
  const { loadPyodide } = await import(pathToFileURL(join(pyodideDir, 'pyodide.mjs')).href);
  const { installWick } = await import(pathToFileURL(join(root, jsDir, 'pyodide.mjs')).href);
  return runSession({ loadPyodide, installWick, indexURL: pyodideDir + '/', files, programs });
}

async function runChromium() {
  let pw;
  try { pw = createRequire(join(root, 'tests/browser/package.json'))('playwright-core'); } catch (e) {
    console.error(`tests/pyodide: playwright-core is not installed (${e.message.split('\n')[0]}); run tools/install-test-deps.sh`);
    process.exit(2);
  }
  const executablePath = [process.env.CHROMIUM, '/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((p) => p && existsSync(p));
  if (!executablePath) { console.error('tests/pyodide: no chromium binary; run tools/install-test-deps.sh'); process.exit(2); }
  const { serve } = await import('../browser/server.mjs');
  const server = await serve({ jsDir, extra: [['/pyodide/', pyodideDir]] });
  const profile = mkdtempSync(join(tmpdir(), 'wick-pyodide-chromium-'));
  let context, offsite = 0;
  const pageErrors = [];
  try {
    context = await pw.chromium.launchPersistentContext(profile, { executablePath, headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
    await context.route('**/*', (route) => {
      if (route.request().url().startsWith(server.url + '/')) return route.continue();
      offsite++;
      return route.abort();
    });
    const page = await context.newPage();
    page.on('console', (m) => { if (verbose || m.type() !== 'log') console.log(`[page ${m.type()}] ${m.text()}`); });
    page.on('pageerror', (e) => { pageErrors.push(String(e)); console.log(`[page error] ${e}`); });
    page.on('response', (r) => { if (r.status() >= 400) pageErrors.push(`${r.status()} ${r.url()}`); });
    await page.goto(server.url + '/tests/pyodide/page.html');
    await page.waitForFunction(() => window.wickSession !== undefined, null, { timeout: 120000 });
    const res = await page.evaluate(([f, p]) => window.wickSession(f, p), [files, programs]);
    res.engine = `${res.engine}; crossOriginIsolated ${res.isolated}`;
    if (offsite) res.errors = [...(res.errors || []), `${offsite} request(s) left 127.0.0.1`];
    if (pageErrors.length) res.errors = [...(res.errors || []), ...pageErrors];
    return res;
  } finally {
    if (context) await context.close();
    await server.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

const res = chromium ? await runChromium() : await runNode();
console.log(`pyodide ${res.pyodide} (Python ${res.python}) on ${res.engine}, SIMD ${res.simd}: ` +
  `Pyodide loaded in ${(res.tPyodide / 1000).toFixed(2)} s, wick imported in ${(res.tWick / 1000).toFixed(2)} s`);
let passed = 0, failed = 0, knownFailed = 0;
const same = (a, b) => a === b;
// programs whose difference from torch is wick's core's, not this door's, each with the reason (checked: one that
// starts to pass fails the run until it is taken off the list)
const known = JSON.parse(readFileSync(join(root, 'tests/pyodide/known.json'), 'utf8'));
for (const [name, got, ms] of res.outputs) {
  if (name === 'bench.py') { process.stdout.write(got); continue; }
  const base = name.slice(0, -3);
  const want = existsSync(join(dir, base + '.txt')) ? readFileSync(join(dir, base + '.txt'), 'utf8') : null;
  // the comparison must be able to fail: the same output against torch's with one character changed
  const ok = want !== null && same(got, want) && !same(got, want.replace(/^./, (c) => (c === 'x' ? 'y' : 'x')));
  if (ok && known[base]) {
    failed++;
    console.log(`FAIL ${base}: now matches torch; take it off tests/pyodide/known.json`);
    continue;
  }
  // a known difference is one in values only: the same number of lines and no traceback, else it fails
  if (!ok && known[base] && want !== null && !got.includes('Traceback (most recent call last)') &&
      got.split('\n').length === want.split('\n').length) {
    knownFailed++;
    const g = got.split('\n'), w = want.split('\n');
    let i = 0;
    while (i < g.length && i < w.length && g[i] === w[i]) i++;
    console.log(`known ${base}: differs at line ${i + 1} (${known[base].split(':')[0]}; tests/pyodide/known.json)`);
    if (verbose) console.log(`  torch: ${JSON.stringify(w[i])}\n  wick:  ${JSON.stringify(g[i])}`);
    continue;
  }
  if (ok) {
    passed++;
    console.log(`ok   ${base} (${got.split('\n').length - 1} lines, ${ms.toFixed(0)} ms)`);
    continue;
  }
  failed++;
  if (want === null) { console.log(`FAIL ${base}: no ${base}.txt (run python3 tests/pyodide/pin.py ${base})`); continue; }
  const g = got.split('\n'), w = want.split('\n');
  let i = 0;
  while (i < g.length && i < w.length && g[i] === w[i]) i++;
  console.log(`FAIL ${base}: stdout differs from torch's at line ${i + 1}`);
  console.log(`  torch: ${JSON.stringify(w.slice(i, i + 3).join('\n'))}`);
  console.log(`  wick:  ${JSON.stringify(g.slice(i, i + (verbose ? 40 : 3)).join('\n'))}`);
}
console.log(`after the programs: ${res.live} JS tensors alive, ${res.leaks} freed by the JS registry (leaks)`);
if (res.leaks) { console.log('FAIL leaks: a Python tensor was dropped without releasing its C reference'); failed++; }
for (const e of res.errors || []) { console.log(`FAIL page: ${e}`); failed++; }
if (knownFailed) console.log(`${knownFailed} program(s) differ from torch in the core's last digits, listed in tests/pyodide/known.json`);
console.log(`pyodide-${chromium ? 'chromium' : 'node'}: ${passed} passed, ${failed} failed`);
process.exit(failed || !passed ? 1 : 0);
