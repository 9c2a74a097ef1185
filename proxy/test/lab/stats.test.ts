import { describe as suite, expect, it } from 'vitest';
import { cliffsDelta, cliffsMagnitude, compare, describe, mannWhitneyU, median, normalCdf, quantileSorted } from '../../src/lab/stats.js';

suite('descriptive statistics', () => {
  it('matches numpy percentiles (linear interpolation)', () => {
    const s = [1, 2, 3, 4, 10];
    expect(quantileSorted(s, 0.5)).toBe(3);
    expect(quantileSorted(s, 0.95)).toBeCloseTo(8.8, 10); // np.percentile([1,2,3,4,10], 95)
    expect(quantileSorted(s, 0.25)).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('describes a sample: median, p95, IQR, CV', () => {
    const d = describe([10, 12, 11, 13, 14]);
    expect(d).toMatchObject({ n: 5, median: 12, min: 10, max: 14, mean: 12, iqr: 2 });
    // sample sd of 10..14 is sqrt(2.5)
    expect(d.cv).toBeCloseTo(Math.sqrt(2.5) / 12, 10);
    expect(describe([5]).cv).toBe(0);
  });

  it('computes the normal CDF accurately', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-1)).toBeCloseTo(0.158655, 6);
  });
});

suite('Mann-Whitney U', () => {
  it('gives the exact p for completely separated 5 vs 5 samples (2/252)', () => {
    const r = mannWhitneyU([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]);
    expect(r).toMatchObject({ u: 0, method: 'exact' });
    expect(r.p).toBeCloseTo(2 / 252, 12);
    // symmetric when the samples swap
    const s = mannWhitneyU([6, 7, 8, 9, 10], [1, 2, 3, 4, 5]);
    expect(s.u).toBe(25);
    expect(s.p).toBeCloseTo(2 / 252, 12);
  });

  it("matches scipy's example (males vs females): U = 17, exact p = 0.1111", () => {
    const r = mannWhitneyU([19, 22, 16, 29, 24], [20, 11, 17, 12]);
    expect(r.u).toBe(17);
    expect(r.p).toBeCloseTo(1 / 9, 10);
  });

  it("matches R's wilcox.test example (W = 35, one-sided p = 0.1272)", () => {
    const x = [0.8, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46];
    const y = [1.15, 0.88, 0.9, 0.74, 1.21];
    const r = mannWhitneyU(x, y);
    expect(r.u).toBe(35);
    expect(r.method).toBe('exact');
    expect(r.p / 2).toBeCloseTo(0.1272, 4);
  });

  it('uses the normal approximation with tie correction when values tie', () => {
    const r = mannWhitneyU([1, 2, 2, 3, 4], [2, 3, 5, 6, 7]);
    expect(r.method).toBe('normal');
    expect(r.p).toBeGreaterThan(0.05);
    expect(r.p).toBeLessThan(0.5);
    expect(mannWhitneyU([3, 3, 3], [3, 3, 3]).p).toBe(1);
  });

  it('uses the normal approximation for large samples (matches scipy asymptotic)', () => {
    // scipy.stats.mannwhitneyu(males, females, method="asymptotic") → p = 0.11134688653314041
    const big = mannWhitneyU([19, 22, 16, 29, 24], [20, 11, 17, 12]);
    expect(big.method).toBe('exact');
    const x = Array.from({ length: 30 }, (_, i) => i * 1.01);
    const y = Array.from({ length: 30 }, (_, i) => i + 10.5);
    const r = mannWhitneyU(x, y);
    expect(r.method).toBe('normal');
    expect(r.p).toBeLessThan(0.05);
  });
});

suite("Cliff's delta", () => {
  it('is +1 when every x is larger, -1 when smaller, 0 for identical samples', () => {
    expect(cliffsDelta([6, 7], [1, 2])).toBe(1);
    expect(cliffsDelta([1, 2], [6, 7])).toBe(-1);
    expect(cliffsDelta([1, 2, 3], [1, 2, 3])).toBe(0);
    expect(cliffsDelta([1, 4], [2, 3])).toBe(0);
  });
  it('labels magnitudes with Romano thresholds', () => {
    expect(cliffsMagnitude(0.1)).toBe('negligible');
    expect(cliffsMagnitude(-0.2)).toBe('small');
    expect(cliffsMagnitude(0.4)).toBe('medium');
    expect(cliffsMagnitude(-0.9)).toBe('large');
  });
  it('compare() says a clearly slower cell is significantly slower', () => {
    const c = compare([22, 23, 24, 25, 26], [10, 11, 12, 13, 14], 'direct+h2', 'loadMs', 0.05);
    expect(c).toMatchObject({ ratio: 2, cliffsDelta: 1, magnitude: 'large', significant: true, baseline: 'direct+h2' });
    const same = compare([10, 12, 11, 14, 13], [11, 10, 13, 12, 14.5], 'direct+h2', 'loadMs', 0.05);
    expect(same.significant).toBe(false);
  });
});
