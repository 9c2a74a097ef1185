import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { alignRunHars, cellBreakdown } from '../../src/lab/alignment.js';
import type { Har, HarEntry } from '../../src/har/types.js';
import type { AlignmentBreakdown, RunMeasurement } from '../../src/lab/types.js';

const bd = (n: number): AlignmentBreakdown => ({ queue: n, clientLeg: 2 * n, proxy: 1, upstream: 10 * n, back: 0 });
const run = (ok: boolean, b?: AlignmentBreakdown): RunMeasurement => ({
  cell: 'proxy+h2+intercept',
  round: 0,
  sequence: 0,
  startedAt: '',
  ok,
  ...(b
    ? {
        alignment: {
          matched: 9,
          browserEntries: 10,
          proxyEntries: 10,
          unmatchedBrowser: 1,
          unmatchedProxy: 1,
          offsetMs: 0,
          medianBreakdown: b,
        },
      }
    : {}),
});

describe('lab alignment', () => {
  it('a cell breakdown is the per-part median of its successful aligned runs', () => {
    const c = cellBreakdown([run(true, bd(1)), run(true, bd(3)), run(true, bd(2)), run(false, bd(100)), run(true)]);
    expect(c).toEqual({ runs: 3, median: bd(2), matched: 27, browserEntries: 30 });
    expect(cellBreakdown([run(true), run(false, bd(1))])).toBeUndefined();
  });

  it("alignRunHars writes _browser into the run's proxy HAR and returns the counts", async () => {
    const e = (start: string, url: string, time: number, extra: Partial<HarEntry> = {}): HarEntry => ({
      startedDateTime: start,
      time,
      request: { method: 'GET', url, httpVersion: 'h2', cookies: [], headers: [], queryString: [], headersSize: -1, bodySize: 0 },
      response: {
        status: 200,
        statusText: '',
        httpVersion: 'h2',
        cookies: [],
        headers: [],
        content: { size: 0, mimeType: 'x' },
        redirectURL: '',
        headersSize: -1,
        bodySize: 0,
      },
      cache: {},
      timings: { blocked: 1, send: 0, wait: time - 1, receive: 0 },
      ...extra,
    });
    const har = (entries: HarEntry[]) => ({ log: { version: '1.2', creator: { name: 't', version: '1' }, entries } }) as Har;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nl-align-'));
    try {
      const file = path.join(dir, 'p.har');
      const ct = { _clientTimings: { receiveRequest: 0, proxyOverhead: 0, respond: 0, total: 6 } };
      fs.writeFileSync(
        file,
        JSON.stringify(har([e('2026-01-01T00:00:00.002Z', 'http://a/', 5, ct), e('2026-01-01T00:00:00.002Z', 'http://a/x', 5, ct)])),
      );
      const a = await alignRunHars(har([e('2026-01-01T00:00:00.000Z', 'http://a/', 10)]), file);
      expect(a).toMatchObject({ matched: 1, browserEntries: 1, proxyEntries: 2, unmatchedBrowser: 0, unmatchedProxy: 1, offsetMs: 0 });
      expect(a.medianBreakdown).toEqual({ queue: 1, clientLeg: 1, proxy: 2, upstream: 4, back: 2 });
      const stored = JSON.parse(fs.readFileSync(file, 'utf8'));
      expect(stored.log.entries[0]._browser.breakdown).toEqual(a.medianBreakdown);
      expect(stored.log._alignment.unmatchedProxy).toEqual([
        { method: 'GET', url: 'http://a/x', startedDateTime: '2026-01-01T00:00:00.002Z' },
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
