/** A LabResult built from synthetic runs (analyze() does the statistics). No Node imports: the renderer's tests use it too. */
import { analyze, effects } from '../../src/lab/analyze.js';
import {
  LAB_SCHEMA_VERSION,
  type AlignmentBreakdown,
  type CellId,
  type LabResult,
  type LabTarget,
  type RunCpu,
  type RunMeasurement,
} from '../../src/lab/types.js';

export interface FakeCell {
  cell: CellId;
  loadMs: number[];
  ttfbMs: number[];
  /** Proxy cells: stalls counted per run, and the wall-clock time stalled per run (ms). */
  stalls?: number[];
  stallWallMs?: number[];
  /** Proxy cells: each run's median breakdown (the run is then aligned, 3 of 3 requests matched). */
  breakdown?: AlignmentBreakdown[];
  /** Each run's CPU use (lab/cpu-use.ts). */
  cpu?: RunCpu[];
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
        ...(c.cpu ? { cpu: c.cpu[round] } : {}),
        ...(c.stalls
          ? {
              proxy: {
                exchanges: 3,
                errors: 0,
                upstreamConnections: 1,
                protocols: {},
                stalls: c.stalls[round],
                ...(c.stallWallMs ? { stallWallMs: c.stallWallMs[round] } : {}),
              },
            }
          : {}),
        ...(c.breakdown
          ? {
              alignment: {
                matched: 3,
                browserEntries: 3,
                proxyEntries: 3,
                unmatchedBrowser: 0,
                unmatchedProxy: 0,
                offsetMs: 0,
                medianBreakdown: c.breakdown[round],
              },
            }
          : {}),
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

const parts = (queue: number, clientLeg: number, proxy: number, upstream: number, back: number): AlignmentBreakdown => ({
  queue,
  clientLeg,
  proxy,
  upstream,
  back,
});

/**
 * The Nagle story (docs/lab.md, "Nagle and the relay's writes"): the naive relay with Nagle on stalls ~190 times a run
 * and is slowest; the intercepting cells have a browser/proxy breakdown, the direct and tunnel cells none. The tunnel
 * cell's runs have a stall count but no `stallWallMs`, as in results.json files written before it.
 */
export const NAGLE_STORY: FakeCell[] = [
  {
    cell: 'direct+h1',
    loadMs: [1600, 1620, 1590, 1610, 1605],
    ttfbMs: [21, 22, 20, 21, 22],
    cpu: Array.from({ length: 5 }, (_, i) => ({
      browser: { cpuMs: 1800 + i * 10, waitMs: 900 },
      site: { cpuMs: 40, waitMs: 12, mainThreadCpuMs: 30, mainThreadWaitMs: 10 },
    })),
  },
  { cell: 'proxy+h1+tunnel', loadMs: [1700, 1690, 1720, 1710, 1705], ttfbMs: [23, 24, 22, 23, 23], stalls: [0, 0, 0, 0, 0] },
  {
    cell: 'proxy+h1+intercept',
    loadMs: [1690, 1700, 1680, 1720, 1710],
    ttfbMs: [25, 26, 24, 25, 26],
    stalls: [0, 1, 0, 2, 0],
    stallWallMs: [0, 41, 0, 43, 0],
    breakdown: Array.from({ length: 5 }, (_, i) => parts(2 + i * 0.1, 6, 1.5, 22, 3)),
    cpu: Array.from({ length: 5 }, (_, i) => ({
      browser: { cpuMs: 1850, waitMs: 950 },
      proxy: { cpuMs: 180 + i, waitMs: 600, mainThreadCpuMs: 120 + i, mainThreadWaitMs: 450 },
      site: { cpuMs: 50, waitMs: 15, mainThreadCpuMs: 31, mainThreadWaitMs: 11 },
    })),
  },
  {
    cell: 'proxy+h1+intercept+naive',
    loadMs: [1710, 1730, 1700, 1720, 1690],
    ttfbMs: [26, 25, 27, 26, 25],
    stalls: [0, 0, 0, 0, 0],
    stallWallMs: [0, 0, 0, 0, 0],
    breakdown: Array.from({ length: 5 }, () => parts(2, 6, 2, 22, 3)),
  },
  {
    cell: 'proxy+h1+intercept+naive+nagle',
    loadMs: [3190, 3200, 3104, 3475, 3517],
    ttfbMs: [28, 29, 27, 28, 30],
    stalls: [189, 184, 194, 190, 186],
    stallWallMs: [1510, 1480, 1540, 1525, 1500],
    breakdown: Array.from({ length: 5 }, () => parts(2, 6, 2, 22, 44)),
  },
];
