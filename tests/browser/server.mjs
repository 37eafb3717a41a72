// A tiny static server for the browser tests: 127.0.0.1 only, a free port, no dependency. It serves the JS API
// (a build/js folder) at /js/ and, from the repository, the golden run's files (/tests/wasm/, the pinned goldens
// at /tests/parity/golden/) and this folder's page (/tests/browser/); anything else is 404. COOP same-origin +
// COEP require-corp make the page crossOriginIsolated (SharedArrayBuffer defined).
// Standalone: node tests/browser/server.mjs build/js   (prints the URL, serves until killed)
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { resolve, sep, extname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const TYPES = { '.mjs': 'text/javascript', '.js': 'text/javascript', '.html': 'text/html; charset=utf-8',
  '.wasm': 'application/wasm', '.json': 'application/json', '.gz': 'application/gzip', '.ts': 'text/plain' };
const HEADERS = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin', 'Cache-Control': 'no-store' };

/** Starts the server; resolves to {url, close()}. jsDir: the build/js folder; root: the repository. */
export function serve({ jsDir, root = fileURLToPath(new URL('../../', import.meta.url)), extra = [] }) {
  // URL prefix -> folder on disk (extra: [prefix, folder] pairs a runner adds, e.g. npm pyodide's folder)
  const mounts = [['/js/', resolve(jsDir)], ['/tests/wasm/', resolve(root, 'tests/wasm')],
    ['/tests/parity/golden/', resolve(root, 'tests/parity/golden')], ['/tests/browser/', resolve(root, 'tests/browser')],
    ['/tests/pyodide/', resolve(root, 'tests/pyodide')], ...extra.map(([p, d]) => [p, resolve(d), true])];
  const server = createServer(async (req, res) => {
    let path;
    try { path = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname); } catch { path = null; }
    const mount = path && mounts.find(([prefix]) => path.startsWith(prefix));
    const file = mount && resolve(mount[1], '.' + path.slice(mount[0].length - 1));
    // a file strictly inside the mounted folder, never node_modules (the driver's dependency) unless a runner mounted
    // that folder itself
    if (req.method !== 'GET' || !file || !file.startsWith(mount[1] + sep) ||
        (!mount[2] && file.includes(sep + 'node_modules' + sep))) {
      res.writeHead(404, HEADERS).end('not found');
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { ...HEADERS, 'Content-Type': TYPES[extname(file)] || 'application/octet-stream',
        'Content-Length': body.length }).end(body);
    } catch {
      res.writeHead(404, HEADERS).end('not found');
    }
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => ok({
      url: `http://127.0.0.1:${server.address().port}`,
      close: () => new Promise((done) => { server.closeAllConnections(); server.close(done); }),
    }));
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] || '').href) {
  const { url } = await serve({ jsDir: process.argv[2] || 'build/js' });
  console.log(`serving on ${url}/tests/browser/golden.html`);
}
