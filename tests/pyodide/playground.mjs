// The playground (web/) tested as a person uses it, in headless Chromium (Debian's chromium driven by
// playwright-core): load the page from web/serve.mjs, wait for "ready", type a program into the editor, press Run,
// wait for "done", read the output pane and compare it character for character with what real torch printed for
// the same program (tests/pyodide/programs/NAME.txt, pinned by pin.py). A request that leaves 127.0.0.1 fails the
// run. Saves a screenshot per program under build/test-output/.
// Run: node tests/pyodide/playground.mjs [build/js]
import { readFileSync, existsSync, mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { servePlayground } from '../../web/serve.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const jsDir = process.argv.slice(2).find((a) => !a.startsWith('-')) || 'build/js';
const PROGRAMS = ['tensors_basics', 'autograd_engine', 'errors']; // stdout pinned from torch
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
  const t0 = Date.now();
  await page.goto(server.url);
  await page.waitForSelector('body[data-state="ready"]', { timeout: 180000 });
  console.log(`playground ready in ${((Date.now() - t0) / 1000).toFixed(2)} s: ${await page.textContent('#status')}`);
  for (const name of PROGRAMS) {
    const src = readFileSync(join(root, 'tests/pyodide/programs', name + '.py'), 'utf8');
    const want = readFileSync(join(root, 'tests/pyodide/programs', name + '.txt'), 'utf8');
    await page.fill('#code', src);
    await page.click('#run');
    await page.waitForSelector('body[data-state="done"]', { timeout: 180000 });
    const got = await page.evaluate(() => document.getElementById('output').textContent);
    await page.screenshot({ path: join(outDir, `playground-${name}.png`), fullPage: true });
    // the comparison must be able to fail: torch's text with one character changed differs
    const ok = got === want && got !== want.replace(/^./, (c) => (c === 'x' ? 'y' : 'x'));
    if (ok) passed++; else failed++;
    const line = (s) => s.split('\n').findIndex((l, i) => l !== want.split('\n')[i]);
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${name} (${want.split('\n').length - 1} lines)` + (ok ? '' : ` differs at line ${line(got) + 1}:\n${got.slice(0, 2000)}`));
  }
} finally {
  if (context) await context.close();
  await server.close();
  rmSync(profile, { recursive: true, force: true });
}
if (offsite) errors.push(`${offsite} request(s) left 127.0.0.1`);
for (const e of errors) console.log(`error: ${e}`);
console.log(`playground (chromium): ${passed} passed, ${failed} failed; screenshots in build/test-output/`);
process.exit(failed || errors.length || !passed ? 1 : 0);
