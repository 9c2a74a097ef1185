/**
 * One sentence per comparison ("slower than direct+h2 (large)"), the same words
 * in the terminal table, the Lab view and the HTML report. Pure: the renderer
 * imports it too.
 */
import type { CellResult, Comparison, MetricName } from './types.js';
import { NOISY_CV } from './limits.js';

/** The metrics every table judges: page load time and time to first byte (median per run). */
export const VERDICT_METRICS = [
  { metric: 'loadMs', label: 'load' },
  { metric: 'ttfbMedianMs', label: 'TTFB' },
] as const satisfies ReadonlyArray<{ metric: MetricName; label: string }>;

export type VerdictKind = 'slower' | 'faster' | 'same' | 'baseline' | 'none' | 'no-baseline';

export interface Verdict {
  kind: VerdictKind;
  text: string;
}

/** A comparison in words: significant ones say slower/faster and how much (Cliff's delta). */
export function comparisonVerdict(cmp: Comparison | undefined): Verdict | undefined {
  if (!cmp || !Number.isFinite(cmp.p)) return undefined;
  if (!cmp.significant) return { kind: 'same', text: `≈ ${cmp.baseline} (not significant)` };
  const slower = cmp.ratio >= 1;
  return { kind: slower ? 'slower' : 'faster', text: `${slower ? 'slower' : 'faster'} than ${cmp.baseline} (${cmp.magnitude})` };
}

/** Is the cell noisy (load-time CV over the threshold)? Older results.json files lack `noisy`: derive it. */
export function isNoisy(cell: Pick<CellResult, 'noisy' | 'stats'>): boolean {
  return cell.noisy ?? (cell.stats?.loadMs?.cv ?? 0) > NOISY_CV;
}

/**
 * A cell's verdict on one metric, also when there is no comparison: the cell is
 * a baseline, no run succeeded, or its baseline was not run.
 */
export function cellVerdict(cell: CellResult, metric: MetricName, isBaseline: boolean): Verdict {
  if (!cell.runs.some((r) => r.ok)) return { kind: 'none', text: 'no successful run' };
  const v = comparisonVerdict(cell.comparisons[metric]);
  if (v) return v;
  if (isBaseline) return { kind: 'baseline', text: 'baseline' };
  return { kind: 'no-baseline', text: 'not compared (its baseline has no successful run or was not run)' };
}
