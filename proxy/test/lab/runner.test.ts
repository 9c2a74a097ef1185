import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLab } from '../../src/lab/runner.js';
import type { LabProgress } from '../../src/lab/types.js';
import { chromePath } from '../browser/chrome-available.js';

const profileDirs = () =>
  fs
    .readdirSync(os.tmpdir())
    .filter((d) => d.startsWith(`netlens-chrome-${process.pid}-`))
    .sort();

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nl-lab-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!chromePath)('runLab, direct cells (real Chromium, test site)', () => {
  it('measures both direct cells, writes results.json and HARs, and HTTP/2 beats HTTP/1.1 with latency', async () => {
    const outDir = path.join(dir, 'direct');
    const progress: LabProgress[] = [];
    const before = profileDirs();
    const result = await runLab(
      {
        target: { kind: 'site', images: 24, latencyMs: 25 },
        cells: ['direct+h2', 'direct+h1'],
        runs: 3,
        quietMs: 200,
        seed: 1,
        outDir,
        dataDir: path.join(dir, 'data'),
        chromePath,
      },
      { onProgress: (p) => progress.push(p) },
    );
    expect(result.aborted).toBe(false);
    expect(result.expectedRequests).toBe(28);
    const [h2, h1] = result.cells;
    for (const c of [h2, h1]) {
      expect(c.runs.map((r) => r.error?.message ?? 'ok')).toEqual(['ok', 'ok', 'ok']);
      expect(c.runs.every((r) => r.requests === 28)).toBe(true);
    }
    expect(h2.runs.every((r) => r.protocols?.h2 === 28 && r.connections === 1)).toBe(true);
    expect(h1.runs.every((r) => r.protocols?.['http/1.1'] === 28 && (r.connections ?? 0) > 1)).toBe(true);
    // Acceptance: HTTP/2 faster than HTTP/1.1 on a page of images with per-response latency.
    expect(h2.stats.loadMs!.median).toBeLessThan(h1.stats.loadMs!.median);
    const effect = result.effects.find((e) => e.dimension === 'http2');
    expect(effect).toMatchObject({ cell: 'direct+h2', versus: 'direct+h1' });
    expect(effect!.comparison.ratio).toBeLessThan(1);

    // Files: results.json equals the returned result; every run's HAR exists and parses.
    const stored = JSON.parse(fs.readFileSync(path.join(outDir, 'results.json'), 'utf8'));
    expect(stored).toEqual(JSON.parse(JSON.stringify(result)));
    for (const r of [...h2.runs, ...h1.runs]) {
      const har = JSON.parse(fs.readFileSync(path.join(outDir, r.browserHar!), 'utf8'));
      expect(har.log.entries).toHaveLength(28);
    }
    // Progress: start, a start/end per run, done.
    expect(progress[0]).toMatchObject({ type: 'start', total: 6 });
    expect(progress.filter((p) => p.type === 'run-end')).toHaveLength(6);
    expect(progress.at(-1)).toMatchObject({ type: 'done', completed: 6, aborted: false });
    // Interleaved: the two cells alternate within rounds, not 3 of one then 3 of the other.
    const order = progress.flatMap((p) => (p.type === 'run-start' ? [p.cell] : []));
    expect(new Set(order.slice(0, 2)).size).toBe(2);
    expect(profileDirs()).toEqual(before);
  }, 90_000);

  it('cancels cleanly: partial results, aborted flag, no browser or profile left', async () => {
    const before = profileDirs();
    const ac = new AbortController();
    const result = await runLab(
      {
        target: { kind: 'site', images: 5, latencyMs: 0 },
        cells: ['direct+h2'],
        runs: 5,
        quietMs: 100,
        dataDir: path.join(dir, 'data'),
        chromePath,
      },
      {
        signal: ac.signal,
        onProgress: (p) => {
          // Cancel while the second run's browser is starting.
          if (p.type === 'run-start' && p.completed === 1) setTimeout(() => ac.abort(), 50);
        },
      },
    );
    expect(result.aborted).toBe(true);
    expect(result.cells[0].runs.length).toBeGreaterThanOrEqual(1);
    expect(result.cells[0].runs.length).toBeLessThan(5);
    expect(profileDirs()).toEqual(before);
  }, 60_000);

  // The warm-up sends unmeasured loads through the proxy to the built-in site only: someone else's site
  // (a --url target) gets only the measured runs' requests.
  it('does not warm up the proxy with a --url target: the origin sees only the measured loads', async () => {
    const paths: string[] = [];
    const server = http.createServer((req, res) => {
      paths.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>t</title><link rel="icon" href="data:,">ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const progress: LabProgress[] = [];
    try {
      const port = (server.address() as import('node:net').AddressInfo).port;
      const result = await runLab(
        {
          target: { kind: 'url', url: `http://127.0.0.1:${port}/page` },
          cells: ['proxy+h1+intercept'],
          runs: 1,
          quietMs: 200,
          outDir: path.join(dir, 'url'),
          dataDir: path.join(dir, 'data'),
          chromePath,
        },
        { onProgress: (p) => progress.push(p) },
      );
      expect(result.cells[0]!.runs[0]!.ok).toBe(true);
      expect(progress.some((p) => p.type === 'warm-up')).toBe(false);
      expect(paths).toEqual(['/page']);
    } finally {
      await new Promise((r) => server.close(r));
    }
  }, 60_000);

  it('rejects a bad config before starting anything', async () => {
    await expect(runLab({ target: { kind: 'url', url: 'ftp://x/' }, chromePath })).rejects.toMatchObject({ code: 'NL_USAGE' });
    await expect(runLab({ target: { kind: 'site', images: 1, latencyMs: 0 }, runs: 0, chromePath })).rejects.toMatchObject({
      code: 'NL_USAGE',
    });
    await expect(
      runLab({ target: { kind: 'site', images: 1, latencyMs: 0 }, cells: ['proxy+h3' as never], chromePath }),
    ).rejects.toMatchObject({ code: 'NL_USAGE' });
  });
});
