// The playground's local server (`make serve`): 127.0.0.1, COOP/COEP headers (tests/browser/server.mjs, so the page
// is cross-origin isolated: SharedArrayBuffer for Stop's interrupt buffer), offline. It builds build/web/ first
// (web/build.mjs: the bundled editor and the package wick/ as one JSON file) and serves /web/ (this folder), /js/
// (the JS API build), /pyodide/ (npm pyodide from tests/browser/node_modules), /bundle/ (build/web) and /data/
// (examples/data: the shipped digits).
// Run: node web/serve.mjs [build/js]   (prints the page's URL, serves until killed)
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { serve } from '../tests/browser/server.mjs';
import { buildWeb } from './build.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));

/** Builds build/web and starts the server; resolves to {url (the page), close()}. */
export async function servePlayground({ jsDir = 'build/js' } = {}) {
  const pyodideDir = join(root, 'tests/browser/node_modules/pyodide');
  if (!existsSync(join(pyodideDir, 'pyodide.mjs'))) throw new Error('npm pyodide is not installed in tests/browser/node_modules; run tools/install-test-deps.sh');
  const bundle = await buildWeb();
  const s = await serve({ jsDir: join(root, jsDir), root, extra: [['/pyodide/', pyodideDir], ['/web/', join(root, 'web')], ['/bundle/', bundle], ['/data/', join(root, 'examples/data')]] });
  return { url: `${s.url}/web/index.html`, close: s.close };
}

if (import.meta.url === pathToFileURL(process.argv[1] || '').href) {
  const { url } = await servePlayground({ jsDir: process.argv[2] || 'build/js' });
  console.log(`wick playground: ${url}`);
}
