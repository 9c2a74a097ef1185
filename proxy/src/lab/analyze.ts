/**
 * Turns per-run measurements into per-cell statistics and comparisons with the
 * baseline. Pure: the runner calls it after every run (live tables) and once at
 * the end; `netlens lab --baseline` uses the same code on stored results.
 */
import { baselineFor, cellId, cellSettings } from './cells.js';
import { compare, describe, NOISY_CV } from './stats.js';
import { cellBreakdown } from './alignment.js';
import {
  METRICS,
  type CellId,
  type CellResult,
  type CellSettings,
  type Dimension,
  type Effect,
  type MetricName,
  type RunCpu,
  type RunMeasurement,
} from './types.js';

/**
 * The successful runs' values of one metric. Every metric is a time (≥ 0); -1 means
 * unknown (e.g. a run whose browser waits were all unknown, browser/unknown-waits.ts)
 * and is left out rather than averaged.
 */
export function metricValues(runs: readonly RunMeasurement[], metric: MetricName): number[] {
  const known = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
  return runs.filter((r) => r.ok && known(r[metric])).map((r) => r[metric] as number);
}

export function analyze(
  cells: readonly CellId[],
  runs: readonly RunMeasurement[],
  options: { baseline: 'direct' | CellId; alpha: number },
): CellResult[] {
  const byCell = new Map<CellId, RunMeasurement[]>(cells.map((c) => [c, []]));
  for (const r of runs) byCell.get(r.cell)?.push(r);

  const baselines = new Set<CellId>();
  const results: CellResult[] = cells.map((id) => {
    const cellRuns = byCell.get(id) ?? [];
    const stats: CellResult['stats'] = {};
    for (const m of METRICS) {
      const v = metricValues(cellRuns, m);
      if (v.length > 0) stats[m] = describe(v);
    }
    const comparisons: CellResult['comparisons'] = {};
    const base = baselineFor(id, options.baseline);
    if (base && byCell.has(base)) {
      baselines.add(base);
      for (const m of METRICS) {
        const x = metricValues(cellRuns, m);
        const y = metricValues(byCell.get(base) ?? [], m);
        if (x.length > 0 && y.length > 0) comparisons[m] = compare(x, y, base, m, options.alpha);
      }
    }
    const noisy = (stats.loadMs?.cv ?? 0) > NOISY_CV;
    const result: CellResult = { id, settings: cellSettings(id), runs: cellRuns, stats, comparisons, noisyBaseline: false, noisy };
    const stalls = stallStats(cellRuns);
    if (stalls) result.stalls = stalls;
    const breakdown = cellBreakdown(cellRuns);
    if (breakdown) result.breakdown = breakdown;
    const cpu = cellCpu(cellRuns);
    if (cpu) result.cpu = cpu;
    const med = stats.loadMs?.median;
    if (med !== undefined) {
      let best = -1;
      cellRuns.forEach((r, i) => {
        if (r.ok && r.loadMs !== undefined && (best < 0 || Math.abs(r.loadMs - med) < Math.abs(cellRuns[best].loadMs! - med))) best = i;
      });
      if (best >= 0) result.representativeRun = best;
    }
    return result;
  });
  for (const r of results) {
    r.noisyBaseline = baselines.has(r.id) && r.noisy === true;
  }
  return results;
}

/** CellResult.stalls: the stall counts of the successful runs that have one (proxy cells with the timeline on). */
export function stallStats(runs: readonly RunMeasurement[]): CellResult['stalls'] {
  const counted = runs.filter((r) => r.ok && typeof r.proxy?.stalls === 'number');
  if (counted.length === 0) return undefined;
  const counts = counted.map((r) => r.proxy!.stalls!);
  const wall = counted.map((r) => r.proxy!.stallWallMs).filter((v): v is number => typeof v === 'number');
  return {
    runs: counted.length,
    median: median(counts),
    min: Math.min(...counts),
    max: Math.max(...counts),
    ...(wall.length ? { medianWallMs: median(wall) } : {}),
  };
}

const CPU_FIELDS = ['cpuMs', 'waitMs', 'mainThreadCpuMs', 'mainThreadWaitMs'] as const;

/**
 * CellResult.cpu: per process and field, the median over the successful runs that measured it. A results file
 * edited by hand or damaged may hold anything in `cpu`: only finite numbers count.
 */
export function cellCpu(runs: readonly RunMeasurement[]): RunCpu | undefined {
  const out: RunCpu = {};
  for (const who of ['browser', 'proxy', 'site'] as const) {
    const use: Partial<Record<(typeof CPU_FIELDS)[number], number>> = {};
    for (const f of CPU_FIELDS) {
      const values = runs
        .filter((r) => r.ok)
        .map((r) => (r.cpu as RunCpu | undefined)?.[who]?.[f])
        .filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
      if (values.length) use[f] = median(values);
    }
    if (use.cpuMs !== undefined && use.waitMs !== undefined) out[who] = { ...use, cpuMs: use.cpuMs, waitMs: use.waitMs };
  }
  return Object.keys(out).length ? out : undefined;
}

function median(values: readonly number[]): number {
  const v = [...values].sort((a, b) => a - b);
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

const DIMENSIONS: Dimension[] = ['variant', 'http2', 'nagle', 'intercept', 'naive', 'proxy'];

/**
 * The effect of each dimension: every pair of run cells that differ in that one
 * setting, compared on `metric` (variants first: each `<cell>~<name>` against `<cell>`). For `proxy`, the direct cell is compared with
 * the proxy cells that have interception on and Nagle off (the default proxy).
 */
export function effects(cells: readonly CellResult[], alpha: number, metric: MetricName = 'loadMs'): Effect[] {
  const byId = new Map(cells.map((c) => [c.id, c]));
  const out: Effect[] = [];
  for (const dimension of DIMENSIONS) {
    for (const on of cells) {
      const s = on.settings;
      if (!s[dimension]) continue;
      if (dimension === 'proxy' && (!s.intercept || s.nagle || s.naive || s.variant)) continue;
      // variant: the same cell without the variant's rules (`<cell>~<name>` vs `<cell>`).
      const offSettings: CellSettings =
        dimension === 'proxy'
          ? { proxy: false, http2: s.http2, intercept: false, nagle: false }
          : dimension === 'variant'
            ? { ...s, variant: undefined }
            : { ...s, [dimension]: false };
      // cellId of settings that name no cell (e.g. naive with HTTP/2) is simply not among the cells run.
      const off = byId.get(cellId(offSettings));
      if (!off) continue;
      const x = metricValues(on.runs, metric);
      const y = metricValues(off.runs, metric);
      if (x.length === 0 || y.length === 0) continue;
      out.push({ dimension, cell: on.id, versus: off.id, comparison: compare(x, y, off.id, metric, alpha) });
    }
  }
  return out;
}
