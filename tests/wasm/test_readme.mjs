// Runs the example of js/README.md as written (its first ```js block, saved next to build/js/wick.mjs) and checks
// what it prints against the comments in the block.
// Run: node tests/wasm/test_readme.mjs build/js
import { readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { exampleBlock, missing as absent, WANT as want } from './readme_example.mjs';

const dir = resolve(process.argv[2] || 'build/js');
const md = readFileSync(new URL('../../js/README.md', import.meta.url), 'utf8');
const block = exampleBlock(md);
const file = resolve(dir, 'readme_example.mjs');
writeFileSync(file, block);
const out = execFileSync(process.execPath, ['--no-warnings', file], { encoding: 'utf8' });
const missing = absent(out);
if (missing.length) { console.log(out); console.log('README example: missing ' + JSON.stringify(missing)); process.exit(1); }
console.log('README example ran as written: ' + want.length + ' printed values as its comments say');
