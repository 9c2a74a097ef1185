/**
 * The lab through the real proxy: every proxy cell loads the whole page, the
 * proxy-side HAR is written, and the effects that motivated Netlens show up
 * when compared side by side (never against absolute times):
 *  - HTTP/2 through the proxy is faster than HTTP/1.1 through the proxy;
 *  - Nagle left on makes intercepted loads slower than Nagle off, because the
 *    test site's CSS/JS leave in many small writes that the proxy relays.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLab } from '../../src/lab/runner.js';
import type { LabProgress, LabResult } from '../../src/lab/types.js';
import { progressLine } from '../../src/lab/report.js';
import { chromePath } from '../browser/chrome-available.js';

let dir: string;
let result: LabResult;
const progress: LabProgress[] = [];
const profileDirs = () =>
  fs
    .readdirSync(os.tmpdir())
    .filter((d) => d.startsWith(`netlens-chrome-${process.pid}-`))
    .sort();

describe.skipIf(!chromePath)('runLab through the proxy (real Chromium, real proxy, test site)', () => {
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nl-labproxy-'));
    const before = profileDirs();
    result = await runLab(
      {
        // 30 ms per response: HTTP/1.1's six connections pay it five times in a row, HTTP/2 once,
        // a gap wide enough to stand above the noise of a shared 2-core machine.
        target: { kind: 'site', images: 30, latencyMs: 30 },
        cells: ['proxy+h2+intercept', 'proxy+h1+intercept', 'proxy+h1+intercept+nagle', 'proxy+h2+tunnel'],
        runs: 4,
        quietMs: 200,
        timeoutMs: 10_000,
        seed: 7,
        outDir: path.join(dir, 'out'),
        dataDir: path.join(dir, 'data'),
        chromePath,
      },
      { signal: AbortSignal.timeout(120_000), onProgress: (p) => progress.push(p) },
    ); // ends (and cleans up) before the hook's own timeout
    expect(result.aborted).toBe(false);
    expect(profileDirs()).toEqual(before);
  }, 150_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const cell = (id: string) => result.cells.find((c) => c.id === id)!;

  it('warms the proxy up before the first run, once per proxy setting (Nagle is not one), and says so', () => {
    const first = progress.findIndex((p) => p.type === 'run-start');
    expect(progress.slice(0, first).map((p) => p.type)).toEqual(['start', 'warm-up']);
    // h2 intercept, h1 intercept (with and without Nagle: one setting), h2 tunnel.
    expect(progress[1]).toMatchObject({ type: 'warm-up', settings: 3, completed: 0 });
    expect(progressLine(progress[1]!)).toBe('Warming up the proxy: unmeasured loads of the site, 3 proxy settings…');
  });

  it('loads the whole page in every proxy cell and records the proxy side', () => {
    for (const c of result.cells) {
      expect(
        c.runs.map((r) => r.error?.message ?? 'ok'),
        c.id,
      ).toEqual(['ok', 'ok', 'ok', 'ok']);
      for (const r of c.runs) expect(r.requests).toBe(result.expectedRequests);
    }
    for (const id of ['proxy+h2+intercept', 'proxy+h1+intercept', 'proxy+h1+intercept+nagle']) {
      for (const r of cell(id).runs) {
        expect(r.proxy?.exchanges, id).toBe(result.expectedRequests);
        expect(r.proxy?.errors).toBe(0);
        const har = JSON.parse(fs.readFileSync(path.join(dir, 'out', r.proxyHar!), 'utf8'));
        expect(har.log.entries).toHaveLength(result.expectedRequests);
      }
    }
    // Protocols as configured: h2 to the browser in the h2 cell, HTTP/1.1 in the h1 cells.
    expect(cell('proxy+h2+intercept').runs.every((r) => r.protocols?.h2 === result.expectedRequests)).toBe(true);
    expect(cell('proxy+h1+intercept').runs.every((r) => r.protocols?.['http/1.1'] === result.expectedRequests)).toBe(true);
    // A tunnel records no request inside TLS, only the CONNECT.
    expect(cell('proxy+h2+tunnel').runs.every((r) => (r.proxy?.exchanges ?? 0) < result.expectedRequests)).toBe(true);
  });

  it('aligns the browser and proxy HARs of each intercepting run and gives each such cell a median breakdown', () => {
    const parts = ['queue', 'clientLeg', 'proxy', 'upstream', 'back'] as const;
    for (const id of ['proxy+h2+intercept', 'proxy+h1+intercept', 'proxy+h1+intercept+nagle']) {
      for (const r of cell(id).runs) {
        expect(r.alignment?.matched, id).toBeGreaterThanOrEqual(Math.ceil(0.9 * result.expectedRequests));
        const har = JSON.parse(fs.readFileSync(path.join(dir, 'out', r.proxyHar!), 'utf8'));
        const sides = har.log.entries.map((e: { _browser?: unknown }) => e._browser).filter(Boolean);
        expect(sides).toHaveLength(r.alignment!.matched);
        for (const side of sides as { time: number; breakdown: Record<string, number> }[]) {
          const values = parts.map((k) => side.breakdown[k]!);
          expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
          expect(Math.abs(values.reduce((a, b) => a + b, 0) - side.time)).toBeLessThanOrEqual(1);
        }
      }
      const b = cell(id).breakdown;
      expect(b?.runs, id).toBe(4);
      for (const k of parts) expect(b!.median[k]).toBeGreaterThanOrEqual(0);
    }
    // A tunnel's proxy sees no request inside TLS: nothing to match, no breakdown.
    expect(cell('proxy+h2+tunnel').runs.every((r) => r.alignment?.matched === 0)).toBe(true);
    expect(cell('proxy+h2+tunnel').breakdown).toBeUndefined();
    // results.json carries them.
    const stored = JSON.parse(fs.readFileSync(path.join(dir, 'out', 'results.json'), 'utf8'));
    expect(stored.cells.find((c: { id: string }) => c.id === 'proxy+h2+intercept').breakdown).toEqual(cell('proxy+h2+intercept').breakdown);
  });

  // lab/cpu-use.ts reads the scheduler's accounting from /proc: Linux only.
  it.skipIf(process.platform !== 'linux')('says how much CPU the browser, the proxy and the test site used in each run (Linux)', () => {
    for (const c of result.cells) {
      for (const r of c.runs) {
        expect(r.cpu?.browser?.cpuMs, c.id).toBeGreaterThan(0);
        // The proxy relayed the whole page (a tunnel only its TLS bytes): its event loop ran, and it is the main thread's share.
        expect(r.cpu?.proxy?.mainThreadCpuMs, c.id).toBeGreaterThan(0);
        expect(r.cpu!.proxy!.cpuMs).toBeGreaterThanOrEqual(r.cpu!.proxy!.mainThreadCpuMs!);
        expect(r.cpu?.site?.cpuMs, c.id).toBeGreaterThan(0);
      }
      expect(c.cpu?.proxy?.waitMs, c.id).toBeGreaterThanOrEqual(0);
    }
    // Interception does the TLS and HTTP work the tunnel leaves to the browser and the site: more proxy CPU per load.
    expect(cell('proxy+h2+intercept').cpu!.proxy!.cpuMs).toBeGreaterThan(cell('proxy+h2+tunnel').cpu!.proxy!.cpuMs);
  });

  it('HTTP/2 through the proxy is faster than HTTP/1.1 through the proxy', () => {
    expect(cell('proxy+h2+intercept').stats.loadMs!.median).toBeLessThan(cell('proxy+h1+intercept').stats.loadMs!.median);
  });

  it('the Nagle cell really runs the proxy with Nagle on (every exchange says so)', () => {
    for (const r of cell('proxy+h1+intercept+nagle').runs) {
      const har = JSON.parse(fs.readFileSync(path.join(dir, 'out', r.proxyHar!), 'utf8'));
      expect(har.log.entries.every((e: { _nagle?: boolean }) => e._nagle === true)).toBe(true);
    }
    for (const r of cell('proxy+h1+intercept').runs) {
      const har = JSON.parse(fs.readFileSync(path.join(dir, 'out', r.proxyHar!), 'utf8'));
      expect(har.log.entries.every((e: { _nagle?: boolean }) => e._nagle === false)).toBe(true);
    }
    // The effect is reported either way (its size in Chrome is measured, not asserted: see docs/lab.md).
    expect(result.effects.find((e) => e.dimension === 'nagle')).toMatchObject({
      cell: 'proxy+h1+intercept+nagle',
      versus: 'proxy+h1+intercept',
    });
  });
});

/**
 * Nagle at the wire: a keep-alive HTTPS client through the intercepting proxy
 * fetches the test site's stylesheet (48 KiB in 1 KiB writes) again and again.
 * With Nagle on, the proxy holds each small write until the previous one is
 * ACKed, and the client's delayed ACK makes that tens of ms per response.
 */
describe('Nagle on the proxy, measured at the wire (real proxy, test site, Node client)', () => {
  it('stylesheet responses relayed in many small writes are much slower with Nagle on', async () => {
    const { startProxy } = await import('../../src/server/proxy-server.js');
    const { startTestSiteProcess } = await import('../../src/lab/site/site-process.js');
    const { loadOrCreateCA } = await import('../../src/tls/ca.js');
    const http = await import('node:http');
    const https = await import('node:https');
    const tls = await import('node:tls');
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nl-nagle-'));
    const ca = loadOrCreateCA(dataDir);
    const site = await startTestSiteProcess({ images: 1, dataDir });
    const sitePort = Number(new URL(site.url).port);
    const tunnel = (proxyPort: number) =>
      new Promise<import('node:tls').TLSSocket>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port: proxyPort, method: 'CONNECT', path: `127.0.0.1:${sitePort}`, timeout: 5000 });
        req.on('timeout', () => req.destroy(new Error('CONNECT through the proxy timed out')));
        req.on('connect', (_res, socket) => {
          socket.setNoDelay(true);
          const t = tls.connect({ socket, ca: ca.certPem, servername: 'localhost', ALPNProtocols: ['http/1.1'] }, () => resolve(t));
          t.on('error', reject);
          t.setTimeout(5000, () => t.destroy(new Error('TLS through the proxy timed out')));
        });
        req.on('error', reject);
        req.end();
      });
    const medianFetch = async (nagle: boolean): Promise<number> => {
      const proxy = await startProxy({ port: 0, intercept: true, http2: false, nagle, dataDir });
      const socket = await tunnel(proxy.address.port);
      const times: number[] = [];
      try {
        for (let i = 0; i < 9; i++) {
          const t0 = performance.now();
          await new Promise<void>((resolve, reject) => {
            const req = https.request(
              {
                host: '127.0.0.1',
                port: sitePort,
                path: '/style.css',
                createConnection: () => socket,
                headers: { connection: 'keep-alive' },
              },
              (res) => {
                res.resume();
                res.on('end', resolve);
              },
            );
            req.on('error', reject);
            req.setTimeout(5000, () => req.destroy(new Error('no response through the proxy within 5 s')));
            req.end();
          });
          times.push(performance.now() - t0);
        }
      } finally {
        socket.destroy();
        await proxy.stop();
      }
      return times.sort((a, b) => a - b)[4];
    };
    try {
      const off = await medianFetch(false);
      const on = await medianFetch(true);
      console.log(`style.css through the intercepting proxy, median of 9: Nagle off ${off.toFixed(1)} ms, on ${on.toFixed(1)} ms`);
      expect(on).toBeGreaterThan(off * 2);
    } finally {
      await site.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
