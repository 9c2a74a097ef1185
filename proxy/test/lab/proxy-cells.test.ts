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
import type { LabResult } from '../../src/lab/types.js';
import { chromePath } from '../browser/chrome-available.js';

let dir: string;
let result: LabResult;
const profileDirs = () => fs.readdirSync(os.tmpdir()).filter((d) => d.startsWith(`netlens-chrome-${process.pid}-`)).sort();

describe.skipIf(!chromePath)('runLab through the proxy (real Chromium, real proxy, test site)', () => {
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nl-labproxy-'));
    const before = profileDirs();
    result = await runLab({
      target: { kind: 'site', images: 30, latencyMs: 10 },
      cells: ['proxy+h2+intercept', 'proxy+h1+intercept', 'proxy+h1+intercept+nagle', 'proxy+h2+tunnel'],
      runs: 4,
      quietMs: 200,
      timeoutMs: 10_000,
      seed: 7,
      outDir: path.join(dir, 'out'),
      dataDir: path.join(dir, 'data'),
      chromePath,
    }, { signal: AbortSignal.timeout(120_000) }); // ends (and cleans up) before the hook's own timeout
    expect(result.aborted).toBe(false);
    expect(profileDirs()).toEqual(before);
  }, 150_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const cell = (id: string) => result.cells.find((c) => c.id === id)!;

  it('loads the whole page in every proxy cell and records the proxy side', () => {
    for (const c of result.cells) {
      expect(c.runs.map((r) => r.error?.message ?? 'ok'), c.id).toEqual(['ok', 'ok', 'ok', 'ok']);
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

  it('HTTP/2 through the proxy is faster than HTTP/1.1 through the proxy', () => {
    expect(cell('proxy+h2+intercept').stats.loadMs!.median).toBeLessThan(cell('proxy+h1+intercept').stats.loadMs!.median);
  });

  it('Nagle on makes intercepted HTTP/1.1 loads slower than Nagle off', () => {
    const on = cell('proxy+h1+intercept+nagle').stats;
    const off = cell('proxy+h1+intercept').stats;
    const slowerLoad = on.loadMs!.median > off.loadMs!.median;
    const slowerTtfb = on.ttfbMeanMs!.median > off.ttfbMeanMs!.median;
    expect(slowerLoad || slowerTtfb).toBe(true);
    const effect = result.effects.find((e) => e.dimension === 'nagle');
    expect(effect).toMatchObject({ cell: 'proxy+h1+intercept+nagle', versus: 'proxy+h1+intercept' });
  });
});
