/** A LabResult built from synthetic runs (analyze() does the statistics). No Node imports: the renderer's tests use it too. */
import { analyze, effects } from '../../src/lab/analyze.js';
import { LAB_SCHEMA_VERSION, type CellId, type LabResult, type LabTarget, type RunMeasurement } from '../../src/lab/types.js';

export interface FakeCell {
  cell: CellId;
  loadMs: number[];
  ttfbMs: number[];
}

export function fakeResult(
  cells: FakeCell[],
  options: { baseline?: 'direct' | CellId; target?: LabTarget; startedAt?: string; withHars?: boolean } = {},
): LabResult {
  const runs: RunMeasurement[] = [];
  let seq = 0;
  for (const c of cells) {
    c.loadMs.forEach((loadMs, round) => {
      const stem = `${String(seq).padStart(4, '0')}-${c.cell}`;
      runs.push({
        cell: c.cell,
        round,
        sequence: seq++,
        startedAt: '2026-11-23T10:00:00.000Z',
        ok: true,
        loadMs,
        onLoadMs: loadMs,
        ttfbMeanMs: c.ttfbMs[round],
        ttfbMedianMs: c.ttfbMs[round],
        requests: 3,
        connections: 1,
        ...(options.withHars ? { browserHar: `har/${stem}.browser.har` } : {}),
      });
    });
  }
  const baseline = options.baseline ?? 'direct';
  const ids = cells.map((c) => c.cell);
  const analyzed = analyze(ids, runs, { baseline, alpha: 0.05 });
  const n = cells[0]?.loadMs.length ?? 1;
  return {
    schemaVersion: LAB_SCHEMA_VERSION,
    tool: { name: 'netlens', version: '0.1.0' },
    config: {
      target: options.target ?? { kind: 'site', images: 2, latencyMs: 0 },
      cells: ids,
      runs: n,
      baseline,
      quietMs: 100,
      timeoutMs: 60_000,
      alpha: 0.05,
      seed: 1,
      dataDir: '/tmp/x',
    },
    url: 'https://127.0.0.1:1234/',
    expectedRequests: 3,
    machine: {
      platform: 'linux',
      arch: 'x64',
      release: '6',
      cpus: 2,
      cpuModel: 'Test CPU',
      totalMemoryMB: 4096,
      loadAverage: [1, 1, 1],
      node: 'v20',
      browser: { path: '/usr/bin/chromium', version: 'Chromium 156' },
    },
    startedAt: options.startedAt ?? '2026-11-23T10:00:00.000Z',
    finishedAt: '2026-11-23T10:01:00.000Z',
    durationMs: 60_000,
    aborted: false,
    cells: analyzed,
    effects: effects(analyzed, 0.05),
  };
}

/** A browser HAR of `n` requests starting 10 ms apart. */
export function fakeHar(n: number, host = 'https://127.0.0.1:1234'): unknown {
  const t0 = Date.parse('2026-11-23T10:00:00.000Z');
  const entries = Array.from({ length: n }, (_, i) => ({
    startedDateTime: new Date(t0 + i * 10).toISOString(),
    time: 30,
    request: { method: 'GET', url: i === 0 ? `${host}/` : `${host}/img/${i}.png` },
    response: { status: 200 },
    timings: { blocked: 1, dns: 0, connect: i === 0 ? 5 : 0, send: 0, wait: 20, receive: 4 },
  }));
  return { log: { version: '1.2', creator: { name: 't', version: '1' }, entries } };
}

/** The walkthrough's case: intercepting HTTP/2 has about the same load time but 6× the TTFB; the proxy cell is noisy. */
export const WALKTHROUGH: FakeCell[] = [
  { cell: 'direct+h2', loadMs: [1000, 1010, 990, 1005, 995], ttfbMs: [75, 74, 76, 77, 73] },
  { cell: 'proxy+h2+intercept', loadMs: [1000, 1300, 800, 1200, 900], ttfbMs: [486, 480, 490, 470, 500] },
];
