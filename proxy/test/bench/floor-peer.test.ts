/**
 * The HTTP/2 floor the bench runs as a lab external proxy (bench/peers/node-minimal-h2-mitm.ts): it must intercept
 * HTTP/2 clients over HTTP/2 and HTTP/1.1-only clients (the lab's h1 via cell) over HTTP/1.1, and close its upstream
 * connection when its last client connection closes (or just ends, as a browser's does), so every lab run through it
 * opens its own, as a fresh Netlens does.
 * With `h1-upstream` (the large-body phase's floor for curl's HTTP/2 leg) it forwards HTTP/2 streams over HTTP/1.1.
 */
import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChild, tsArgs, type Child } from '../../../bench/lib/child.js';
import { loadOrCreateCA, type CertificateAuthority } from '../../src/tls/ca.js';

let dataDir: string;
let ca: CertificateAuthority;
let origin: http2.Http2SecureServer;
let originPort: number;
let floor: Child<{ port: number }>;
let floorH1Upstream: Child<{ port: number }>;
const upstream: tls.TLSSocket[] = [];

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-floor-peer-'));
  ca = loadOrCreateCA(dataDir);
  const { certPem, keyPem } = ca.hostCredentials('127.0.0.1');
  origin = http2.createSecureServer({ cert: certPem, key: keyPem, allowHTTP1: true }, (req, res) => {
    let bytes = 0;
    req.on('data', (d: Buffer) => (bytes += d.length));
    req.on('end', () => res.end(`origin ${req.httpVersion}${req.method === 'POST' ? ` ${bytes} bytes` : ''}`));
  });
  origin.on('secureConnection', (s: tls.TLSSocket) => upstream.push(s));
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  originPort = (origin.address() as net.AddressInfo).port;
  const [cmd, args] = tsArgs('peers/node-minimal-h2-mitm.ts', [dataDir]);
  floor = await startChild<{ port: number }>('floor', cmd, args);
  const [cmd2, args2] = tsArgs('peers/node-minimal-h2-mitm.ts', [dataDir, 'h1-upstream']);
  floorH1Upstream = await startChild<{ port: number }>('floor (h1-upstream)', cmd2, args2);
}, 30_000);

afterAll(async () => {
  await floor?.kill();
  await floorH1Upstream?.kill();
  origin?.close();
  for (const s of upstream) s.destroy();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** A TLS connection to the origin through the floor's CONNECT tunnel, offering `alpn`. */
function tunnel(alpn: string[], via = floor): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const authority = `127.0.0.1:${originPort}`;
    const req = http.request({ host: '127.0.0.1', port: via.info.port, method: 'CONNECT', path: authority });
    req.once('connect', (res, socket) => {
      expect(res.statusCode).toBe(200);
      const t = tls.connect({ socket, host: '127.0.0.1', ALPNProtocols: alpn, ca: ca.certPem });
      t.once('secureConnect', () => resolve(t));
      t.once('error', reject);
    });
    req.once('error', reject);
    req.end();
  });
}

describe('bench floor peer (node:http2 minimal MITM)', () => {
  it('intercepts HTTP/2 over HTTP/2, then HTTP/1.1 over HTTP/1.1 on a new upstream connection', async () => {
    const t2 = await tunnel(['h2', 'http/1.1']);
    expect(t2.alpnProtocol).toBe('h2');
    const session = http2.connect(`https://127.0.0.1:${originPort}`, { createConnection: () => t2 });
    const body2 = await new Promise<string>((resolve, reject) => {
      const s = session.request({ ':path': '/' });
      let body = '';
      s.on('data', (d: Buffer) => (body += d));
      s.once('end', () => resolve(body));
      s.once('error', reject);
    });
    expect(body2).toBe('origin 2.0');
    expect(upstream).toHaveLength(1);
    const upstreamClosed = new Promise((resolve) => upstream[0].once('close', resolve));
    session.close();
    // The floor's last client connection closed: so does its upstream one (the test times out otherwise).
    await upstreamClosed;

    const t1 = await tunnel(['http/1.1']);
    expect(t1.alpnProtocol).toBe('http/1.1');
    const body1 = await new Promise<string>((resolve, reject) => {
      const req = https.get({ host: '127.0.0.1', port: originPort, path: '/', createConnection: () => t1 }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d));
        res.once('end', () => resolve(body));
      });
      req.once('error', reject);
    });
    expect(body1).toBe('origin 1.1');
    expect(upstream).toHaveLength(2);
    t1.destroy();
  }, 30_000);

  it('with h1-upstream, forwards an HTTP/2 stream and its body over HTTP/1.1', async () => {
    const t = await tunnel(['h2', 'http/1.1'], floorH1Upstream);
    expect(t.alpnProtocol).toBe('h2');
    const session = http2.connect(`https://127.0.0.1:${originPort}`, { createConnection: () => t });
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const s = session.request({ ':path': '/upload', ':method': 'POST' });
      let status = 0;
      let body = '';
      s.once('response', (h) => (status = Number(h[':status'])));
      s.on('data', (d: Buffer) => (body += d));
      s.once('end', () => resolve({ status, body }));
      s.once('error', reject);
      s.end(Buffer.alloc(3 << 20, 0x61));
    });
    session.close();
    expect(answer).toEqual({ status: 200, body: `origin 1.1 ${3 << 20} bytes` });
  }, 30_000);

  it('closes its upstream connection when its last client ends the connection without a GOAWAY, as a closing browser does', async () => {
    const before = upstream.length;
    const t = await tunnel(['h2', 'http/1.1']);
    const session = http2.connect(`https://127.0.0.1:${originPort}`, { createConnection: () => t });
    session.on('error', () => {});
    await new Promise<void>((resolve, reject) => {
      const s = session.request({ ':path': '/' });
      s.resume();
      s.once('end', resolve);
      s.once('error', reject);
    });
    expect(upstream).toHaveLength(before + 1);
    const upstreamClosed = new Promise((resolve) => upstream[before].once('close', resolve));
    // No session.close(): the connection just ends. node:http2 keeps such a session open on the floor's side, and the
    // floor once kept its upstream connection warm for the next lab run because of it (the test times out then).
    t.destroy();
    await upstreamClosed;
  }, 30_000);
});
