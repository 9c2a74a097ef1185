/**
 * CI checks on lab results: per-cell budgets (`--budget FILE`) and regressions
 * against stored results (`--baseline results.json`). Each failure is one
 * readable sentence; an empty list means the check passed.
 */
import { allCells, isCellId, isViaCellId } from './cells.js';
import { checkVariantCellName, parseVariantCell } from './variants.js';
import { metricValues } from './analyze.js';
import { compare } from './stats.js';
import { METRICS, type Budget, type CellId, type CellResult, type CheckFailure, type LabResult, type MetricName } from './types.js';

const STATS = ['median', 'p95', 'max', 'mean'] as const;

/**
 * Validates a parsed budget file and returns it typed; throws with a message
 * naming the bad key so users can fix the file. Via cells are valid for `viaNames`,
 * variant cells (`<proxy cell>~<name>`) for `variantNames`.
 */
export function parseBudget(data: unknown, viaNames: readonly string[] = [], variantNames: readonly string[] = []): Budget {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new Error('a budget file is a JSON object: {"<cell>": {"<metric>": {"median": <ms>}}}');
  }
  for (const [cell, metrics] of Object.entries(data)) {
    try {
      if (!checkVariantCellName(cell, allCells(viaNames), variantNames) && !isCellId(cell, viaNames)) {
        throw new Error(`unknown cell "${cell}". Valid cells: ${allCells(viaNames).join(', ')}`);
      }
    } catch (err) {
      throw new Error(`budget: ${(err as Error).message}`, { cause: err });
    }
    if (typeof metrics !== 'object' || metrics === null) throw new Error(`budget: "${cell}" must map metrics to limits`);
    for (const [metric, limits] of Object.entries(metrics as object)) {
      if (!(METRICS as readonly string[]).includes(metric)) {
        throw new Error(`budget: unknown metric "${metric}" in "${cell}" (valid: ${METRICS.join(', ')})`);
      }
      if (typeof limits !== 'object' || limits === null)
        throw new Error(`budget: "${cell}.${metric}" must be an object like {"median": 1500}`);
      for (const [stat, limit] of Object.entries(limits as object)) {
        if (!(STATS as readonly string[]).includes(stat))
          throw new Error(`budget: unknown statistic "${stat}" in "${cell}.${metric}" (valid: ${STATS.join(', ')})`);
        if (typeof limit !== 'number' || !Number.isFinite(limit) || limit < 0)
          throw new Error(`budget: "${cell}.${metric}.${stat}" must be a number of ms`);
      }
    }
  }
  return data as Budget;
}

export function checkBudget(cells: readonly CellResult[], budget: Budget): CheckFailure[] {
  const failures: CheckFailure[] = [];
  for (const [key, metrics] of Object.entries(budget)) {
    if (!isCellId(key) && !isViaCellId(key) && !parseVariantCell(key)) continue;
    const cell = key as CellId;
    const result = cells.find((c) => c.id === cell);
    for (const [metric, limits] of Object.entries(metrics ?? {}) as [MetricName, Partial<Record<(typeof STATS)[number], number>>][]) {
      const stats = result?.stats[metric];
      if (!stats) {
        failures.push({ cell, metric, message: `${cell}: no successful runs to check ${metric} against the budget` });
        continue;
      }
      for (const stat of STATS) {
        const limit = limits[stat];
        if (limit !== undefined && stats[stat] > limit) {
          failures.push({
            cell,
            metric,
            message: `${cell}: ${metric} ${stat} ${stats[stat].toFixed(1)} ms exceeds the budget of ${limit} ms`,
          });
        }
      }
    }
  }
  return failures;
}

/**
 * Fails a cell when it is significantly slower than the same cell in stored
 * results (Mann-Whitney p < alpha) AND its median grew by more than `maxRatio`.
 * Both are needed: significance alone flags tiny real changes, a ratio alone flags noise.
 */
export function checkRegression(
  current: readonly CellResult[],
  stored: LabResult,
  options: { maxRatio: number; alpha: number; metric?: MetricName },
): CheckFailure[] {
  const metric = options.metric ?? 'loadMs';
  const failures: CheckFailure[] = [];
  for (const cell of current) {
    const before = stored.cells?.find((c) => c.id === cell.id);
    if (!before) continue;
    const x = metricValues(cell.runs, metric);
    const y = metricValues(before.runs, metric);
    if (x.length === 0 || y.length === 0) continue;
    const c = compare(x, y, cell.id, metric, options.alpha);
    if (c.significant && c.ratio > options.maxRatio) {
      failures.push({
        cell: cell.id,
        metric,
        message: `${cell.id}: ${metric} median is ${c.ratio.toFixed(2)}× the baseline's (limit ${options.maxRatio}×, p = ${c.p.toPrecision(2)}, Cliff's δ = ${c.cliffsDelta.toFixed(2)})`,
      });
    }
  }
  return failures;
}
