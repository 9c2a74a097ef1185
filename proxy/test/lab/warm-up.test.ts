/** The lab's warm-up of its proxy process (warm-up.ts): browser-shaped page loads through a fresh proxy per setting, outside the runs. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxyHost, type ProxyHost, type ProxyRunOptions, type ProxyRunResult } from '../../src/lab/proxy-process.js';
import { startTestSiteProcess, type TestSiteProcess } from '../../src/lab/site/site-process.js';
import { warmUpProxy } from '../../src/lab/warm-up.js';
import { loadOrCreateCA, type CertificateAuthority } from '../../src/tls/ca.js';

let dataDir: string;
let ca: CertificateAuthority;
let site: TestSiteProcess;
let host: ProxyHost;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-warmup-'));
  ca = loadOrCreateCA(dataDir);
  site = await startTestSiteProcess({ images: 5, latencyMs: 0, dataDir });
  host = await startProxyHost();
}, 60_000);
afterAll(async () => {
  await host.close();
  await site.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const settings = (http2: boolean, intercept: boolean): ProxyRunOptions['proxy'] => ({
  port: 0,
  intercept,
  http2,
  nagle: false,
  dataDir,
  upstreamCA: [ca.certPem],
});

describe('warmUpProxy', () => {
  it('loads the page through a fresh proxy per setting, the requests asked for, and stops every proxy', async () => {
    const runs: Array<{ proxy: ProxyRunOptions['proxy']; result: ProxyRunResult }> = [];
    // The host as the lab gives it, noting what each run saw when it stops.
    const watched: ProxyHost = {
      ...host,
      startRun: async (options) => {
        const run = await host.startRun(options);
        return {
          ...run,
          stop: async () => {
            const result = await run.stop();
            runs.push({ proxy: options.proxy, result });
            return result;
          },
        };
      },
    };
    const all = [settings(false, true), settings(true, true), settings(false, false)];
    await warmUpProxy(watched, { siteUrl: site.url, images: site.images, ca: [ca.certPem], settings: all, requests: 30 });
    expect(runs.map((r) => r.proxy)).toEqual(all);
    const [h1, h2, tunnel] = runs.map((r) => r.result.metrics);
    // 30 requests of the page (its document, style sheet, scripts and images, in turn), none failed.
    expect(h1).toMatchObject({ exchanges: 30, errors: 0, protocols: { 'http/1.1': 30 } });
    expect(h2).toMatchObject({ exchanges: 30, errors: 0, protocols: { h2: 30 } });
    // A blind tunnel records one exchange per CONNECT: the warm-up's tunnels, all of them ended cleanly.
    expect(tunnel.exchanges).toBeGreaterThan(1);
    expect(tunnel.errors).toBe(0);
    // Every warm-up proxy was stopped: the host starts the next run as usual.
    const run = await host.startRun({ proxy: settings(false, true) });
    expect((await run.stop()).metrics.exchanges).toBe(0);
  }, 60_000);

  it('a lab cancelled during the warm-up stops it at once: its proxy stopped before the requests are done', async () => {
    // 200 ms per response: 12 connections need about 1.6 s for the 90 requests of ten loads of this page.
    const slow = await startTestSiteProcess({ images: 5, latencyMs: 200, dataDir });
    const results: ProxyRunResult[] = [];
    const watched: ProxyHost = {
      ...host,
      startRun: async (options) => {
        const run = await host.startRun(options);
        return { ...run, stop: async () => (results.push(await run.stop()), results[results.length - 1]) };
      },
    };
    try {
      const cancel = new AbortController();
      setTimeout(() => cancel.abort(), 300);
      const started = performance.now();
      const settingsRun = [settings(false, true), settings(true, true)];
      await warmUpProxy(watched, {
        siteUrl: slow.url,
        images: slow.images,
        ca: [ca.certPem],
        settings: settingsRun,
        signal: cancel.signal,
      });
      expect(performance.now() - started).toBeLessThan(1500);
      // Only the first setting was started, and stopped with part of its requests done.
      expect(results.length).toBe(1);
      expect(results[0].metrics.exchanges).toBeLessThan(90);
    } finally {
      await slow.close();
    }
  }, 60_000);

  it('does nothing once the lab is cancelled', async () => {
    let started = 0;
    const counting: ProxyHost = { ...host, startRun: (options) => (started++, host.startRun(options)) };
    await warmUpProxy(counting, {
      siteUrl: site.url,
      images: site.images,
      ca: [ca.certPem],
      settings: [settings(false, true)],
      signal: AbortSignal.abort(),
    });
    expect(started).toBe(0);
  });
});
