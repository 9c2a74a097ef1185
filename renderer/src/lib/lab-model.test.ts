import { describe, expect, it } from 'vitest';
import type { CellResult, LabResult, RunMeasurement } from '../../../proxy/src/api/contract';
import { chartSeries, labTableRows, representativeRun } from './lab-model';

const run = (cell: RunMeasurement['cell'], loadMs: number, ok = true): RunMeasurement => ({ cell, round: 0, sequence: 0, startedAt: '', ok, loadMs: ok ? loadMs : undefined, ttfbMedianMs: loadMs / 10, connections: 6 });
const stats = (vals: number[]) => {
  const s = [...vals].sort((a, b) => a - b);
  return { n: s.length, median: s[s.length >> 1]!, p95: s[s.length - 1]!, min: s[0]!, max: s[s.length - 1]!, mean: s.reduce((a, b) => a + b, 0) / s.length, iqr: 0, cv: 0.05 };
};
const base: CellResult = { id: 'proxy+h1+intercept', settings: { proxy: true, http2: false, intercept: true, nagle: false }, runs: [run('proxy+h1+intercept', 100), run('proxy+h1+intercept', 110), run('proxy+h1+intercept', 90)], stats: { loadMs: stats([100, 110, 90]) }, comparisons: {}, noisyBaseline: false };
const nagle: CellResult = {
  id: 'proxy+h1+intercept+nagle',
  settings: { proxy: true, http2: false, intercept: true, nagle: true },
  runs: [run('proxy+h1+intercept+nagle', 400), run('proxy+h1+intercept+nagle', 380), run('proxy+h1+intercept+nagle', 0, false)],
  stats: { loadMs: stats([400, 380]) },
  comparisons: { loadMs: { baseline: 'proxy+h1+intercept', metric: 'loadMs', ratio: 4, u: 0, p: 0.01, method: 'exact', cliffsDelta: 1, magnitude: 'large', significant: true } },
  noisyBaseline: false,
};
const result = { cells: [base, nagle] } as unknown as LabResult;

describe('lab view model', () => {
  it('builds table rows with baseline, ratio, p-value and failures', () => {
    const rows = labTableRows(result);
    expect(rows[0]).toMatchObject({ cell: 'proxy+h1+intercept', isBaseline: true, median: 100, failures: 0 });
    expect(rows[1]).toMatchObject({ cell: 'proxy+h1+intercept+nagle', isBaseline: false, ratio: 4, p: 0.01, significant: true, failures: 1, baseline: 'proxy+h1+intercept' });
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
