/** A local origin server for e2e traffic, and plain-HTTP requests through the proxy. */
import http from 'node:http';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';

// A 1×1 PNG: the Details pane must show it as an image.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

export async function origin(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url === '/api/items.json') {
      const body = zlib.gzipSync(
        JSON.stringify({
          items: [
            { id: 1, name: 'first' },
            { id: 2, name: 'second' },
          ],
          total: 2,
        }),
      );
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-netlens-test': 'yes' });
      res.end(body);
    } else if (req.url === '/pixel.png') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(PNG);
    } else if (req.url === '/submit') {
      let n = 0;
      req.on('data', (c) => (n += c.length));
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'text/plain' });
        res.end(`got ${n} bytes`);
      });
    } else if (req.url === '/slow') {
      setTimeout(() => res.end('slow'), 300);
    } else {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<h1>Not here</h1>');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

/** One request through the proxy in absolute form (what browsers do for http:// URLs). */
export function viaProxy(proxyUrl: string, url: string, method = 'GET', body?: string): Promise<number> {
  const p = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: p.hostname,
        port: p.port,
        method,
        path: url,
        headers: { host: new URL(url).host, 'user-agent': 'netlens-e2e', ...(body ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
