import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOrCreateCA, type CertificateAuthority } from '../../src/tls/ca.js';
import { startTestSite, type TestSite } from '../../src/lab/site/test-site.js';
import { pngImage } from '../../src/lab/site/assets.js';

let dataDir: string;
let ca: CertificateAuthority;
beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nl-site-'));
  ca = loadOrCreateCA(dataDir);
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

function h1Get(
  site: TestSite,
  p: string,
): Promise<{ status: number; body: Buffer; chunks: number; headers: http.IncomingHttpHeaders; alpn?: string | false | null }> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      new URL(p, site.url),
      { ca: ca.certPem, agent: false, ALPNProtocols: ['http/1.1'] } as https.RequestOptions,
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            body: Buffer.concat(chunks),
            chunks: chunks.length,
            headers: res.headers,
            alpn: (res.socket as tls.TLSSocket).alpnProtocol,
          }),
        );
      },
    );
    req.on('error', reject);
  });
}

async function h2Get(site: TestSite, paths: string[]): Promise<{ alpn: string | false | undefined; bodies: Buffer[] }> {
  const session = http2.connect(site.url, { ca: ca.certPem });
  try {
    const bodies = await Promise.all(
      paths.map(
        (p) =>
          new Promise<Buffer>((resolve, reject) => {
            const s = session.request({ ':path': p });
            const chunks: Buffer[] = [];
            s.on('data', (c: Buffer) => chunks.push(c));
            s.on('end', () => resolve(Buffer.concat(chunks)));
            s.on('error', reject);
          }),
      ),
    );
    return { alpn: session.alpnProtocol, bodies };
  } finally {
    session.close();
  }
}

describe('test site', () => {
  it('serves the page over HTTP/2 and HTTP/1.1 (ALPN) with a Netlens CA certificate', async () => {
    const site = await startTestSite({ images: 12, ca });
    try {
      expect(site.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
      expect(site.expectedRequests).toBe(16);
      const h1 = await h1Get(site, '/');
      expect(h1.alpn).toBe('http/1.1');
      const html = h1.body.toString();
      expect(html.match(/<img /g)).toHaveLength(12);
      for (const r of ['/style.css', '/app.js', '/chunked.js']) expect(html).toContain(r);
      const h2 = await h2Get(site, ['/', '/img/0.png', '/img/11.png', '/img/12.png']);
      expect(h2.alpn).toBe('h2');
      expect(h2.bodies[0].toString()).toBe(html);
      expect(h2.bodies[1]).toEqual(pngImage(0));
      expect(h2.bodies[3].toString()).toMatch(/not found/);
      expect(site.stats.httpVersions).toMatchObject({ '1.1': 1, '2.0': 4 });
      // Every socket of the site has Nagle off: stalls come from the proxy, never from the origin.
      expect(site.stats.noDelaySockets).toBe(site.stats.connections);
    } finally {
      await site.close();
    }
  });

  it('serves distinct, valid PNG images', () => {
    const a = pngImage(1);
    const b = pngImage(2);
    expect(a.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(a.equals(b)).toBe(false);
    expect(new Set(Array.from({ length: 200 }, (_, i) => pngImage(i).toString('hex'))).size).toBe(200);
  });

  it('sends CSS/JS of tens of KiB in many small writes, and chunked.js without a length', async () => {
    const site = await startTestSite({ images: 1, ca, assetBytes: 32 * 1024, writeBytes: 1024 });
    try {
      const css = await h1Get(site, '/style.css');
      expect(css.body.length).toBeGreaterThanOrEqual(32 * 1024);
      expect(Number(css.headers['content-length'])).toBe(css.body.length);
      // Each write leaves in its own turn of the event loop, so the client sees many reads.
      expect(css.chunks).toBeGreaterThan(4);
      const chunked = await h1Get(site, '/chunked.js');
      expect(chunked.headers['transfer-encoding']).toBe('chunked');
      expect(chunked.headers['content-length']).toBeUndefined();
      expect(chunked.body.toString()).toContain('window.netlens');
    } finally {
      await site.close();
    }
  });

  it('adds latency per connection and per response (compared with a site without)', async () => {
    const fast = await startTestSite({ images: 1, ca, latencyMs: 0 });
    const slow = await startTestSite({ images: 1, ca, latencyMs: 150, connectionLatencyMs: 150 });
    try {
      const time = async (site: TestSite) => {
        const t = performance.now();
        await h1Get(site, '/img/0.png');
        return performance.now() - t;
      };
      await time(fast); // warm up TLS code paths
      const [f, s] = [await time(fast), await time(slow)];
      // New connection + response: at least the two delays more than the site without latency.
      expect(s - f).toBeGreaterThan(250);
    } finally {
      await Promise.all([fast.close(), slow.close()]);
    }
  });

  it('offers HTTP/1.1 alone by ALPN when HTTP/2 is off, to a client that offers both', async () => {
    const site = await startTestSite({ images: 3, ca, http2: false });
    try {
      const alpn = await new Promise<string | false | null>((resolve, reject) => {
        const socket = tls.connect(
          { host: '127.0.0.1', port: site.port, servername: 'localhost', ca: ca.certPem, ALPNProtocols: ['h2', 'http/1.1'] },
          () => {
            resolve(socket.alpnProtocol);
            socket.destroy();
          },
        );
        socket.on('error', reject);
      });
      expect(alpn).toBe('http/1.1');
      const res = await h1Get(site, '/img/0.png');
      expect(res.status).toBe(200);
      expect(res.body.subarray(1, 4).toString('latin1')).toBe('PNG');
    } finally {
      await site.close();
    }
  });

  it('has a plain-HTTP mode', async () => {
    const site = await startTestSite({ images: 3, tls: false });
    try {
      expect(site.url).toMatch(/^http:\/\//);
      const body = await new Promise<string>((resolve, reject) =>
        http
          .get(site.url, (res) => {
            let text = '';
            res.on('data', (c) => (text += c));
            res.on('end', () => resolve(text));
          })
          .on('error', reject),
      );
      expect(body.match(/<img /g)).toHaveLength(3);
    } finally {
      await site.close();
    }
  });
});

describe('test site in its own process', () => {
  it('serves from a child process and reports what it served when closed', async () => {
    const { startTestSiteProcess } = await import('../../src/lab/site/site-process.js');
    const site = await startTestSiteProcess({ images: 3, dataDir });
    try {
      expect(site.pid).not.toBe(process.pid);
      expect(site.expectedRequests).toBe(7);
      const h2 = await h2Get(site as unknown as TestSite, ['/', '/img/2.png']);
      expect(h2.alpn).toBe('h2');
      expect(h2.bodies[1]).toEqual(pngImage(2));
    } finally {
      const stats = await site.close();
      expect(stats).toMatchObject({ requests: 2, connections: 1, noDelaySockets: 1 });
    }
    expect(() => process.kill(site.pid, 0)).toThrow();
  });
});
