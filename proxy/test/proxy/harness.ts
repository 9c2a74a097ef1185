/**
 * Test harness for the proxy: local origins (HTTP, HTTPS HTTP/1.1-only, HTTPS
 * h2+h1) that count the connections they accept, curl as a real client, and a
 * collector of the proxy's events.
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { loadOrCreateCA, type CertificateAuthority } from '../../src/tls/ca.js';
import { startProxy, type ProxyHandle } from '../../src/server/proxy-server.js';
import type { Exchange, ProxyEvent } from '../../src/model.js';
import type { ProxyOptions } from '../../src/options.js';

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-test-'));
}

export type Handler = (req: http.IncomingMessage | http2.Http2ServerRequest, res: http.ServerResponse | http2.Http2ServerResponse) => void;

export interface Origin {
  port: number;
  url: string;
  /** TCP connections accepted so far. */
  connections: number;
  /** TLS handshakes completed so far (HTTPS origins). */
  secureConnections: number;
  /** Raw headers of the last request, as the origin saw them. */
  lastRawHeaders: string[];
  close(): Promise<void>;
}

/** Default handler: echoes method, URL, protocol and request body as JSON. */
export const echo: Handler = (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const out = JSON.stringify({
      method: req.method,
      url: req.url,
      httpVersion: req.httpVersion,
      bodyLength: body.length,
      bodySha: body.length ? crypto.createHash('sha256').update(body).digest('hex') : '',
    });
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('X-Origin-Case', 'Kept');
    res.end(out);
  });
};

function track(server: net.Server, origin: Origin): void {
  server.on('connection', () => origin.connections++);
  server.on('secureConnection', () => origin.secureConnections++);
}

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as net.AddressInfo).port;
}

function makeOrigin(server: net.Server, scheme: string, sockets: Set<net.Socket>): Origin {
  const origin: Origin = {
    port: 0,
    url: '',
    connections: 0,
    secureConnections: 0,
    lastRawHeaders: [],
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
  track(server, origin);
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('request', (req: http.IncomingMessage) => (origin.lastRawHeaders = req.rawHeaders));
  void scheme;
  return origin;
}

export async function httpOrigin(handler: Handler = echo): Promise<Origin> {
  const server = http.createServer(handler as http.RequestListener);
  const origin = makeOrigin(server, 'http', new Set());
  origin.port = await listen(server);
  origin.url = `http://127.0.0.1:${origin.port}`;
  return origin;
}

/** HTTPS origin with a certificate from the Netlens CA; h2 + http/1.1 by ALPN, or http/1.1 only. */
/** `settings`: the HTTP/2 SETTINGS the origin sends (h2 only). */
export async function httpsOrigin(
  ca: CertificateAuthority,
  opts: { h2: boolean; settings?: http2.Settings },
  handler: Handler = echo,
): Promise<Origin> {
  const { certPem, keyPem } = ca.issue(['localhost', '127.0.0.1']);
  const server = opts.h2
    ? http2.createSecureServer(
        { cert: certPem, key: keyPem, allowHTTP1: true, ...(opts.settings ? { settings: opts.settings } : {}) },
        handler as never,
      )
    : https.createServer({ cert: certPem, key: keyPem }, handler as http.RequestListener);
  const sockets = new Set<net.Socket>();
  const origin = makeOrigin(server, 'https', sockets);
  origin.port = await listen(server);
  origin.url = `https://localhost:${origin.port}`;
  return origin;
}

/**
 * An origin handler answering 200 "ok", and '/held/…' 100 ms later, so that requests pile up at the origin as far
 * as the proxy (or the client) lets them: `held.max` is the most held at once. `first` sees each request before.
 */
export function holdingHandler(first?: Handler): { handler: Handler; held: { now: number; max: number } } {
  const held = { now: 0, max: 0 };
  const handler: Handler = (req, res) => {
    first?.(req, res);
    req.resume();
    const answer = () => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    };
    if (!req.url?.startsWith('/held/')) return answer();
    held.max = Math.max(held.max, ++held.now);
    setTimeout(() => {
      held.now--;
      answer();
    }, 100);
  };
  return { handler, held };
}

export interface CurlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `n` GETs of `${originUrl}/p<i>` through the proxy at `proxyPort`, one after another on one keep-alive connection. */
export async function keepAliveGets(proxyPort: number, originUrl: string, n: number): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  for (let i = 0; i < n; i++) {
    await new Promise<void>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port: proxyPort, path: `${originUrl}/p${i}`, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve());
      });
      req.once('error', reject);
    });
  }
  agent.destroy();
}

export function curl(args: string[], timeoutMs = 15_000): Promise<CurlResult> {
  return new Promise((resolve) => {
    execFile('curl', ['-sS', '--max-time', String(timeoutMs / 1000), ...args], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

export interface TestProxy {
  proxy: ProxyHandle;
  events: ProxyEvent[];
  /** Final exchanges (complete or error events) in arrival order. */
  exchanges(): Exchange[];
  /** Waits until `n` exchanges have finished (bounded). */
  waitFor(n: number, timeoutMs?: number): Promise<Exchange[]>;
  stop(): Promise<void>;
}

export async function testProxy(options: ProxyOptions = {}): Promise<TestProxy> {
  const dataDir = options.dataDir ?? tempDataDir();
  const proxy = await startProxy({ port: 0, dataDir, ...options });
  const events: ProxyEvent[] = [];
  proxy.events.subscribe((e) => events.push(e));
  const exchanges = () => events.flatMap((e) => (e.type === 'complete' || e.type === 'error' ? [e.exchange] : []));
  return {
    proxy,
    events,
    exchanges,
    async waitFor(n, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (exchanges().length < n) {
        if (Date.now() > until) throw new Error(`expected ${n} exchanges, got ${exchanges().length}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      return exchanges();
    },
    stop: () => proxy.stop(),
  };
}

/** Whether a process with this PID still exists (signal 0 only checks). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export { loadOrCreateCA };

/**
 * A client connection to `localhost:originPort` through the proxy's interception (CONNECT, then TLS trusting `caPem`),
 * offering `alpn` (HTTP/1.1 unless told).
 */
export async function interceptedConnection(
  proxyPort: number,
  originPort: number,
  caPem: string,
  alpn: string[] = ['http/1.1'],
): Promise<tls.TLSSocket> {
  const tunnel = await new Promise<net.Socket>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: proxyPort, method: 'CONNECT', path: `localhost:${originPort}` });
    req.once('connect', (_res, socket) => resolve(socket));
    req.once('error', reject);
    req.end();
  });
  const socket = tls.connect({ socket: tunnel, servername: 'localhost', ALPNProtocols: alpn, ca: caPem });
  await new Promise((r) => socket.once('secureConnect', r));
  return socket;
}

/** Polls `cond` every 10 ms; throws when it does not hold within `ms`. */
export async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
