/** CONNECT: TLS interception (HTTP/1.1 and HTTP/2 on each leg) and blind tunnels. */
import crypto from 'node:crypto';
import http from 'node:http';
import http2 from 'node:http2';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { curl, httpsOrigin, loadOrCreateCA, tempDataDir, testProxy, type Origin, type TestProxy } from './harness.js';
import type { CertificateAuthority } from '../../src/tls/ca.js';

let dataDir: string;
let ca: CertificateAuthority;
let h2Origin: Origin;
let h1Origin: Origin;

beforeAll(async () => {
  dataDir = tempDataDir();
  ca = loadOrCreateCA(dataDir);
  h2Origin = await httpsOrigin(ca, { h2: true });
  h1Origin = await httpsOrigin(ca, { h2: false });
});
afterAll(async () => {
  await h2Origin.close();
  await h1Origin.close();
});

describe('TLS interception', () => {
  let tp: TestProxy;
  beforeAll(async () => (tp = await testProxy({ dataDir })));
  afterAll(() => tp.stop());

  it('serves h2 to an h2 client and talks h2 to an h2 origin', async () => {
    const r = await curl(['-x', tp.proxy.address.url, '--cacert', ca.certPath, '--http2', '-w', '\n%{http_version}', `${h2Origin.url}/a`]);
    expect(r.code, r.stderr).toBe(0);
    const [body, version] = r.stdout.split('\n');
    expect(version).toBe('2');
    expect(JSON.parse(body).httpVersion).toBe('2.0');
    const x = (await tp.waitFor(1)).at(-1)!;
    expect(x).toMatchObject({ transport: 'intercepted', clientProtocol: 'h2', upstreamProtocol: 'h2' });
    expect(x.request.url).toBe(`${h2Origin.url}/a`);
    expect(x.timings.ssl).toBeGreaterThanOrEqual(0);
    expect(x.timings.connect).toBeGreaterThanOrEqual(x.timings.ssl);
  });

  // The upstream HTTP/2 request gets one of two shared, frozen option objects (forward.ts): a GET ends its stream on
  // the HEADERS frame, a request with a body keeps it open for the body, and a body-less POST still ends it.
  it('forwards GET, POST with a body and POST without one to an h2 origin, each framed as the client sent it', async () => {
    const send = (args: string[], path: string) =>
      curl(['-x', tp.proxy.address.url, '--cacert', ca.certPath, '--http2', ...args, `${h2Origin.url}${path}`]);
    const payload = 'x'.repeat(70_000);
    const before = (await tp.waitFor(0)).length;
    const [get, post, empty] = [
      await send([], '/get'),
      await send(['--data-binary', payload, '-H', 'Content-Type: text/plain'], '/post'),
      await send(['-X', 'POST'], '/empty'),
    ];
    for (const r of [get, post, empty]) expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(get.stdout)).toMatchObject({ method: 'GET', bodyLength: 0 });
    expect(JSON.parse(post.stdout)).toMatchObject({
      method: 'POST',
      bodyLength: payload.length,
      bodySha: crypto.createHash('sha256').update(payload).digest('hex'),
    });
    expect(JSON.parse(empty.stdout)).toMatchObject({ method: 'POST', bodyLength: 0 });
    const xs = (await tp.waitFor(before + 3)).slice(before, before + 3);
    expect(xs.map((x) => [x.request.method, x.upstreamProtocol, x.error?.code])).toEqual([
      ['GET', 'h2', undefined],
      ['POST', 'h2', undefined],
      ['POST', 'h2', undefined],
    ]);
  });

  it('serves HTTP/1.1 to an HTTP/1.1 client and falls back to HTTP/1.1 for an HTTP/1.1-only origin', async () => {
    const r = await curl([
      '-x',
      tp.proxy.address.url,
      '--cacert',
      ca.certPath,
      '--http1.1',
      '-w',
      '\n%{http_version}',
      `${h1Origin.url}/b`,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const [body, version] = r.stdout.split('\n');
    expect(version).toBe('1.1');
    expect(JSON.parse(body).httpVersion).toBe('1.1');
    const n = tp.exchanges().length;
    const x = (await tp.waitFor(n)).at(-1)!;
    expect(x).toMatchObject({ clientProtocol: 'http/1.1', upstreamProtocol: 'http/1.1', transport: 'intercepted' });
  });

  it('issues a certificate for an IP-address target (no SNI) that the client accepts', async () => {
    const r = await curl(['-x', tp.proxy.address.url, '--cacert', ca.certPath, `https://127.0.0.1:${h2Origin.port}/ip`]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).url).toBe('/ip');
  });

  it('records a clear error when the client does not trust the CA', async () => {
    const r = await curl(['-x', tp.proxy.address.url, `${h2Origin.url}/untrusted`]);
    expect(r.code).toBe(60); // curl: peer certificate cannot be authenticated
    const deadline = Date.now() + 5000;
    let x;
    while (!(x = tp.exchanges().find((e) => e.error?.code === 'NL_CLIENT_TLS')) && Date.now() < deadline)
      await new Promise((res) => setTimeout(res, 20));
    expect(x?.error?.message).toMatch(/trust the Netlens CA/);
  });

  it('streams a 2 MiB response body through h2 → h2 intact', async () => {
    const big = await httpsOrigin(ca, { h2: true }, (_req, res) => {
      const payload = Buffer.alloc(2 * 1024 * 1024, 7);
      res.setHeader('x-sha', crypto.createHash('sha256').update(payload).digest('hex'));
      res.end(payload);
    });
    try {
      const r = await curl([
        '-x',
        tp.proxy.address.url,
        '--cacert',
        ca.certPath,
        '--http2',
        '-D',
        '-',
        '-o',
        '/dev/null',
        '-w',
        '%{size_download}',
        `${big.url}/big`,
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.trim().endsWith(String(2 * 1024 * 1024))).toBe(true);
    } finally {
      await big.close();
    }
  });

  it('opens a 15 MiB connection and an 8 MiB stream receive window to h2 clients (uploads do not stall on WINDOW_UPDATEs)', async () => {
    const target = new URL(h2Origin.url);
    const tunnel = await new Promise<import('node:net').Socket>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: tp.proxy.address.port, method: 'CONNECT', path: target.host });
      req.once('connect', (_res, socket) => resolve(socket));
      req.once('error', reject);
      req.end();
    });
    const tlsSocket = tls.connect({ socket: tunnel, servername: target.hostname, ALPNProtocols: ['h2'], ca: ca.certPem });
    const client = http2.connect(h2Origin.url, { createConnection: () => tlsSocket });
    try {
      const body = await new Promise<string>((resolve, reject) => {
        const stream = client.request({ ':path': '/window' });
        let text = '';
        stream.setEncoding('utf8');
        stream.on('data', (d) => (text += d));
        stream.on('end', () => resolve(text));
        stream.on('error', reject);
      });
      expect(body).toContain('/window');
      // What the client may send before the proxy must acknowledge: the connection window.
      expect(client.state.remoteWindowSize).toBeGreaterThan(14 * 1024 * 1024);
      // And what it may send on one stream (a large upload): intercept-servers.ts explains the 8 MiB.
      expect(client.remoteSettings.initialWindowSize).toBe(8 * 1024 * 1024);
    } finally {
      client.close();
    }
  });

  it('multiplexes many h2 requests over one upstream h2 connection', async () => {
    const before = h2Origin.connections;
    const urls = Array.from({ length: 12 }, (_, i) => `${h2Origin.url}/mux/${i}`);
    const r = await curl([
      '-x',
      tp.proxy.address.url,
      '--cacert',
      ca.certPath,
      '--http2',
      '--parallel',
      ...urls.flatMap((u) => ['-o', '/dev/null', u]),
    ]);
    expect(r.code, r.stderr).toBe(0);
    // The session is pooled from the first test: no new TCP connection at all.
    expect(h2Origin.connections - before).toBe(0);
    const xs = tp.exchanges().filter((x) => x.request.url.includes('/mux/'));
    expect(xs).toHaveLength(12);
    expect(new Set(xs.map((x) => x.upstreamConnectionId)).size).toBe(1);
  });
});

describe('HTTP/2 off', () => {
  it('speaks HTTP/1.1 on both legs even when client and origin offer h2', async () => {
    const tp = await testProxy({ dataDir, http2: false });
    try {
      const r = await curl([
        '-x',
        tp.proxy.address.url,
        '--cacert',
        ca.certPath,
        '--http2',
        '-w',
        '\n%{http_version}',
        `${h2Origin.url}/noh2`,
      ]);
      expect(r.code, r.stderr).toBe(0);
      const [body, version] = r.stdout.split('\n');
      expect(version).toBe('1.1');
      expect(JSON.parse(body).httpVersion).toBe('1.1');
      const [x] = await tp.waitFor(1);
      expect(x).toMatchObject({ clientProtocol: 'http/1.1', upstreamProtocol: 'http/1.1' });
    } finally {
      await tp.stop();
    }
  });
});

describe('interception off (blind tunnel)', () => {
  it('passes TLS through untouched: the client sees the origin certificate and h2 end to end', async () => {
    const tp = await testProxy({ dataDir, intercept: false });
    try {
      const r = await curl([
        '-x',
        tp.proxy.address.url,
        '--cacert',
        ca.certPath,
        '--http2',
        '-w',
        '\n%{http_version}',
        `${h2Origin.url}/tunnel`,
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.split('\n')[1]).toBe('2');
      const [x] = await tp.waitFor(1);
      expect(x.transport).toBe('tunnel');
      expect(x.request.method).toBe('CONNECT');
      expect(x.tunnelBytes!.up).toBeGreaterThan(100);
      expect(x.tunnelBytes!.down).toBeGreaterThan(100);
      // Nothing inside the tunnel is parsed.
      expect(tp.exchanges().some((e) => e.request.url.includes('/tunnel'))).toBe(false);
    } finally {
      await tp.stop();
    }
  });

  it('answers 502 to CONNECT when the target refuses', async () => {
    const tp = await testProxy({ dataDir, intercept: false });
    try {
      const r = await curl(['-x', tp.proxy.address.url, '-v', 'https://127.0.0.1:1/']);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/502/);
      const [x] = await tp.waitFor(1);
      expect(x.error?.code).toBe('NL_UPSTREAM_REFUSED');
    } finally {
      await tp.stop();
    }
  });
});
