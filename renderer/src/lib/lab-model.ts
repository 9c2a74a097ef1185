/**
 * Lab results (lab/types.ts LabResult) → what the Lab view shows: table rows,
 * chart series with spread, and the representative (median) run of a cell.
 */
import type { CellId, CellResult, LabResult, MetricName, RunMeasurement } from '../../../proxy/src/api/contract';
import { baselineChoices, baselineFor } from '../../../proxy/src/lab/cells';
import { LAB_LIMITS, minPValue, minRunsFor } from '../../../proxy/src/lab/limits';
import { cellVerdict, isNoisy, type Verdict } from '../../../proxy/src/lab/verdict';

export interface LabTableRow {
  cell: string;
  isBaseline: boolean;
  baseline?: string;
  runs: number;
  failures: number;
  median?: number;
  p95?: number;
  cv?: number;
  ratio?: number;
  p?: number;
  significant: boolean;
  magnitude?: string;
  noisyBaseline: boolean;
  /** Load-time CV over the threshold, baseline or not. */
  noisy: boolean;
  loadVerdict: Verdict;
  ttfbMedian?: number;
  ttfbRatio?: number;
  ttfbP?: number;
  ttfbVerdict: Verdict;
  connections?: number;
}

function medianOf(values: number[]): number | undefined {
  if (!values.length) return undefined;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1]! + s[mid]!) / 2;
}

export function labTableRows(result: LabResult, metric: MetricName = 'loadMs'): LabTableRow[] {
  const baselines = new Set(result.cells.flatMap((c) => Object.values(c.comparisons).map((cmp) => cmp!.baseline)));
  const configured = result.config?.baseline;
  return result.cells.map((c) => {
    const stats = c.stats[metric];
    const cmp = c.comparisons[metric];
    const tcmp = c.comparisons.ttfbMedianMs;
    const ok = c.runs.filter((r) => r.ok);
    // A cell is a baseline when the others are compared with it, or when the configured rule makes it its own.
    const isBaseline = (baselines.has(c.id) || (configured !== undefined && baselineFor(c.id, configured) === undefined)) && !cmp;
    return {
      cell: c.id,
      isBaseline,
      baseline: cmp?.baseline,
      runs: c.runs.length,
      failures: c.runs.length - ok.length,
      median: stats?.median,
      p95: stats?.p95,
      cv: stats?.cv,
      ratio: cmp?.ratio,
      p: cmp?.p,
      significant: cmp?.significant ?? false,
      magnitude: cmp?.magnitude,
      noisyBaseline: c.noisyBaseline,
      noisy: isNoisy(c),
      loadVerdict: cellVerdict(c, metric, isBaseline),
      ttfbMedian: c.stats.ttfbMedianMs?.median,
      ttfbRatio: tcmp?.ratio,
      ttfbP: tcmp?.p,
      ttfbVerdict: cellVerdict(c, 'ttfbMedianMs', isBaseline),
      connections: medianOf(ok.map((r) => r.connections).filter((n): n is number => typeof n === 'number')),
    };
  });
}

export interface ChartPoint {
  cell: string;
  median: number;
  /** [below, above] the median, for recharts' ErrorBar: min..max spread. */
  spread: [number, number];
  p95: number;
}

export function chartSeries(result: LabResult, metric: MetricName): ChartPoint[] {
  const out: ChartPoint[] = [];
  for (const c of result.cells) {
    const s = c.stats[metric];
    if (!s) continue;
    out.push({ cell: c.id, median: s.median, spread: [s.median - s.min, s.max - s.median], p95: s.p95 });
  }
  return out;
}

/** The successful run whose metric is closest to the cell's median (first on ties). */
export function representativeRun(cell: CellResult, metric: MetricName = 'loadMs'): RunMeasurement | undefined {
  const runs = cell.runs.filter((r) => r.ok && typeof r[metric] === 'number');
  const med = medianOf(runs.map((r) => r[metric] as number));
  if (med === undefined) return undefined;
  let best: RunMeasurement | undefined;
  for (const r of runs) if (!best || Math.abs((r[metric] as number) - med) < Math.abs((best[metric] as number) - med)) best = r;
  return best;
}

/**
 * The baseline the form sends for these cells: the one picked when it is among
 * the choices (cells being run), else the first choice. Undefined without cells.
 */
export function formBaseline(cells: readonly CellId[], picked: 'direct' | CellId | undefined): 'direct' | CellId | undefined {
  const choices = baselineChoices(cells);
  return picked !== undefined && choices.includes(picked) ? picked : choices[0];
}

/** Which cell each cell will be compared with (undefined: it is a baseline, or its direct cell is not run). */
export function baselinePlan(
  cells: readonly CellId[],
  baseline: 'direct' | CellId,
): Array<{ cell: CellId; vs?: CellId; missing?: CellId }> {
  return cells.map((cell) => {
    const vs = baselineFor(cell, baseline);
    if (vs === undefined) return { cell };
    return cells.includes(vs) ? { cell, vs } : { cell, missing: vs };
  });
}

/** The hint beside the runs field: the smallest p `runs` runs per cell can give, and whether that is enough. */
export function runsHint(runs: number, alpha = 0.05): { minP: number; enough: boolean; text: string } | undefined {
  if (!Number.isInteger(runs) || runs < LAB_LIMITS.runs.min || runs > LAB_LIMITS.runs.max) return undefined;
  const minP = minPValue(runs);
  const shown = minP < 0.001 ? minP.toExponential(1) : minP.toPrecision(2);
  const enough = minP < alpha;
  return {
    minP,
    enough,
    text: enough
      ? `smallest p possible: ${shown} (< ${alpha})`
      : `smallest p possible: ${shown} — never significant at ${alpha}; use at least ${minRunsFor(alpha)} runs`,
  };
}
