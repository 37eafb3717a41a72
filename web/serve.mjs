// The playground's local server (`make serve`): 127.0.0.1, COOP/COEP headers (tests/browser/server.mjs), offline.
// It writes the package wick/ as one JSON bundle (build/web/wick-py.json: [[path, text], ...]) and serves
// /web/ (this folder), /js/ (the JS API build), /pyodide/ (npm pyodide from tests/browser/node_modules) and
// /bundle/ (build/web). Run: node web/serve.mjs [build/js]   (prints the page's URL, serves until killed)
import { readFileSync, readdirSync, statSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { serve } from '../tests/browser/server.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));

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
  return out;
}

/** Writes the bundle and starts the server; resolves to {url (the page), close()}. */
export async function servePlayground({ jsDir = 'build/js' } = {}) {
  const pyodideDir = join(root, 'tests/browser/node_modules/pyodide');
  if (!existsSync(join(pyodideDir, 'pyodide.mjs'))) throw new Error('npm pyodide is not installed in tests/browser/node_modules; run tools/install-test-deps.sh');
  const bundle = join(root, 'build/web');
  mkdirSync(bundle, { recursive: true });
  writeFileSync(join(bundle, 'wick-py.json'), JSON.stringify(packageFiles()));
  const s = await serve({ jsDir: join(root, jsDir), root, extra: [['/pyodide/', pyodideDir], ['/web/', join(root, 'web')], ['/bundle/', bundle]] });
  return { url: `${s.url}/web/index.html`, close: s.close };
}

if (import.meta.url === pathToFileURL(process.argv[1] || '').href) {
  const { url } = await servePlayground({ jsDir: process.argv[2] || 'build/js' });
  console.log(`wick playground: ${url}`);
}
