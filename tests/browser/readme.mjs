// Runs js/README.md's example as written (saved by run.mjs as /js/readme_example.mjs) in a fresh page, recording
// the arguments of each console.log call; run.mjs formats them as node would and checks them (readme_example.mjs).
const calls = [];
const log = console.log;
console.log = (...args) => { calls.push(args.map((a) => (typeof a === 'bigint' ? String(a) : a))); log(...args); };
try {
  await import('/js/readme_example.mjs');
  window.readmeResult = { calls };
} catch (e) {
  window.readmeResult = { error: String(e && e.stack || e) };
} finally { console.log = log; }
