/**
 * A cell's stalls and browser/proxy breakdown in words, and which cells use the naive
 * relay: the same text in the terminal table, the HTML report and the Lab view. Pure
 * (no Node imports): the renderer imports it too.
 */
import { cellSettings } from './cells.js';
import type { AlignmentBreakdown, CellBreakdown, CellResult, CpuUse, LabResult } from './types.js';

export type BreakdownPart = keyof AlignmentBreakdown;

/** The five parts in the order they happen (har/align.ts BREAKDOWN_PARTS), as docs/timings.md names them. */
export const BREAKDOWN_SEGMENTS: ReadonlyArray<{ part: BreakdownPart; label: string; color: string }> = [
  { part: 'queue', label: 'browser queue', color: '#9aa0a6' },
  { part: 'clientLeg', label: 'client leg', color: '#f9ab00' },
  { part: 'proxy', label: 'proxy', color: '#a142f4' },
  { part: 'upstream', label: 'upstream', color: '#1a73e8' },
  { part: 'back', label: 'back', color: '#34a853' },
];

/** The relay writes each response head and body chunk on its own (`relay: 'naive'`), as a simple proxy does. */
export function isNaiveRelay(c: Pick<CellResult, 'id'>): boolean {
  return cellSettings(c.id).naive === true;
}

export const NAIVE_RELAY_NOTE = "naive relay: each response's head and body chunks written on their own, as a simple proxy does";

const count = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The cell's stall counts when they are numbers: a hand-edited or damaged results.json may hold anything. */
export function readStalls(c: Pick<CellResult, 'stalls'>): CellResult['stalls'] {
  const s: unknown = c.stalls;
  if (!s || typeof s !== 'object') return undefined;
  const { median, min, max } = s as Record<string, unknown>;
  return isNum(median) && isNum(min) && isNum(max) ? (s as CellResult['stalls']) : undefined;
}

/** The cell's breakdown when its five parts are numbers (same reason). */
export function readBreakdown(c: Pick<CellResult, 'breakdown'>): CellBreakdown | undefined {
  const b: unknown = c.breakdown;
  if (!b || typeof b !== 'object') return undefined;
  const median: unknown = (b as CellBreakdown).median;
  if (!median || typeof median !== 'object') return undefined;
  return BREAKDOWN_SEGMENTS.every(({ part }) => isNum((median as AlignmentBreakdown)[part])) ? (b as CellBreakdown) : undefined;
}

/** `matched/browser requests in N runs`, `?` for what a damaged file lost. */
export function matchedText(b: CellBreakdown): string {
  const n = (v: unknown) => (isNum(v) ? String(v) : '?');
  return `${n(b.matched)}/${n(b.browserEntries)} in ${n(b.runs)} run${b.runs === 1 ? '' : 's'}`;
}

/** Median stalls per run, with the range when runs differ, e.g. `31 (12–40)`; `-` when none were counted. */
export function stallCountText(c: Pick<CellResult, 'stalls'>, none = '-'): string {
  const s = readStalls(c);
  if (!s) return none;
  return s.min === s.max ? count(s.median) : `${count(s.median)} (${s.min}–${s.max})`;
}

/** Median wall-clock time stalled per run, ms (overlaps merged); undefined when not known (no count, or an older file). */
export function stallWallMs(c: Pick<CellResult, 'stalls'>): number | undefined {
  const v = readStalls(c)?.medianWallMs;
  return isNum(v) ? v : undefined;
}

/** Sum of a breakdown's parts: the median request's browser time, roughly (medians per part do not add up exactly). */
export function breakdownTotal(b: AlignmentBreakdown): number {
  return BREAKDOWN_SEGMENTS.reduce((n, { part }) => n + (Number.isFinite(b[part]) ? Math.max(0, b[part]) : 0), 0);
}

/**
 * Why a cell has no breakdown: no alignment was made, and the reason where the cell's kind tells it.
 * `short`: the reason in a few words (for a chart row), else a sentence.
 */
export function missingBreakdownReason(c: CellResult, short = false): string {
  if (c.breakdown !== undefined) return short ? 'Breakdown unreadable' : 'The breakdown stored in results.json cannot be read.';
  const s = cellSettings(c.id);
  const [brief, why]: [string, string] = !s.proxy
    ? ['direct cell', 'a direct cell has no proxy HAR to align the browser’s with']
    : s.via
      ? ['external proxy', 'the lab keeps no HAR of an external proxy']
      : !s.intercept
        ? ['tunnel', 'a tunnel hides the requests inside TLS from the proxy, so none can be matched']
        : !(Array.isArray(c.runs) && c.runs.some((r) => r?.ok))
          ? ['no successful run', 'no run succeeded']
          : ['no run aligned', 'no run was aligned (its proxy HAR was not kept, no request matched, or the results predate alignment)'];
  return short ? `No breakdown: no alignment was made (${brief})` : `No breakdown: no alignment was made — ${why}.`;
}

/** One process's CPU use in words, e.g. `proxy 64 ms (main thread 50 ms, waited 90 ms for a core)`. */
function cpuPart(name: string, u: CpuUse): string {
  const n = (v: number) => `${v >= 10 ? v.toFixed(0) : v.toFixed(1)} ms`;
  const main = u.mainThreadCpuMs !== undefined ? `main thread ${n(u.mainThreadCpuMs)}, ` : '';
  const waited = u.mainThreadWaitMs !== undefined ? u.mainThreadWaitMs : u.waitMs;
  return `${name} ${n(u.cpuMs)} (${main}waited ${n(waited)} for a core)`;
}

/** "at nice 10" or "at normal priority": a `--browser-nice` value in words (0 or absent: the normal one). */
export function priorityText(nice: number | undefined): string {
  return nice ? `at nice ${nice}` : 'at normal priority';
}

/** "browsers at nice 10" or "browsers at normal priority": what `--browser-nice` the run had. */
export function browserPriorityText(result: Pick<LabResult, 'config'>): string {
  return `browsers ${priorityText(result.config?.browserNice)}`;
}

/**
 * The cell's median CPU use per run in words: browser, proxy (proxy cells), test site; undefined when not measured
 * (not Linux, or a file written before it). "waited" is the main thread's for Node processes, all threads' for the browser.
 */
export function cpuText(c: Pick<CellResult, 'cpu'>): string | undefined {
  const cpu = c.cpu;
  if (!cpu || typeof cpu !== 'object') return undefined;
  const parts: string[] = [];
  for (const [key, label] of [
    ['browser', 'browser'],
    ['proxy', 'proxy'],
    ['site', 'test site'],
  ] as const) {
    const u = cpu[key];
    if (u && isNum(u.cpuMs) && isNum(u.waitMs)) parts.push(cpuPart(label, u));
  }
  return parts.length ? parts.join(' · ') : undefined;
}
