// serve.js: a small static file server for the demo page and the browser tests.
//   node tools/serve.js [ROOT=web] [PORT=8000]
// Serves files under ROOT only (no directory escapes), with the right MIME types and no caching.
// Exported startServer() is used by the browser tests (port 0 picks a free one).
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.json': 'application/json', '.wasm': 'application/wasm', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.ico': 'image/x-icon', '.tsv': 'text/tab-separated-values; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8', '.map': 'application/json', '.txt': 'text/plain; charset=utf-8',
};

/** Starts a server for root; headers(urlPath) may add response headers (CSP tests). */
export function startServer({ root, port = 0, host = '127.0.0.1', headers = () => ({}) }) {
  const base = path.resolve(root);
  const server = http.createServer((req, res) => {
    let urlPath;
    try {
      urlPath = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch {
      res.writeHead(400).end('bad request');
      return;
    }
    let file = path.join(base, urlPath);
    if (file !== base && !file.startsWith(base + path.sep)) {
      res.writeHead(403).end('forbidden');
      return;
    }
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    fs.readFile(file, (error, body) => {
      if (error) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      res.writeHead(200, {
        'content-type': TYPES[path.extname(file).toLowerCase()] || 'application/octet-stream',
        'cache-control': 'no-store',
        ...headers(urlPath),
      });
      res.end(body);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve({ server, port: server.address().port,
      url: `http://${host}:${server.address().port}`, close: () => new Promise((r) => server.close(r)) }));
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const root = process.argv[2] || 'web';
  const port = Number(process.argv[3] || 8000);
  const { url } = await startServer({ root, port, host: '127.0.0.1' });
  console.log(`qkv-lab demo: ${url}/  (serving ${root}/, Ctrl-C stops)`);
}
