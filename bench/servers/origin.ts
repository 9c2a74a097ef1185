/**
 * The origin every scenario talks to (its own process): HTTP and HTTPS
 * (HTTP/1.1, certificate from the bench's Netlens CA, keep-alive).
 *   GET  /small             a small JSON document
 *   POST /echo              the request body echoed back
 *   GET  /download?bytes=N  N bytes streamed in 64 KiB chunks (backpressure respected)
 *   POST /upload            consumes the body, answers with its length
 * argv: <dataDir>
 */
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import { loadOrCreateCA } from '../../proxy/src/tls/ca.js';
import { ready } from '../lib/child.js';
import { exitOnHelp } from '../lib/usage.js';

exitOnHelp(`Usage: npx tsx bench/servers/origin.ts <dataDir>

A child process of "npm run bench", started and killed by it; it prints READY (or RESULT) JSON on stdout.
Run "npm run bench -- --help" for the benchmark itself.
`);

const SMALL = Buffer.from(
  JSON.stringify({ id: 42, name: 'netlens-bench', tags: ['a', 'b', 'c'], ok: true, items: [1, 2, 3, 4, 5, 6, 7, 8] }),
);
const CHUNK = Buffer.alloc(64 * 1024, 0x61);

const handler: http.RequestListener = (req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.pathname === '/small') {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': SMALL.length });
    res.end(SMALL);
  } else if (url.pathname === '/echo') {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/octet-stream', 'content-length': body.length });
      res.end(body);
    });
  } else if (url.pathname === '/download') {
    req.resume();
    let left = Number(url.searchParams.get('bytes') ?? 0);
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': left });
    const pump = () => {
      while (left > 0) {
        const n = Math.min(left, CHUNK.length);
        left -= n;
        if (!res.write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n))) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  } else if (url.pathname === '/upload') {
    let n = 0;
    req.on('data', (c: Buffer) => (n += c.length));
    req.on('end', () => {
      const body = JSON.stringify({ bytes: n });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
    });
  } else {
    res.writeHead(404).end();
  }
};

const dataDir = process.argv[2]!;
const ca = loadOrCreateCA(dataDir);
const { certPem, keyPem } = ca.issue(['localhost', '127.0.0.1']);
const plain = http.createServer({ keepAliveTimeout: 60_000 }, handler);
const secure = https.createServer({ cert: certPem, key: keyPem, keepAliveTimeout: 60_000 }, handler);
for (const s of [plain, secure]) s.on('connection', (sock: net.Socket) => sock.setNoDelay(true));
const listen = (s: net.Server) => new Promise<number>((r) => s.listen(0, '127.0.0.1', () => r((s.address() as net.AddressInfo).port)));
const [httpPort, httpsPort] = await Promise.all([listen(plain), listen(secure)]);
ready({ httpPort, httpsPort });
