/**
 * Statistics the lab needs to say which differences between cells are real.
 *
 * Page-load times are skewed (a few slow outliers) and samples are small (5 runs
 * a cell), so the lab uses rank statistics rather than means and t-tests:
 *  - Mann-Whitney U (Wilcoxon rank-sum), two-sided: exact distribution for small
 *    samples without ties (normal approximation would be off at n = 5), otherwise
 *    the normal approximation with tie and continuity correction;
 *  - Cliff's delta as the effect size that goes with U (d = 2U/mn − 1).
 * No library on npm does this with care for small samples, hence the code here;
 * tests check it against values from scipy.stats.mannwhitneyu and R's wilcox.test.
 */
import type { Comparison, MetricStats } from './types.js';

/** Linearly interpolated percentile (numpy's default, R type 7) of sorted values; q in [0, 1]. */
export function quantileSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export function median(values: readonly number[]): number {
  return quantileSorted(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? NaN : values.reduce((s, v) => s + v, 0) / values.length;
}

/** Sample standard deviation (n − 1); 0 for fewer than two values. */
export function stdev(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const m = mean(values);
  return Math.sqrt(values.reduce((s, v) => s + (v - m) ** 2, 0) / (values.length - 1));
}

/** Median, p95, min, max, mean, IQR and coefficient of variation of a sample (n ≥ 1). */
export function describe(values: readonly number[]): MetricStats {
  const sorted = [...values].sort((a, b) => a - b);
  const m = mean(sorted);
  return {
    n: sorted.length,
    median: quantileSorted(sorted, 0.5),
    p95: quantileSorted(sorted, 0.95),
    min: sorted[0],
    max: sorted[sorted.length - 1],
    mean: m,
    iqr: quantileSorted(sorted, 0.75) - quantileSorted(sorted, 0.25),
    cv: m === 0 ? 0 : stdev(sorted) / m,
  };
}

/** Standard normal CDF via erf (Abramowitz & Stegun 7.1.26, |error| < 1.5e-7: plenty for p-values). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-x * x);
  return z >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

/** Largest m·n for which the exact U distribution is computed (the DP is O(m·n·m·n)). */
const EXACT_MAX_PRODUCT = 400;

/**
 * Counts of rank arrangements giving each U for sizes m, n (no ties):
 * f(u; m, n) = f(u − n; m − 1, n) + f(u; m, n − 1), from Mann & Whitney (1947).
 */
function exactUCounts(m: number, n: number): number[] {
  // table[i][j] = counts array for sizes (i, j)
  let prev: number[][] = []; // row i - 1
  for (let i = 0; i <= m; i++) {
    const row: number[][] = [];
    for (let j = 0; j <= n; j++) {
      if (i === 0 || j === 0) {
        row.push([1]);
        continue;
      }
      const size = i * j + 1;
      const counts = new Array<number>(size).fill(0);
      const a = prev[j]; // (i - 1, j), shifted by j
      for (let u = 0; u < a.length; u++) counts[u + j] += a[u];
      const b = row[j - 1]; // (i, j - 1)
      for (let u = 0; u < b.length; u++) counts[u] += b[u];
      row.push(counts);
    }
    prev = row;
  }
  return prev[n];
}

export interface MannWhitneyResult {
  /** U of the first sample: pairs (x > y) plus half the ties. */
  u: number;
  /** Two-sided p-value. */
  p: number;
  method: 'exact' | 'normal';
}

/** Two-sided Mann-Whitney U test of x against y. Both samples need at least one value. */
export function mannWhitneyU(x: readonly number[], y: readonly number[]): MannWhitneyResult {
  const m = x.length;
  const n = y.length;
  if (m === 0 || n === 0) return { u: NaN, p: NaN, method: 'normal' };
  // Midranks of the pooled sample.
  const pooled = [...x.map((v) => ({ v, g: 0 })), ...y.map((v) => ({ v, g: 1 }))].sort((a, b) => a.v - b.v);
  const ranks = new Array<number>(pooled.length);
  const tieSizes: number[] = [];
  for (let i = 0; i < pooled.length;) {
    let j = i;
    while (j + 1 < pooled.length && pooled[j + 1].v === pooled[i].v) j++;
    const r = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[k] = r;
    if (j > i) tieSizes.push(j - i + 1);
    i = j + 1;
  }
  let rx = 0;
  pooled.forEach((e, i) => {
    if (e.g === 0) rx += ranks[i];
  });
  const u = rx - (m * (m + 1)) / 2;
  const mn = m * n;

  if (tieSizes.length === 0 && mn <= EXACT_MAX_PRODUCT) {
    const counts = exactUCounts(m, n);
    const total = counts.reduce((s, c) => s + c, 0);
    // U is an integer without ties; the distribution is symmetric around mn/2.
    const k = Math.round(Math.min(u, mn - u));
    let tail = 0;
    for (let i = 0; i <= k; i++) tail += counts[i];
    return { u, p: Math.min(1, (2 * tail) / total), method: 'exact' };
  }

  const N = m + n;
  const tieTerm = tieSizes.reduce((s, t) => s + (t ** 3 - t), 0) / (N * (N - 1));
  const sigma = Math.sqrt((mn / 12) * (N + 1 - tieTerm));
  if (sigma === 0) return { u, p: 1, method: 'normal' };
  const z = Math.max(0, Math.abs(u - mn / 2) - 0.5) / sigma;
  return { u, p: Math.min(1, 2 * (1 - normalCdf(z))), method: 'normal' };
}

/** Cliff's delta: P(x > y) − P(x < y) over all pairs, in [-1, 1]. */
export function cliffsDelta(x: readonly number[], y: readonly number[]): number {
  if (x.length === 0 || y.length === 0) return NaN;
  let greater = 0;
  let less = 0;
  for (const a of x) {
    for (const b of y) {
      if (a > b) greater++;
      else if (a < b) less++;
    }
  }
  return (greater - less) / (x.length * y.length);
}

/** Romano et al. (2006) thresholds for |d|. */
export function cliffsMagnitude(d: number): Comparison['magnitude'] {
  const a = Math.abs(d);
  if (a < 0.147) return 'negligible';
  if (a < 0.33) return 'small';
  if (a < 0.474) return 'medium';
  return 'large';
}

/** Coefficient of variation above which a cell is flagged as noisy (limits.ts: shared with the UI). */
export { NOISY_CV } from './limits.js';

/** Compares sample x (a cell) with y (its baseline). */
export function compare(
  x: readonly number[],
  y: readonly number[],
  baseline: Comparison['baseline'],
  metric: Comparison['metric'],
  alpha: number,
): Comparison {
  const { u, p, method } = mannWhitneyU(x, y);
  const d = cliffsDelta(x, y);
  const my = median(y);
  return {
    baseline,
    metric,
    ratio: my === 0 ? NaN : median(x) / my,
    u,
    p,
    method,
    cliffsDelta: d,
    magnitude: cliffsMagnitude(d),
    significant: p < alpha,
  };
}
