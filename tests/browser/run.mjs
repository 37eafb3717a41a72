// js/README.md's example, the JS API's tests (tests/wasm/api_core.mjs) and the golden run (tests/wasm/golden_core.mjs) inside headless Chromium: Debian's chromium driven by playwright-core (installed by
// tools/install-test-deps.sh into tests/browser/node_modules; no browser is downloaded), the page served from
// 127.0.0.1 by server.mjs, requests anywhere else aborted and counted. Prints the page's lines, the engine's user
// agent and whether SIMD and crossOriginIsolated were on; exits non-zero on a wrong README output, an API test failure, a golden failure not in golden_known.json,
// on a page error or a refused request, or when the page is not cross-origin isolated.
// Run: node tests/browser/run.mjs build/js [--nosimd] [--verbose] [-k substring]
import { mkdtempSync, rmSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { format } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from './server.mjs';
import { exampleBlock, missing, WANT } from '../wasm/readme_example.mjs';

const argv = process.argv.slice(2);
const jsDir = argv.find((a, i) => !a.startsWith('-') && argv[i - 1] !== '-k') || 'build/js';
const kIdx = argv.indexOf('-k');
let chromium;
try { ({ chromium } = await import('playwright-core')); } catch (e) {
  console.error(`tests/browser: playwright-core is not installed (${e.message.split('\n')[0]}); run tools/install-test-deps.sh`);
  process.exit(2);
}
const executablePath = [process.env.CHROMIUM, '/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((p) => p && existsSync(p));
if (!executablePath) { console.error('tests/browser: no chromium binary; run tools/install-test-deps.sh'); process.exit(2); }

const t0 = Date.now();
const server = await serve({ jsDir });
const profile = mkdtempSync(join(tmpdir(), 'wick-chromium-'));
let context, result, readme = null, pageErrors = [], offsite = 0;
try {
  context = await chromium.launchPersistentContext(profile, { executablePath, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run',
      '--js-flags=--expose-gc'] }); // globalThis.gc: the API tests' FinalizationRegistry leak check runs
  await context.route('**/*', (route) => {
    if (route.request().url().startsWith(server.url + '/')) return route.continue();
    offsite++;
    return route.abort();
  });
  // opens path in a new tab and waits for window[key]; a page error or a file the server refused ends the wait at
  // once (a module that fails to load sets no result)
  async function visit(path, key) {
    const page = await context.newPage();
    let broke;
    const brokeP = new Promise((_, fail) => { broke = fail; });
    brokeP.catch(() => {});
    page.on('console', (m) => { if (m.type() === 'log') console.log(m.text()); else console.log(`[page ${m.type()}] ${m.text()}`); });
    page.on('pageerror', (e) => { pageErrors.push(String(e)); console.log(`[page error] ${e}`); broke(e); });
    page.on('response', (r) => { if (r.status() >= 400) { pageErrors.push(`${r.status()} ${r.url()}`); broke(new Error(`${r.status()} for ${r.url()}`)); } });
    try {
      await page.goto(server.url + path);
      await Promise.race([brokeP,
        page.waitForFunction((k) => window[k] !== undefined, key, { timeout: 10 * 60 * 1000, polling: 250 })]);
      return await page.evaluate((k) => window[k], key);
    } catch (e) { return { error: String(e && e.message || e) }; } finally { await page.close(); }
  }
  if (!argv.includes('--nosimd')) { // js/README.md's example as written (it loads the default build: SIMD here)
    writeFileSync(join(jsDir, 'readme_example.mjs'), exampleBlock(readFileSync(new URL('../../js/README.md', import.meta.url), 'utf8')));
    readme = await visit('/tests/browser/readme.html', 'readmeResult');
  }
  const q = new URLSearchParams();
  if (argv.includes('--nosimd')) q.set('simd', '0');
  if (argv.includes('--verbose')) q.set('verbose', '1');
  if (kIdx >= 0) q.set('k', argv[kIdx + 1]);
  result = await visit(`/tests/browser/golden.html?${q}`, 'goldenResult');
} finally {
  if (context) await context.close();
  await server.close();
  rmSync(profile, { recursive: true, force: true });
}
if (result.error) { console.log(`golden run in Chromium broke: ${result.error.split('\n')[0]}`); process.exit(1); }
console.log(result.api.line + (result.api.leakTest ? '' : ' (no globalThis.gc: leak report untested)'));
console.log(result.line);
console.log(`Chromium: ${result.userAgent}; SIMD ${result.simd ? 'on' : 'off'} (engine supports it: ${result.simdSupported}); ` +
  `crossOriginIsolated ${result.crossOriginIsolated}, SharedArrayBuffer ${result.sharedArrayBuffer ? 'defined' : 'undefined'}; ` +
  `${offsite} requests beyond 127.0.0.1 (aborted); run ${result.seconds.toFixed(1)} s in the page, ${((Date.now() - t0) / 1000).toFixed(1)} s in all`);
const bad = [];
if (readme) { // what the example printed, formatted as node's console.log formats it
  const out = readme.error ? '' : readme.calls.map((args) => format(...args)).join('\n');
  const lost = readme.error ? WANT : missing(out);
  if (lost.length) bad.push(`README example ${readme.error ? 'broke: ' + readme.error.split('\n')[0] : 'missing ' + JSON.stringify(lost)}`);
  else console.log(`README example ran as written in Chromium: ${WANT.length} printed values as its comments say`);
}
if (result.api.failed || !result.api.leakTest) bad.push(`${result.api.failed} JS API test failures${result.api.leakTest ? '' : ', leak test not run'}`);
if (result.unexpected.length) bad.push(`${result.unexpected.length} new failures`);
if (pageErrors.length) bad.push(`${pageErrors.length} page errors`);
if (!result.crossOriginIsolated) bad.push('the page is not crossOriginIsolated (COOP/COEP headers)');
if (bad.length) { console.log(`FAILED: ${bad.join(', ')}`); process.exit(1); }
