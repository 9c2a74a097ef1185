/**
 * What a feature costs Netlens, measured as pairs: the recording Netlens against the same Netlens with one
 * feature off (recording, the socket timeline), in many short rounds, each round giving one ratio. On a shared
 * two-core machine a proxy's CPU per request drifts by ±10–25% between runs a minute apart (docs/benchmarks.md),
 * and by up to ±20% between windows seconds apart, more than the 5% and 10% these goals allow; so one client
 * process (bench/load/https-paired-client.ts), warm on both proxies, alternates half-second windows between
 * them, the order within a round alternating, and the median of the rounds' ratios (with their range) is what
 * the goals table judges.
 */
import { fmtRatio, median } from '../lib/stats.js';
import { scriptResult } from '../lib/child.js';
import type { HttpsCondition } from './https-intercept.js';
import type { PairedWindow } from '../load/https-paired-client.js';
import { TIMELINE_OFF } from '../report/timeline-cost.js';

/**
 * Rounds and measured window per condition: 40 × 2 windows of 0.5 s, plus 1 s of warm-up each, per level and pair:
 * ~3 minutes for 2 levels × 2 pairs. Until 2026-11-27 a round was two 2 s windows, each from a fresh client process
 * (~4.5 s apiece with its start and warm-up), 8 rounds: rounds of the same pair of proxies ranged 0.75–1.52×.
 */
export const PAIRED_ROUNDS = 40;
export const PAIRED_WINDOW_MS = 500;
/**
 * Rounds of recording on vs off in one process (pairedToggle), per level: ~2 minutes each. Rounds of 0.5 s windows
 * spread by ±13–16% (standard deviation of their ratios, A/A runs), so the median of 120 is good to about ±1.5%.
 */
export const TOGGLE_ROUNDS = 120;
const PAIRED_WARMUP_MS = 1000;

/** A proxy process in a state: `before` is POSTed before each of its windows (bench/load/https-paired-client.ts). */
export type PairedSubject = HttpsCondition & { before?: string };

export interface PairedCost {
  connections: number;
  /** The condition with the feature on (the recording, timeline-on Netlens). */
  on: string;
  off: string;
  /** Per round: on's CPU per request ÷ off's, on's req/s ÷ off's. */
  cpuRatios: number[];
  rpsRatios: number[];
}

/**
 * One paired client run: `rounds` rounds, each a window of one process of side A and one of side B (A's i-th
 * process with B's i-th, pairs in turn, each pair in both orders). Start the sides' processes A B B A
 * (bench/load/https-paired-client.ts says why).
 */
export function runPairedClient(
  url: string,
  a: PairedSubject[],
  b: PairedSubject[],
  caFiles: string[],
  concurrency: number,
  rounds: number,
  windowMs: number,
  /** Requests in the lab's page shape instead of GETs of `url`: these paths of its origin in turn, with these headers. */
  page?: { paths: string[]; headers: Record<string, string> },
): Promise<PairedWindow[][]> {
  if (a.length === 0 || a.length !== b.length) throw new Error('paired rounds need as many processes on each side, at least one');
  const proxies = [...a, ...b].map((c) => {
    if (!c.child) throw new Error(`paired rounds need proxies; ${c.name} is not one`);
    return { url: `http://127.0.0.1:${c.child.info.port}`, pid: c.child.pid, before: c.before };
  });
  const pairs = a.map((_, i) => [i, a.length + i]);
  const cfg = { url, caFiles, concurrency, rounds, windowMs, warmupMs: PAIRED_WARMUP_MS, proxies, pairs, ...page };
  // Bounded: the client is killed (by its PID) if it overruns.
  const timeout = 2 * (proxies.length * PAIRED_WARMUP_MS + rounds * 2 * windowMs) + 60_000;
  const args = [JSON.stringify(cfg)];
  return scriptResult<{ rounds: PairedWindow[][] }>('load/https-paired-client.ts', args, 'paired client', timeout).then((r) => r.rounds);
}

export const cpuPerReq = (w: PairedWindow) => (w.requests ? w.cpuNs / 1000 / w.requests : NaN);
export const rps = (w: PairedWindow) => (w.requests * 1000) / w.ms;

/**
 * The paired rounds of `on` against each of `offs`, at each level of concurrency. `on` and each entry of `offs` are
 * the processes of one condition (the same name), two each started A B B A against every off, or one each.
 */
export async function pairedCosts(
  url: string,
  on: HttpsCondition[],
  offs: HttpsCondition[][],
  rounds: number,
  windowMs: number,
  log: (s: string) => void,
  levels = [1, 16],
): Promise<PairedCost[]> {
  const caFiles = [...new Set([...on, ...offs.flat()].flatMap((c) => (c.child?.info.caPath ? [c.child.info.caPath] : [])))];
  const out: PairedCost[] = [];
  for (const conc of levels) {
    for (const offProcesses of offs) {
      out.push(await pairedRow(url, conc, on, offProcesses, caFiles, rounds, windowMs, log));
    }
  }
  return out;
}

/** One row of paired rounds: `on`'s subjects against `off`'s at `conc` connections. */
async function pairedRow(
  url: string,
  conc: number,
  on: PairedSubject[],
  off: PairedSubject[],
  caFiles: string[],
  rounds: number,
  windowMs: number,
  log: (s: string) => void,
): Promise<PairedCost> {
  const row: PairedCost = { connections: conc, on: on[0]!.name, off: off[0]!.name, cpuRatios: [], rpsRatios: [] };
  const label = `paired c=${conc} ${row.on} / ${row.off}`;
  let windows: PairedWindow[][];
  try {
    windows = await runPairedClient(url, on, off, caFiles, conc, rounds, windowMs);
  } catch (err) {
    log(`  ${label}: ${(err as Error).message.split('\n')[0]}`);
    return row;
  }
  for (const [a, b] of windows) {
    // A window with errors measured something else (a proxy failing fast): left out, and said.
    if (!a || !b || a.errors || b.errors || !a.requests || !b.requests) {
      log(`  ${label}: a round with errors or no requests left out`);
      continue;
    }
    row.cpuRatios.push(cpuPerReq(a) / cpuPerReq(b));
    row.rpsRatios.push(rps(a) / rps(b));
  }
  if (row.cpuRatios.length) log(`  ${label}: ${pairedText(row)}`);
  return row;
}

/** Names of the recorder's states in one process (pairedToggle): the rows of the goals table that judge recording. */
export const RECORDER_ON = 'netlens, recorder started';
export const RECORDER_OFF = 'netlens, recorder stopped';

/**
 * Recording on against off in one process (bench/peers/netlens.ts `toggle`: bodies captured, the recorder started and
 * stopped through its control port before each window), at each level: no second process, so nothing of a process's
 * own (its start order, its placement) can be taken for recording's cost; what differs is the recorder alone, as
 * when a user starts and stops a recording in the app.
 */
export async function pairedToggle(
  url: string,
  proxy: HttpsCondition & { child: { info: { controlPort?: number } } },
  rounds: number,
  windowMs: number,
  log: (s: string) => void,
  levels = [1, 16],
): Promise<PairedCost[]> {
  const control = proxy.child.info.controlPort;
  if (!control) throw new Error(`${proxy.name} has no control port (start it with record=toggle)`);
  const caFiles = proxy.child.info.caPath ? [proxy.child.info.caPath] : [];
  const on = { ...proxy, name: RECORDER_ON, before: `http://127.0.0.1:${control}/recorder/on` };
  const off = { ...proxy, name: RECORDER_OFF, before: `http://127.0.0.1:${control}/recorder/off` };
  const out: PairedCost[] = [];
  for (const conc of levels) out.push(await pairedRow(url, conc, [on], [off], caFiles, rounds, windowMs, log));
  return out;
}

/** "CPU/req 1.08× (rounds 1.01–1.15×), req/s 0.95× (0.90–1.01×)": medians of the rounds' ratios and their range. */
export function pairedText(p: PairedCost): string {
  const span = (xs: number[]) => `${fmtRatio(Math.min(...xs))}–${fmtRatio(Math.max(...xs))}`;
  return `CPU/req ${fmtRatio(median(p.cpuRatios))} (rounds ${span(p.cpuRatios)}), req/s ${fmtRatio(median(p.rpsRatios))} (${span(p.rpsRatios)}), ${p.cpuRatios.length} paired rounds`;
}

/** The socket timeline's cost from the paired rounds, in the form of timeline-cost.ts's lines. */
export function pairedTimelineLines(paired: PairedCost[]): string[] {
  return paired
    .filter((p) => p.off === TIMELINE_OFF && p.cpuRatios.length)
    .map((p) => {
      const pct = (x: number) => `${x >= 1 ? '+' : ''}${((x - 1) * 100).toFixed(1)}%`;
      const m = median(p.cpuRatios);
      return (
        `timeline cost, intercepted HTTPS GET c=${p.connections}, ${p.cpuRatios.length} paired rounds: proxy CPU/req ${pct(m)} ` +
        `(rounds ${pct(Math.min(...p.cpuRatios))} to ${pct(Math.max(...p.cpuRatios))}) (goal ≤ 10%)`
      );
    });
}
