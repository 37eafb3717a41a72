// The golden run in node: tests/wasm/golden_core.mjs (shared with the browser run, tests/browser/run.mjs) executes
// every ported case through build/js on the wasm core and compares it with the goldens pinned under real torch.
// Run: node tests/wasm/golden.mjs build/js [--nosimd] [--verbose] [-k substring] [--update-known]
import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { runGolden, summaryLine } from './golden_core.mjs';

const argv = process.argv.slice(2);
const dir = resolve(argv.find((a) => !a.startsWith('-')) || 'build/js');
const kIdx = argv.indexOf('-k');
const w = await import(pathToFileURL(resolve(dir, 'wick.mjs')).href);
const info = await w.init({ simd: !argv.includes('--nosimd') });
w.setWarningHandler(() => {});
const root = new URL('../../', import.meta.url);
const port = JSON.parse(gunzipSync(readFileSync(new URL('tests/wasm/golden_port.json.gz', root))));
// Cases known to fail through the JS API, each with its reason (a failure not listed fails the run)
const knownFile = new URL('tests/wasm/golden_known.json', root);
const known = existsSync(knownFile) ? JSON.parse(readFileSync(knownFile)).cases : {};
const r = await runGolden(w, {
  port, known, filter: kIdx >= 0 ? argv[kIdx + 1] : null, verbose: argv.includes('--verbose'), log: console.log,
  loadGolden: (file) => JSON.parse(readFileSync(new URL(`tests/parity/golden/${file}.json`, root))),
});
if (argv.includes('--update-known')) { // rewrites golden_known.json: every case failing now, with its first difference
  const cases = {};
  for (const id of Object.keys(r.failReasons).sort()) cases[id] = r.failReasons[id];
  writeFileSync(knownFile, JSON.stringify({ note: 'Cases that fail through the JS API today, with the first difference; ' +
    'written by node tests/wasm/golden.mjs build/js --update-known. Each is a bug or a missing piece of the JS door.', cases }, null, 1) + '\n');
  console.log(`wrote ${Object.keys(cases).length} known failures to ${knownFile.pathname}`);
}
console.log(summaryLine(info, r));
process.exit(r.unexpected.length ? 1 : 0);
