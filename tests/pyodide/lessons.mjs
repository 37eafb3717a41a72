// The lessons (web/lessons/NAME.md) in Pyodide on wick's wasm core, in node: each lesson's ```python blocks run in
// order in one namespace (as the lesson page runs them), from a folder holding the shipped data (data/digits.csv),
// and each block's stdout is compared, character for character, with what real torch printed for the same code
// (tests/pyodide/lessons/NAME.json, pinned by `python3 tests/pyodide/pin.py`). A block whose code differs from the
// pinned code fails (pin again). Prints one line per block and `N passed, N failed`; exits non-zero on a failure
// or when no block ran. Run: node tests/pyodide/lessons.mjs [build/js]
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { packageFiles } from '../../web/build.mjs';
import { lessonBlocks } from '../../web/lessons.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const jsDir = process.argv.slice(2).find((a) => !a.startsWith('-')) || 'build/js';
const pyodideDir = join(root, 'tests/browser/node_modules/pyodide');
if (!existsSync(join(pyodideDir, 'pyodide.mjs'))) { console.error('lessons: npm pyodide is not installed; run tools/install-test-deps.sh'); process.exit(2); }
const names = readdirSync(join(root, 'web/lessons')).filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3)).sort();
const files = [...packageFiles(), ['examples/data/digits.csv', readFileSync(join(root, 'examples/data/digits.csv'), 'utf8')]];
// one program per lesson: its blocks in one namespace, the stdout of each returned as JSON
const programs = names.map((n) => [n, `
import contextlib, io, json, os, traceback
os.chdir('/lib/wick-py/examples')
_ns, _out = {'__name__': '__main__'}, []
for _code in json.loads(${JSON.stringify(JSON.stringify(lessonBlocks(readFileSync(join(root, 'web/lessons', n + '.md'), 'utf8'))))}):
    _buf = io.StringIO()
    with contextlib.redirect_stdout(_buf):
        try:
            exec(compile(_code, '<lesson>', 'exec'), _ns)
        except BaseException:
            traceback.print_exc(file=_buf)
    _out.append(_buf.getvalue())
print(json.dumps(_out))
`]);
const { runSession } = await import('./session.mjs');
const { loadPyodide } = await import(pathToFileURL(join(pyodideDir, 'pyodide.mjs')).href);
const { installWick } = await import(pathToFileURL(join(root, jsDir, 'pyodide.mjs')).href);
const r = await runSession({ loadPyodide, installWick, indexURL: pyodideDir + '/', files, programs });
let passed = 0, failed = 0;
for (const [name, out] of r.outputs) {
  const pinned = JSON.parse(readFileSync(join(root, 'tests/pyodide/lessons', name + '.json'), 'utf8')).blocks;
  const code = lessonBlocks(readFileSync(join(root, 'web/lessons', name + '.md'), 'utf8'));
  let got;
  try { got = JSON.parse(out.trim().split('\n').pop()); } catch { got = []; console.log(`FAIL ${name}: the lesson runner printed ${JSON.stringify(out.slice(-500))}`); failed++; continue; }
  if (code.length !== pinned.length) { console.log(`FAIL ${name}: ${code.length} blocks, ${pinned.length} pinned (run python3 tests/pyodide/pin.py ${name})`); failed++; }
  code.forEach((c, i) => {
    const want = pinned[i];
    // the comparison must be able to fail: torch's text with one character changed differs
    const ok = want && want.code === c && got[i] === want.stdout && got[i] !== want.stdout + '.';
    if (ok) passed++; else failed++;
    const why = !want || want.code !== c ? `its code is not the pinned code (run python3 tests/pyodide/pin.py ${name})` :
      `stdout differs:\n  torch: ${JSON.stringify(want.stdout.slice(0, 400))}\n  wick:  ${JSON.stringify(String(got[i]).slice(0, 400))}`;
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${name} block ${i + 1} (${(want ? want.stdout : '').split('\n').length - 1} lines)${ok ? '' : ': ' + why}`);
  });
}
console.log(`lessons (${r.engine.split(' ')[0]}, Pyodide ${r.pyodide}): ${passed} passed, ${failed} failed`);
process.exit(failed || !passed ? 1 : 0);
