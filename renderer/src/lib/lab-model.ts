/**
 * Lab results (lab/types.ts LabResult) → what the Lab view shows: table rows,
 * chart series with spread, and the representative (median) run of a cell.
 */
import type { CellResult, LabResult, MetricName, RunMeasurement } from '../../../proxy/src/api/contract';

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
  ttfbMedian?: number;
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
  return result.cells.map((c) => {
    const stats = c.stats[metric];
    const cmp = c.comparisons[metric];
    const ok = c.runs.filter((r) => r.ok);
    return {
      cell: c.id,
      isBaseline: baselines.has(c.id) && !cmp,
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
      ttfbMedian: c.stats.ttfbMedianMs?.median,
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
