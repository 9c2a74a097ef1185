/**
 * The HTTP/1.1 upstream leg (undici, h1-client.ts): connection reuse and
 * identity, the ALPN probe's socket reused, Nagle, connections the origin
 * closes, HEAD, chunked uploads, 1xx, HTTP/1.0, aborts and refused requests.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { curl, echo, httpOrigin, loadOrCreateCA, tempDataDir, testProxy, type Origin, type TestProxy } from './harness.js';
import { UpstreamPool } from '../../src/upstream/pool.js';
import { sendUpstream } from '../../src/upstream/forward.js';
import type { ExchangeTimestamps } from '../../src/model.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as net.AddressInfo).port;
}

/** Sockets a server accepted that are still open. */
function openSockets(server: net.Server): Set<net.Socket> {
  const open = new Set<net.Socket>();
  server.on('connection', (s: net.Socket) => {
    open.add(s);
    s.on('close', () => open.delete(s));
  });
  return open;
}

async function until(cond: () => boolean, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await sleep(10);
  return cond();
}

/** A raw HTTP/1.x origin: answers every request head with `response(n)` (n = request count). */
async function rawOrigin(
  response: (n: number, socket: net.Socket) => void,
): Promise<{ port: number; server: net.Server; connections: () => number }> {
  let connections = 0;
  let n = 0;
  const server = net.createServer((s) => {
    connections++;
    let buf = '';
    s.on('data', (d) => {
      buf += d.toString('latin1');
      while (buf.includes('\r\n\r\n')) {
        buf = buf.slice(buf.indexOf('\r\n\r\n') + 4);
        response(++n, s);
      }
    });
    s.on('error', () => {});
  });
  const port = await listen(server);
  return { port, server, connections: () => connections };
}

let tp: TestProxy;
let origin: Origin;

beforeAll(async () => {
  tp = await testProxy();
  origin = await httpOrigin((req, res) => {
    const url = req.url ?? '';
    if (url.startsWith('/close')) {
      res.setHeader('Connection', 'close');
      res.end('closing');
    } else if (url.startsWith('/head')) {
      res.setHeader('Content-Length', '1234');
      res.setHeader('X-Head', 'yes');
      if (req.method === 'HEAD') res.end();
      else res.end('x'.repeat(1234));
    } else if (url.startsWith('/mirror')) {
      // Echoes the request body back as it arrives.
      res.setHeader('Content-Type', 'application/octet-stream');
      (req as http.IncomingMessage).pipe(res as http.ServerResponse);
    } else if (url.startsWith('/hints')) {
      (res as http.ServerResponse).writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
      res.end('after hints');
    } else {
      echo(req, res);
    }
  });
});
afterAll(async () => {
  await tp.stop();
  await origin.close();
});

const lastFor = (path: string) => tp.exchanges().filter((x) => x.request.url.includes(path));

describe('HTTP/1.1 upstream (undici)', () => {
  it('reuses one connection for sequential requests: same connection id, only the first is new and reports connect', async () => {
    const before = origin.connections;
    for (let i = 0; i < 5; i++) {
      const r = await curl(['-x', tp.proxy.address.url, `${origin.url}/reuse/${i}`]);
      expect(r.code, r.stderr).toBe(0);
    }
    await tp.waitFor(5);
    const xs = lastFor('/reuse/');
    expect(xs).toHaveLength(5);
    expect(new Set(xs.map((x) => x.upstreamConnectionId)).size).toBe(1);
    expect(xs.map((x) => x.upstreamConnectionNew)).toEqual([true, false, false, false, false]);
    expect(xs[0].timings.connect).toBeGreaterThanOrEqual(0);
    expect(xs.slice(1).every((x) => x.timings.connect === -1 && x.timings.dns === -1)).toBe(true);
    expect(xs.every((x) => x.timings.send >= 0 && x.timings.wait >= 0 && x.timings.receive >= 0)).toBe(true);
    expect(xs.every((x) => x.upstreamProtocol === 'http/1.1' && x.serverIPAddress === '127.0.0.1')).toBe(true);
    expect(origin.connections - before).toBeLessThanOrEqual(1);
  });

  it('a response with Connection: close is not reused; the next request opens a new connection and succeeds', async () => {
    const a = await curl(['-x', tp.proxy.address.url, `${origin.url}/close`]);
    expect(a.stdout).toBe('closing');
    const b = await curl(['-x', tp.proxy.address.url, `${origin.url}/after-close`]);
    expect(b.code, b.stderr).toBe(0);
    expect(JSON.parse(b.stdout).url).toBe('/after-close');
    const n = tp.exchanges().length;
    await tp.waitFor(n);
    const [x1] = lastFor('/close');
    const [x2] = lastFor('/after-close');
    expect(x1.error).toBeUndefined();
    expect(x2.error).toBeUndefined();
    expect(x2.upstreamConnectionId).not.toBe(x1.upstreamConnectionId);
    expect(x2.upstreamConnectionNew).toBe(true);
  });

  it('HEAD: headers forwarded without a body, and the connection stays usable', async () => {
    const r = await curl(['-x', tp.proxy.address.url, '-I', `${origin.url}/head`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^HTTP\/1\.1 200/);
    expect(r.stdout).toMatch(/\r\nContent-Length: 1234\r\n/i);
    expect(r.stdout).toMatch(/\r\nX-Head: yes\r\n/);
    const g = await curl(['-x', tp.proxy.address.url, `${origin.url}/head-then-get`]);
    expect(g.code, g.stderr).toBe(0);
    await until(() => lastFor('/head-then-get').length === 1);
    const [head] = lastFor('/head').filter((x) => x.request.method === 'HEAD');
    const [get] = lastFor('/head-then-get');
    expect(head.response?.status).toBe(200);
    expect(head.response?.body.size).toBe(0);
    expect(get.upstreamConnectionId).toBe(head.upstreamConnectionId);
  });

  it('streams a 256 KiB chunked upload (no Content-Length) upstream and back intact, capturing it', async () => {
    const body = crypto.randomBytes(256 * 1024);
    const res = await new Promise<{ status: number; data: Buffer }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: tp.proxy.address.port, method: 'POST', path: `${origin.url}/mirror` }, (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => resolve({ status: r.statusCode ?? 0, data: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      let i = 0;
      const writeMore = () => {
        // Paced writes: the proxy must forward while the body is still arriving.
        if (i >= body.length) return req.end();
        req.write(body.subarray(i, (i += 16 * 1024)));
        setTimeout(writeMore, 2);
      };
      writeMore();
    });
    expect(res.status).toBe(200);
    expect(res.data.equals(body)).toBe(true);
    await until(() => lastFor('/mirror').length === 1);
    const [x] = lastFor('/mirror');
    expect(x.request.headers.some(([k]) => k.toLowerCase() === 'transfer-encoding')).toBe(true);
    expect(x.request.body.size).toBe(body.length);
    expect(x.response?.body.size).toBe(body.length);
    expect(x.timings.send).toBeGreaterThanOrEqual(0);
  });

  it('skips 1xx informational responses (103 Early Hints) and forwards the final response', async () => {
    const r = await curl(['-x', tp.proxy.address.url, '-w', '\n%{http_code}', `${origin.url}/hints`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('after hints\n200');
  });

  it('forwards Expect: 100-continue uploads (the expectation is met on the client leg, not sent upstream)', async () => {
    const body = crypto.randomBytes(64 * 1024);
    const res = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: tp.proxy.address.port,
          method: 'POST',
          path: `${origin.url}/expect2`,
          headers: { Expect: '100-continue', 'Content-Length': body.length },
        },
        (res2) => {
          let text = '';
          res2.on('data', (d) => (text += d));
          res2.on('end', () => resolve({ status: res2.statusCode ?? 0, text }));
        },
      );
      req.on('continue', () => req.end(body));
      req.on('error', reject);
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).bodyLength).toBe(body.length);
  });

  it('reports an HTTP/1.0 origin as http/1.0', async () => {
    const o = await rawOrigin((_n, s) => s.end('HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nold'));
    try {
      const r = await curl(['-x', tp.proxy.address.url, `http://127.0.0.1:${o.port}/old`]);
      expect(r.stdout).toBe('old');
      await until(() => lastFor(`:${o.port}/old`).length === 1);
      const [x] = lastFor(`:${o.port}/old`);
      expect(x.upstreamProtocol).toBe('http/1.0');
      expect(x.error).toBeUndefined();
    } finally {
      o.server.close();
    }
  });

  it('an origin that closes idle keep-alive connections: the next request opens a new one and succeeds', async () => {
    // Closes each connection 100 ms after answering, without announcing a Keep-Alive timeout.
    const o = await rawOrigin((n, s) => {
      s.write(`HTTP/1.1 200 OK\r\nContent-Length: ${String(n).length}\r\n\r\n${n}`);
      setTimeout(() => s.end(), 100);
    });
    // And Node's own server with a short keepAliveTimeout (it announces Keep-Alive: timeout=0).
    const node = http.createServer((_req, res) => res.end('node'));
    node.keepAliveTimeout = 50;
    const nodePort = await listen(node);
    try {
      for (let i = 0; i < 3; i++) {
        const r = await curl(['-x', tp.proxy.address.url, `http://127.0.0.1:${o.port}/idle/${i}`]);
        expect(r.code, r.stderr).toBe(0);
        const q = await curl(['-x', tp.proxy.address.url, `http://127.0.0.1:${nodePort}/idle/${i}`]);
        expect(q.stdout).toBe('node');
        await sleep(250);
      }
      await until(() => lastFor('/idle/').length === 6);
      const xs = lastFor('/idle/');
      expect(xs.every((x) => !x.error && x.response?.status === 200)).toBe(true);
      // Each went out on a fresh connection, transparently (no retries needed).
      expect(xs.every((x) => x.upstreamConnectionNew && x.retries === 0)).toBe(true);
      expect(o.connections()).toBe(3);
    } finally {
      o.server.close();
      node.close();
    }
  });

  it('client aborting mid-response destroys the upstream request: no upstream socket stays open', async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      const timer = setInterval(() => res.write('x'.repeat(1024)), 10);
      res.on('close', () => clearInterval(timer));
    });
    const open = openSockets(server);
    const port = await listen(server);
    try {
      await new Promise<void>((resolve, reject) => {
        const req = http.get({ host: '127.0.0.1', port: tp.proxy.address.port, path: `http://127.0.0.1:${port}/endless` }, (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(e)));
      });
      expect(await until(() => open.size === 0)).toBe(true);
      await until(() => lastFor('/endless').length === 1);
      expect(lastFor('/endless')[0].error?.code).toBe('NL_CLIENT_ABORTED');
      // The proxy still serves that origin (a new connection).
      const r = await curl(['-x', tp.proxy.address.url, '-r', '0-9', '--max-time', '0.3', `http://127.0.0.1:${port}/again`]);
      expect(r.stdout.length).toBeGreaterThan(0);
    } finally {
      for (const s of open) s.destroy();
      server.close();
    }
  });

  it('two Host headers get 400 from the proxy (RFC 9112 §3.2), recorded as a client error, and the proxy keeps serving', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const s = net.connect(tp.proxy.address.port, '127.0.0.1', () =>
        s.write(`GET ${origin.url}/two-hosts HTTP/1.1\r\nHost: 127.0.0.1:${origin.port}\r\nHost: other.example\r\n\r\n`),
      );
      let out = '';
      s.on('data', (d) => (out += d));
      s.on('close', () => resolve(out));
      s.on('error', reject);
      s.setTimeout(5000, () => s.destroy());
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    await until(() => lastFor('/two-hosts').length === 1);
    const [x] = lastFor('/two-hosts');
    expect(x.error).toMatchObject({ code: 'NL_CLIENT_MALFORMED', side: 'client' });
    expect(x.error?.message).toMatch(/2 Host headers/);
    expect(x.response).toBeUndefined();
    const r = await curl(['-x', tp.proxy.address.url, `${origin.url}/still-fine`]);
    expect(r.code, r.stderr).toBe(0);
  });

  it('proxy.stop() closes idle pooled upstream connections', async () => {
    const server = http.createServer((_req, res) => res.end('ok'));
    const open = openSockets(server);
    const port = await listen(server);
    const own = await testProxy();
    try {
      const r = await curl(['-x', own.proxy.address.url, `http://127.0.0.1:${port}/pooled`]);
      expect(r.stdout).toBe('ok');
      expect(open.size).toBe(1);
      await own.stop();
      expect(await until(() => open.size === 0)).toBe(true);
    } finally {
      server.close();
    }
  });
});

describe('HTTPS HTTP/1.1 origin with HTTP/2 on', () => {
  it("uses the ALPN probe's socket for the first request: one TLS handshake for several requests", async () => {
    const dataDir = tempDataDir();
    const ca = loadOrCreateCA(dataDir);
    const { certPem, keyPem } = ca.issue(['localhost', '127.0.0.1']);
    const server = https.createServer({ cert: certPem, key: keyPem }, (req, res) => res.end(`hello ${req.url}`));
    let handshakes = 0;
    server.on('secureConnection', () => handshakes++);
    const open = openSockets(server);
    const port = await listen(server);
    const own = await testProxy({ dataDir, http2: true });
    try {
      for (let i = 0; i < 3; i++) {
        const r = await curl(['-x', own.proxy.address.url, '--cacert', ca.certPath, `https://localhost:${port}/p${i}`]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toBe(`hello /p${i}`);
      }
      const xs = await own.waitFor(3);
      expect(handshakes).toBe(1);
      expect(xs.map((x) => x.upstreamProtocol)).toEqual(['http/1.1', 'http/1.1', 'http/1.1']);
      expect(new Set(xs.map((x) => x.upstreamConnectionId)).size).toBe(1);
      expect(xs.map((x) => x.upstreamConnectionNew)).toEqual([true, false, false]);
      expect(xs[0].timings.ssl).toBeGreaterThanOrEqual(0);
      expect(xs[0].timings.connect).toBeGreaterThanOrEqual(xs[0].timings.ssl);
      expect(xs[1].timings.ssl).toBe(-1);
    } finally {
      await own.stop();
      for (const s of open) s.destroy();
      server.close();
    }
  });
});

describe('Nagle on upstream HTTP/1.1 sockets', () => {
  afterEach(() => vi.restoreAllMocks());

  for (const nagle of [true, false]) {
    it(`nagle: ${nagle} → setNoDelay(${!nagle}) on the upstream socket, and nothing turns it back`, async () => {
      const server = http.createServer((_req, res) => res.end('ok'));
      const port = await listen(server);
      const calls: Array<{ local: number | undefined; noDelay: boolean | undefined; socket: net.Socket }> = [];
      const original = net.Socket.prototype.setNoDelay;
      vi.spyOn(net.Socket.prototype, 'setNoDelay').mockImplementation(function (this: net.Socket, noDelay?: boolean) {
        calls.push({ local: this.localPort, noDelay, socket: this });
        return original.call(this, noDelay);
      });
      const pool = new UpstreamPool({ nagle, http2: false, rejectUnauthorized: true });
      try {
        for (let i = 0; i < 2; i++) {
          const timestamps = { start: performance.now() } as ExchangeTimestamps;
          const res = await sendUpstream(pool, {
            method: 'GET',
            url: new URL(`http://127.0.0.1:${port}/n${i}`),
            headers: [['Host', `127.0.0.1:${port}`]],
            body: null,
            timestamps,
            timeoutMs: 5000,
            retries: 0,
          });
          const chunks: Buffer[] = [];
          for await (const c of res.body) chunks.push(c as Buffer);
          expect(Buffer.concat(chunks).toString()).toBe('ok');
        }
        // The origin's accepted sockets (local port = the origin's) are not ours to judge.
        const ours = calls.filter((c) => c.local !== port);
        expect(new Set(ours.map((c) => c.socket)).size).toBe(1);
        expect(ours.map((c) => c.noDelay)).toEqual([!nagle]);
      } finally {
        pool.close();
        server.close();
      }
    });
  }
});
