import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { apply, damage } from '../../../proxy/test/lab/damage';
import { parseLabResult } from '../../../proxy/src/lab/result-file';
import type { CellResult, LabResult, RunMeasurement } from '../../../proxy/src/api/contract';
import { baselinePlan, chartSeries, formBaseline, labTableRows, representativeRun, runsHint } from './lab-model';

const run = (cell: RunMeasurement['cell'], loadMs: number, ok = true): RunMeasurement => ({
  cell,
  round: 0,
  sequence: 0,
  startedAt: '',
  ok,
  loadMs: ok ? loadMs : undefined,
  ttfbMedianMs: loadMs / 10,
  connections: 6,
});
const stats = (vals: number[]) => {
  const s = [...vals].sort((a, b) => a - b);
  return {
    n: s.length,
    median: s[s.length >> 1]!,
    p95: s[s.length - 1]!,
    min: s[0]!,
    max: s[s.length - 1]!,
    mean: s.reduce((a, b) => a + b, 0) / s.length,
    iqr: 0,
    cv: 0.05,
  };
};
const base: CellResult = {
  id: 'proxy+h1+intercept',
  settings: { proxy: true, http2: false, intercept: true, nagle: false },
  runs: [run('proxy+h1+intercept', 100), run('proxy+h1+intercept', 110), run('proxy+h1+intercept', 90)],
  stats: { loadMs: stats([100, 110, 90]) },
  comparisons: {},
  noisyBaseline: false,
};
const nagle: CellResult = {
  id: 'proxy+h1+intercept+nagle',
  settings: { proxy: true, http2: false, intercept: true, nagle: true },
  runs: [run('proxy+h1+intercept+nagle', 400), run('proxy+h1+intercept+nagle', 380), run('proxy+h1+intercept+nagle', 0, false)],
  stats: { loadMs: stats([400, 380]) },
  comparisons: {
    loadMs: {
      baseline: 'proxy+h1+intercept',
      metric: 'loadMs',
      ratio: 4,
      u: 0,
      p: 0.01,
      method: 'exact',
      cliffsDelta: 1,
      magnitude: 'large',
      significant: true,
    },
  },
  noisyBaseline: false,
};
const result = { cells: [base, nagle] } as unknown as LabResult;

describe('lab view model', () => {
  it('builds table rows with baseline, ratio, p-value and failures', () => {
    const rows = labTableRows(result);
    expect(rows[0]).toMatchObject({ cell: 'proxy+h1+intercept', isBaseline: true, median: 100, failures: 0 });
    expect(rows[1]).toMatchObject({
      cell: 'proxy+h1+intercept+nagle',
      isBaseline: false,
      ratio: 4,
      p: 0.01,
      significant: true,
      failures: 1,
      baseline: 'proxy+h1+intercept',
    });
  });

  it('gives chart points with min..max spread around the median', () => {
    const s = chartSeries(result, 'loadMs');
    expect(s[0]).toEqual({ cell: 'proxy+h1+intercept', median: 100, spread: [10, 10], p95: 110 });
  });

  it('picks the run closest to the median as representative', () => {
    expect(representativeRun(base)!.loadMs).toBe(100);
    expect(representativeRun({ ...base, runs: [run('proxy+h1+intercept', 5, false)] })).toBeUndefined();
  });
});

describe('lab view model with via cells (external proxies)', () => {
  const direct: CellResult = {
    ...base,
    id: 'direct+h2',
    settings: { proxy: false, http2: true, intercept: false, nagle: false },
    runs: [run('direct+h2', 100)],
    stats: { loadMs: stats([100]) },
  };
  const via: CellResult = {
    id: 'via-mitmproxy+h2',
    settings: { proxy: true, http2: true, intercept: false, nagle: false, via: 'mitmproxy' },
    runs: [run('via-mitmproxy+h2', 300), run('via-mitmproxy+h2', 0, false)],
    stats: { loadMs: stats([300]) },
    comparisons: {
      loadMs: {
        baseline: 'direct+h2',
        metric: 'loadMs',
        ratio: 3,
        u: 0,
        p: 0.3,
        method: 'exact',
        cliffsDelta: 1,
        magnitude: 'large',
        significant: false,
      },
    },
    noisyBaseline: false,
  };
  const withVia = {
    cells: [direct, via],
    via: [{ name: 'mitmproxy', url: 'http://127.0.0.1:8081', note: 'warm' }],
  } as unknown as LabResult;

  it('lists them like any cell, compared with direct of the same protocol', () => {
    expect(labTableRows(withVia).map((r) => [r.cell, r.isBaseline, r.ratio, r.failures])).toEqual([
      ['direct+h2', true, undefined, 0],
      ['via-mitmproxy+h2', false, 3, 1],
    ]);
    expect(chartSeries(withVia, 'loadMs').map((p) => p.cell)).toEqual(['direct+h2', 'via-mitmproxy+h2']);
    expect(representativeRun(via)!.loadMs).toBe(300);
  });
});

describe('lab form model (issue 15)', () => {
  it('the baseline sent is always one of the ticked cells (or "direct" with a direct cell ticked)', () => {
    // The walkthrough: default baseline cell unticked → the form falls back to a ticked one, never the unticked cell.
    expect(formBaseline(['proxy+h1+intercept+nagle'], 'proxy+h1+intercept')).toBe('proxy+h1+intercept+nagle');
    expect(formBaseline(['direct+h1', 'proxy+h1+intercept+nagle'], 'proxy+h1+intercept')).toBe('direct');
    expect(formBaseline(['proxy+h1+intercept', 'proxy+h1+intercept+nagle'], 'proxy+h1+intercept')).toBe('proxy+h1+intercept');
    expect(formBaseline([], 'direct')).toBeUndefined();
  });

  it('says which baseline each cell is compared with', () => {
    expect(baselinePlan(['direct+h2', 'proxy+h2+intercept', 'proxy+h1+tunnel'], 'direct')).toEqual([
      { cell: 'direct+h2' },
      { cell: 'proxy+h2+intercept', vs: 'direct+h2' },
      { cell: 'proxy+h1+tunnel', missing: 'direct+h1' },
    ]);
  });

  it('shows the smallest p the runs can reach', () => {
    expect(runsHint(3)).toMatchObject({
      enough: false,
      text: expect.stringMatching(/0\.10 — never significant at 0\.05; use at least 4 runs/),
    });
    expect(runsHint(5)).toMatchObject({ enough: true, text: 'smallest p possible: 0.0079 (< 0.05)' });
    expect(runsHint(12)!.text).toMatch(/e-/);
    for (const bad of [0, -1, 1.5, 1e9, NaN]) expect(runsHint(bad)).toBeUndefined();
  });

  it('flags every noisy cell and gives TTFB verdicts', () => {
    const noisyNagle: CellResult = {
      ...nagle,
      stats: { loadMs: { ...stats([400, 380]), cv: 0.3 } },
      comparisons: { ...nagle.comparisons, ttfbMedianMs: { ...nagle.comparisons.loadMs!, metric: 'ttfbMedianMs', ratio: 6.5 } },
    };
    const rows = labTableRows({ cells: [base, noisyNagle] } as unknown as LabResult);
    expect(rows.map((r) => r.noisy)).toEqual([false, true]);
    expect(rows[1]).toMatchObject({ ttfbRatio: 6.5, ttfbVerdict: { kind: 'slower', text: 'slower than proxy+h1+intercept (large)' } });
    expect(rows[0]!.ttfbVerdict.kind).toBe('baseline');
  });
});

describe('lab view model on damaged results.json files', () => {
  it('whatever the reader lets through, the table model copes (seed 42)', () => {
    let parsed = 0;
    fc.assert(
      fc.property(damage, (edits) => {
        let result;
        try {
          result = parseLabResult(apply(edits));
        } catch {
          return;
        }
        parsed++;
        labTableRows(result);
        chartSeries(result, 'loadMs');
        result.cells.forEach((c) => representativeRun(c));
      }),
      { seed: 42, numRuns: Number(process.env.NETLENS_FUZZ_RUNS ?? 300) },
    );
    expect(parsed).toBeGreaterThan(0);
  });
});
