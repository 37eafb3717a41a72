// Builds the playground's generated files into build/web/ (served at /bundle/ by web/serve.mjs), offline:
// - editor.js: web/editor.mjs with CodeMirror 6 bundled by esbuild (both from npm in tests/browser/node_modules);
// - wick-py.json: the package wick/ and web/plot.py as [[path, text], ...], written into Pyodide's file system.
// Run: node web/build.mjs   (also run by web/serve.mjs before it serves)
import { readFileSync, readdirSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const modules = join(root, 'tests/browser/node_modules');

/** The package's .py files as [path under wick's parent, text]. */
export function packageFiles() {
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) { if (name !== '__pycache__') walk(p); }
      else if (name.endsWith('.py')) out.push([relative(root, p), readFileSync(p, 'utf8')]);
    }
  };
  walk(join(root, 'wick'));
  out.push(['plot.py', readFileSync(join(root, 'web/plot.py'), 'utf8')]); // the playground's plotting API
  return out;
}

/** Writes build/web/{editor.js, wick-py.json}; returns that folder. */
export async function buildWeb() {
  let esbuild;
  try { esbuild = createRequire(join(root, 'tests/browser/package.json'))('esbuild'); } catch (e) {
    throw new Error(`web/build.mjs: npm esbuild is not installed in tests/browser/node_modules (${e.message.split('\n')[0]}); run tools/install-test-deps.sh`);
  }
  const out = join(root, 'build/web');
  mkdirSync(out, { recursive: true });
  await esbuild.build({ entryPoints: [join(root, 'web/editor.mjs')], bundle: true, format: 'esm', minify: true,
    outfile: join(out, 'editor.js'), nodePaths: [modules], logLevel: 'warning', legalComments: 'none' });
  writeFileSync(join(out, 'wick-py.json'), JSON.stringify(packageFiles()));
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] || '').href) {
  const out = await buildWeb();
  for (const f of readdirSync(out).sort()) console.log(`${relative(root, join(out, f))}: ${statSync(join(out, f)).size} bytes`);
}
