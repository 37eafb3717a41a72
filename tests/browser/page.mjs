// The JS API's tests and the golden run inside a browser page: the same cores as node's (tests/wasm/api_core.mjs,
// tests/wasm/golden_core.mjs) on the JS API served at /js/. ?simd=0 forces the no-SIMD build. Each line goes to console.log (tests/browser/run.mjs prints them);
// the answer lands in window.goldenResult, {error} if the run itself broke.
import { runGolden, summaryLine } from '../wasm/golden_core.mjs';
import { runApiTests, apiSummary } from '../wasm/api_core.mjs';

const logEl = document.getElementById('log');
const log = (line) => { console.log(line); if (logEl) logEl.textContent += line + '\n'; };
const q = new URLSearchParams(location.search);
async function getJson(path, gzipped = false) {
  const r = await fetch(path);
  if (!r.ok) throw new Error(`fetching ${path} failed: ${r.status}`);
  return gzipped ? new Response(r.body.pipeThrough(new DecompressionStream('gzip'))).json() : r.json();
}
try {
  const t0 = performance.now();
  const w = await import('/js/wick.mjs');
  const info = await w.init({ simd: q.get('simd') !== '0' });
  const fixture = await getJson('/tests/wasm/api_cases.json');
  const a = await runApiTests(w, { fixture, log });
  const api = { ...a, line: apiSummary(info, fixture, a), leakTest: typeof globalThis.gc === 'function' };
  w.setWarningHandler(() => {});
  const port = await getJson('/tests/wasm/golden_port.json.gz', true);
  const known = (await getJson('/tests/wasm/golden_known.json')).cases;
  const r = await runGolden(w, { port, known, filter: q.get('k'), verbose: q.get('verbose') === '1', log,
    loadGolden: (file) => getJson(`/tests/parity/golden/${file}.json`) });
  const extra = `, crossOriginIsolated ${globalThis.crossOriginIsolated === true}`;
  window.goldenResult = { ...r, failReasons: undefined, api, line: summaryLine(info, r, extra), userAgent: navigator.userAgent,
    simd: info.simd, simdSupported: w.simdSupported(), crossOriginIsolated: globalThis.crossOriginIsolated === true,
    sharedArrayBuffer: typeof SharedArrayBuffer === 'function', seconds: (performance.now() - t0) / 1000 };
} catch (e) {
  window.goldenResult = { error: String(e && e.stack || e) };
}
