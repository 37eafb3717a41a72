// Runs tests/pyodide/programs/*.py in Pyodide (node, offline) on wick's wasm core and compares each program's
// stdout, character for character, with NAME.txt pinned from real torch 2.13 by tests/pyodide/pin.py.
// Pyodide comes from tests/browser/node_modules (npm `pyodide`, installed by tools/install-test-deps.sh); the
// package wick/ is written into Pyodide's file system and `import torch` resolves to it (wick.install_as_torch()).
// Prints one line per program, the load time and `N passed, N failed`; exits non-zero on any failure or when no
// program ran.
// Run: node tests/pyodide/run.mjs build/js [-k substring] [--verbose]
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const argv = process.argv.slice(2);
const kIdx = argv.indexOf('-k');
const jsDir = argv.find((a, i) => !a.startsWith('-') && i !== kIdx + 1) || 'build/js';
const only = kIdx >= 0 ? argv[kIdx + 1] : null;
const verbose = argv.includes('--verbose');
const root = fileURLToPath(new URL('../../', import.meta.url));
const pyodideDir = join(root, 'tests/browser/node_modules/pyodide');
if (!existsSync(join(pyodideDir, 'pyodide.mjs'))) {
  console.error('tests/pyodide: npm pyodide is not installed in tests/browser/node_modules; run tools/install-test-deps.sh');
  process.exit(2);
}

// the package's Python files, as [path under the Pyodide root, text]
export function packageFiles(repo) {
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

const { loadPyodide } = await import(pathToFileURL(join(pyodideDir, 'pyodide.mjs')).href);
const { installWick } = await import(pathToFileURL(join(root, jsDir, 'pyodide.mjs')).href);

const t0 = performance.now();
const py = await loadPyodide({ indexURL: pyodideDir + '/' });
const tPy = performance.now();
const info = await installWick(py, { files: packageFiles(root) });
py.runPython('import wick; wick.install_as_torch()');
const tWick = performance.now();
console.log(`pyodide ${py.version} (Python ${py.runPython('import sys; sys.version.split()[0]')}) on ${info.engine}, SIMD ${info.simd}: ` +
  `Pyodide loaded in ${((tPy - t0) / 1000).toFixed(2)} s, wick imported in ${((tWick - tPy) / 1000).toFixed(2)} s`);

// runs one program in a fresh __main__-like namespace; stdout captured in Python, a traceback on failure
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
const runProgram = py.globals.get('_wick_run_program');

const dir = join(root, 'tests/pyodide/programs');
const names = readdirSync(dir).filter((f) => f.endsWith('.py')).map((f) => f.slice(0, -3)).sort()
  .filter((n) => !only || n.includes(only));
let passed = 0, failed = 0;
const same = (a, b) => a === b;
for (const name of names) {
  const want = existsSync(join(dir, name + '.txt')) ? readFileSync(join(dir, name + '.txt'), 'utf8') : null;
  const t = performance.now();
  const got = runProgram(readFileSync(join(dir, name + '.py'), 'utf8'), name + '.py');
  const ms = performance.now() - t;
  // the comparison must be able to fail: the same output against torch's with one character changed
  if (want !== null && got === want && same(got, want) && !same(got, want.replace(/^./, (c) => (c === 'x' ? 'y' : 'x')))) {
    passed++;
    console.log(`ok   ${name} (${got.split('\n').length - 1} lines, ${ms.toFixed(0)} ms)`);
    continue;
  }
  failed++;
  if (want === null) { console.log(`FAIL ${name}: no ${name}.txt (run python3 tests/pyodide/pin.py ${name})`); continue; }
  const g = got.split('\n'), w = want.split('\n');
  let i = 0;
  while (i < g.length && i < w.length && g[i] === w[i]) i++;
  console.log(`FAIL ${name}: stdout differs from torch's at line ${i + 1}`);
  console.log(`  torch: ${JSON.stringify(w.slice(i, i + 3).join('\n'))}`);
  console.log(`  wick:  ${JSON.stringify(g.slice(i, i + (verbose ? 40 : 3)).join('\n'))}`);
}
console.log(`pyodide: ${passed} passed, ${failed} failed`);
process.exit(failed || !names.length ? 1 : 0);
