// Tests of wick's JS API (build/js) under node; the tests themselves are tests/wasm/api_core.mjs (shared with the
// browser run, tests/browser/run.mjs): the cases pinned under torch, reprs, lifetimes, errors, out-of-memory.
// Run: node --expose-gc tests/wasm/test_js.mjs build/js [--nosimd]
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { runApiTests, apiSummary } from './api_core.mjs';

const dir = resolve(process.argv[2] || 'build/js');
const nosimd = process.argv.includes('--nosimd');
const w = await import(pathToFileURL(resolve(dir, 'wick.mjs')).href);
const info = await w.init({ simd: !nosimd });
console.log(`wick JS API on ${info.engine}: ${nosimd ? 'wick-nosimd.wasm' : 'wick.wasm'} (SIMD ${info.simd ? 'on' : 'off'}, ${info.wasmBytes} bytes), ${w.OP_COUNTS.functions} functions, ${w.OP_COUNTS.methods} methods`);
const fixture = JSON.parse(readFileSync(new URL('./api_cases.json', import.meta.url)));
const r = await runApiTests(w, { fixture, log: console.log });
console.log(apiSummary(info, fixture, r));
process.exit(r.failed ? 1 : 0);
