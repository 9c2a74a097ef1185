/**
 * The lab's run history: every run the app starts writes `<data>/lab/<runId>/`
 * (results.json + har/), and this module lists, reads, deletes and compares
 * those directories. A damaged directory is listed with its reason; it never
 * breaks the list.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCodes, NetlensError } from '../errors.js';
import { baselineFor } from './cells.js';
import { parseLabResult, RESULT_FILE_MAX_BYTES } from './result-file.js';
import { compare } from './stats.js';
import { metricValues } from './analyze.js';
import type { CellId, LabHistoryEntry, LabResult, LabRunComparison, LabTarget } from './types.js';
import { cellVerdict, isNoisy, VERDICT_METRICS } from './verdict.js';

/** A run id is one directory name: no separators, no dot-dot, bounded. */
export const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** The history lists at most this many runs (newest first); older ones stay on disk. */
export const HISTORY_MAX_RUNS = 500;

export function isRunId(s: unknown): s is string {
  return typeof s === 'string' && RUN_ID.test(s) && !s.includes('..');
}

export function targetLabel(t: LabTarget): string {
  if (t.kind === 'url') return t.url;
  const conn =
    t.connectionLatencyMs !== undefined && t.connectionLatencyMs !== t.latencyMs ? `, ${t.connectionLatencyMs} ms per connection` : '';
  return `test site, ${t.images} images, ${t.latencyMs} ms latency${conn}`;
}

/** Runs with equal keys loaded the same page under the same conditions. */
export function targetKey(t: LabTarget): string {
  return t.kind === 'url' ? `url ${t.url}` : `site ${t.images} ${t.latencyMs} ${t.connectionLatencyMs ?? t.latencyMs}`;
}

/** The significant verdicts of a run, load time first, at most `max`. */
export function headlines(result: LabResult, max = 4): string[] {
  const out: string[] = [];
  for (const { metric, label } of VERDICT_METRICS) {
    for (const c of result.cells) {
      const v = cellVerdict(c, metric, baselineFor(c.id, result.config.baseline) === undefined);
      if (v.kind === 'slower' || v.kind === 'faster') out.push(`${c.id}: ${label} ${v.text}`);
    }
  }
  return out.length > max ? [...out.slice(0, max), `… ${out.length - max} more`] : out;
}

export function historyEntry(runId: string, result: LabResult): LabHistoryEntry {
  return {
    runId,
    state: 'ok',
    startedAt: result.startedAt,
    target: targetLabel(result.config.target),
    targetKey: targetKey(result.config.target),
    cells: result.cells.map((c) => c.id),
    runs: result.config.runs,
    aborted: result.aborted === true,
    headlines: headlines(result),
    noisyCells: result.cells.filter(isNoisy).map((c) => c.id),
  };
}

/** Reads `<dir>/results.json`; throws NL_LAB_RESULT_INVALID (or NL_NOT_FOUND when there is none) with the reason. */
export async function readRunDir(dir: string): Promise<LabResult> {
  const file = path.join(dir, 'results.json');
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(file);
  } catch {
    throw new NetlensError(
      ErrorCodes.NOT_FOUND,
      `${dir} has no results.json (the run was interrupted before it finished, or this is not a lab run directory)`,
    );
  }
  if (!stat.isFile()) throw new NetlensError(ErrorCodes.LAB_RESULT_INVALID, `${file} is not a file`);
  if (stat.size > RESULT_FILE_MAX_BYTES) {
    throw new NetlensError(
      ErrorCodes.LAB_RESULT_INVALID,
      `${file} is ${stat.size} bytes, more than the ${RESULT_FILE_MAX_BYTES} a lab result can be`,
    );
  }
  return parseLabResult(await fs.promises.readFile(file, 'utf8'), file);
}

/**
 * The runs under `labDir`, newest first. `skip` names directories not to read
 * (runs still in progress, listed by their owner). Parsed entries are cached by
 * results.json's mtime and size, so listing again reads only what changed.
 */
export class LabHistory {
  private readonly cache = new Map<string, { key: string; entry: LabHistoryEntry }>();

  constructor(readonly labDir: string) {}

  runDir(runId: string): string {
    if (!isRunId(runId)) throw new NetlensError(ErrorCodes.API_BAD_REQUEST, `"${String(runId).slice(0, 80)}" is not a lab run id`);
    return path.join(this.labDir, runId);
  }

  async list(skip: ReadonlySet<string> = new Set()): Promise<LabHistoryEntry[]> {
    let names: fs.Dirent[];
    try {
      names = await fs.promises.readdir(this.labDir, { withFileTypes: true });
    } catch {
      return [];
    }
    const dirs = names.filter((d) => d.isDirectory() && isRunId(d.name) && !skip.has(d.name)).map((d) => d.name);
    // Run ids start with their ISO start time, so names sort by date.
    dirs.sort().reverse();
    const out: LabHistoryEntry[] = [];
    for (const runId of dirs.slice(0, HISTORY_MAX_RUNS)) out.push(await this.entry(runId));
    return out.sort((x, y) => dateOf(y).localeCompare(dateOf(x)));
  }

  private async entry(runId: string): Promise<LabHistoryEntry> {
    const dir = path.join(this.labDir, runId);
    const stat = await fs.promises.stat(path.join(dir, 'results.json')).catch(() => undefined);
    const key = stat ? `${stat.mtimeMs} ${stat.size}` : 'none';
    const hit = this.cache.get(runId);
    if (hit?.key === key) return hit.entry;
    let entry: LabHistoryEntry;
    try {
      entry = historyEntry(runId, await readRunDir(dir));
    } catch (err) {
      const modified = await fs.promises
        .stat(dir)
        .then((s) => s.mtime.toISOString())
        .catch(() => undefined);
      // The run's own directory is implied: "results.json is not valid JSON…", not the full path.
      const reason = (err as Error).message
        .split(dir + path.sep)
        .join('')
        .split(dir)
        .join('this run directory');
      entry = { runId, state: 'damaged', reason, ...(modified ? { modifiedAt: modified } : {}) };
    }
    this.cache.set(runId, { key, entry });
    return entry;
  }

  async read(runId: string): Promise<LabResult> {
    return readRunDir(this.runDir(runId));
  }

  async remove(runId: string): Promise<boolean> {
    const dir = this.runDir(runId);
    this.cache.delete(runId);
    if (!fs.existsSync(dir)) return false;
    await fs.promises.rm(dir, { recursive: true, force: true });
    return true;
  }
}

function dateOf(e: LabHistoryEntry): string {
  return e.state === 'ok' ? e.startedAt : (e.modifiedAt ?? '');
}

/**
 * Run `b` against run `a`, cell by cell, on load time and TTFB: ratio of medians
 * and Mann-Whitney p of b's runs against a's. Both must have loaded the same target.
 */
export function compareRuns(
  a: { runId: string; result: LabResult },
  b: { runId: string; result: LabResult },
  alpha = 0.05,
): LabRunComparison {
  const ka = targetKey(a.result.config.target);
  const kb = targetKey(b.result.config.target);
  if (ka !== kb) {
    throw new NetlensError(
      ErrorCodes.USAGE,
      `runs ${a.runId} and ${b.runId} loaded different targets (${targetLabel(a.result.config.target)} / ` +
        `${targetLabel(b.result.config.target)}); compare runs of the same target`,
    );
  }
  const inA = new Map(a.result.cells.map((c) => [c.id, c]));
  const inB = new Map(b.result.cells.map((c) => [c.id, c]));
  const cells: LabRunComparison['cells'] = [];
  for (const cb of b.result.cells) {
    const ca = inA.get(cb.id);
    if (!ca) continue;
    cells.push({
      cell: cb.id,
      metrics: VERDICT_METRICS.map(({ metric }) => {
        const x = metricValues(cb.runs, metric);
        const y = metricValues(ca.runs, metric);
        return {
          metric,
          ...(ca.stats[metric] ? { a: ca.stats[metric]!.median } : {}),
          ...(cb.stats[metric] ? { b: cb.stats[metric]!.median } : {}),
          ...(x.length && y.length ? { comparison: compare(x, y, cb.id, metric, alpha) } : {}),
        };
      }),
    });
  }
  const side = (s: { runId: string; result: LabResult }) => ({ runId: s.runId, startedAt: s.result.startedAt, runs: s.result.config.runs });
  return {
    a: side(a),
    b: side(b),
    target: targetLabel(b.result.config.target),
    cells,
    onlyA: a.result.cells.filter((c) => !inB.has(c.id)).map((c) => c.id as CellId),
    onlyB: b.result.cells.filter((c) => !inA.has(c.id)).map((c) => c.id as CellId),
  };
}
