/** Issue 15 items 4–6: one set of limits and defaults, a baseline that is always run, noisy flags and TTFB verdicts. */
import { describe, expect, it } from 'vitest';
import { baselineChoices, baselineProblem } from '../../src/lab/cells.js';
import { LAB_LIMITS, limitProblem, minPValue, minRunsFor } from '../../src/lab/limits.js';
import { formatTable } from '../../src/lab/report.js';
import { resolveLabConfig } from '../../src/lab/runner.js';
import { mannWhitneyU } from '../../src/lab/stats.js';
import { cellVerdict } from '../../src/lab/verdict.js';
import { fakeResult, WALKTHROUGH } from './fake-result.js';

const site = { kind: 'site' as const, images: 2, latencyMs: 0 };

describe('limits and defaults', () => {
  it('minPValue is the exact two-sided Mann-Whitney minimum 2/C(2n,n), and the test reaches it', () => {
    expect(minPValue(3)).toBeCloseTo(0.1, 10);
    expect(minPValue(4)).toBeCloseTo(2 / 70, 10);
    expect(minPValue(5)).toBeCloseTo(2 / 252, 10);
    expect(minPValue(1)).toBe(1);
    for (const n of [2, 3, 4, 5, 6]) {
      const x = Array.from({ length: n }, (_, i) => 100 + i);
      const y = Array.from({ length: n }, (_, i) => 200 + i);
      expect(mannWhitneyU(x, y).p).toBeCloseTo(minPValue(n), 10);
    }
    expect(minRunsFor(0.05)).toBe(4);
    expect(Number.isNaN(minPValue(0))).toBe(true);
    // Bounded work whatever the number (a damaged results.json can say runs: 1e300).
    expect(minPValue(1e300)).toBe(0);
    expect(minPValue(600)).toBeGreaterThanOrEqual(0);
    // The default is enough for α = 0.05 (the UI's old 3 was not).
    expect(minPValue(LAB_LIMITS.runs.default)).toBeLessThan(0.05);
  });

  it('limitProblem accepts whole numbers in range and names the bad ones', () => {
    expect(limitProblem('runs', 1)).toBeUndefined();
    expect(limitProblem('runs', LAB_LIMITS.runs.max)).toBeUndefined();
    for (const bad of [0, -1, 1.5, LAB_LIMITS.runs.max + 1, 1e300, Number.NaN, Infinity, '5', null, undefined]) {
      expect(limitProblem('runs', bad), String(bad)).toMatch(/runs must be a whole number from 1 to 1,000/);
    }
    expect(limitProblem('images', 0)).toBeUndefined();
    expect(limitProblem('images', -1)).toMatch(/images/);
  });

  it('resolveLabConfig uses the shared limits', () => {
    expect(resolveLabConfig({ target: site, cells: ['direct+h2'] }).runs).toBe(LAB_LIMITS.runs.default);
    for (const runs of [0, -1, 1.5, 100_000])
      expect(() => resolveLabConfig({ target: site, cells: ['direct+h2'], runs })).toThrow(/runs must be a whole number/);
    expect(() => resolveLabConfig({ target: { ...site, images: -1 } })).toThrow(/images/);
    expect(() => resolveLabConfig({ target: { ...site, latencyMs: 1e9 } })).toThrow(/latency/);
  });
});

describe('baseline must be one of the cells being run', () => {
  it('baselineChoices offers "direct" only with a direct cell, and only the cells given', () => {
    expect(baselineChoices(['proxy+h1+intercept+nagle'])).toEqual(['proxy+h1+intercept+nagle']);
    expect(baselineChoices(['direct+h1', 'proxy+h1+tunnel'])).toEqual(['direct', 'direct+h1', 'proxy+h1+tunnel']);
  });

  it('rejects a baseline cell that is not run, and "direct" without a direct cell', () => {
    expect(baselineProblem(['proxy+h1+intercept+nagle'], 'proxy+h1+intercept')).toMatch(
      /"proxy\+h1\+intercept" is not among the cells being run/,
    );
    expect(baselineProblem(['proxy+h1+intercept+nagle'], 'direct')).toMatch(/no direct cell/);
    expect(baselineProblem(['proxy+h1+intercept', 'proxy+h1+intercept+nagle'], 'proxy+h1+intercept')).toBeUndefined();
    expect(() => resolveLabConfig({ target: site, cells: ['proxy+h1+intercept+nagle'], baseline: 'proxy+h1+intercept' })).toThrow(
      /not among the cells/,
    );
    expect(() => resolveLabConfig({ target: site, cells: ['direct+h2'], baseline: 'proxy+h9' as never })).toThrow(/unknown cell/);
    // Not given: the default "direct", whatever the cells (CI runs of proxy cells against a stored baseline).
    expect(resolveLabConfig({ target: site, cells: ['proxy+h2+tunnel'] }).baseline).toBe('direct');
    expect(resolveLabConfig({ target: site, cells: ['direct+h2', 'proxy+h2+tunnel'], baseline: 'direct' }).baseline).toBe('direct');
  });
});

describe('noisy cells and TTFB verdicts', () => {
  const result = fakeResult(WALKTHROUGH);
  const proxy = result.cells[1]!;

  it('flags a noisy cell that is not a baseline', () => {
    expect(proxy.stats.loadMs!.cv).toBeGreaterThan(0.1);
    expect(proxy.noisy).toBe(true);
    expect(proxy.noisyBaseline).toBe(false);
    expect(result.cells[0]!.noisy).toBe(false);
  });

  it('judges TTFB beside load time: 486 vs 75 ms is slower, load time is not', () => {
    expect(cellVerdict(proxy, 'loadMs', false)).toMatchObject({ kind: 'same' });
    expect(proxy.comparisons.ttfbMedianMs).toMatchObject({ baseline: 'direct+h2', significant: true });
    expect(proxy.comparisons.ttfbMedianMs!.ratio).toBeCloseTo(486 / 75, 1);
    expect(cellVerdict(proxy, 'ttfbMedianMs', false)).toEqual({ kind: 'slower', text: 'slower than direct+h2 (large)' });
  });

  it('the terminal table shows the TTFB ratio, p and verdict, the noise flag and the smallest p possible', () => {
    const table = formatTable(result);
    const line = table.split('\n').find((l) => l.startsWith('proxy+h2+intercept'))!;
    expect(line).toMatch(/6\.48×\s+0\.008/);
    expect(line).toMatch(/NOISY: load CV \d+% > 10%/);
    expect(line).toMatch(/slower than direct\+h2 \(large\)$/);
    expect(table).toMatch(/Smallest p possible with 5 runs per cell: 0\.008/);
  });
});
