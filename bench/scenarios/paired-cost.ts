/**
 * What a feature costs Netlens, measured as pairs: the recording Netlens against the same Netlens with one
 * feature off (recording, the socket timeline), back to back in many short rounds, each round giving one
 * ratio. On a shared two-core machine a proxy's CPU per request drifts by ±10–25% between runs a minute
 * apart (docs/benchmarks.md), more than the 5% and 10% these goals allow; a ratio of two windows a few
 * seconds apart cancels the slow part of that drift, and the median of the rounds' ratios (with their range)
 * is what the goals table judges. The order within a pair alternates every round.
 */
import { fmtRatio, median } from '../lib/stats.js';
import { runClient, type ClientResult, type HttpsCondition } from './https-intercept.js';
import { TIMELINE_OFF } from '../report/timeline-cost.js';

/**
 * Rounds and measured window per condition: 8 × 2 levels × 2 pairs × 2 windows of ~4.5 s (client start, 1 s warm-up,
 * window), ~5 minutes. Two 2 s windows of the same proxy seconds apart still differ by up to ±20% here (2026-11-26, with
 * the proxies pinned to one core and the client and origin to the other as well), so the median needs the rounds.
 */
export const PAIRED_ROUNDS = 8;
export const PAIRED_WINDOW_MS = 2000;

export interface PairedCost {
  connections: number;
  /** The condition with the feature on (the recording, timeline-on Netlens). */
  on: string;
  off: string;
  /** Per round: on's CPU per request ÷ off's, on's req/s ÷ off's. */
  cpuRatios: number[];
  rpsRatios: number[];
}

const cpuPerReq = (r: ClientResult) => (r.requests ? (r.proxyCpuMs * 1000) / r.requests : NaN);

export async function pairedCosts(
  url: string,
  on: HttpsCondition,
  offs: HttpsCondition[],
  rounds: number,
  durationMs: number,
  log: (s: string) => void,
  levels = [1, 16],
): Promise<PairedCost[]> {
  const caFiles = [...new Set([on, ...offs].flatMap((c) => (c.child?.info.caPath ? [c.child.info.caPath] : [])))];
  const out: PairedCost[] = [];
  for (const conc of levels)
    for (const off of offs) out.push({ connections: conc, on: on.name, off: off.name, cpuRatios: [], rpsRatios: [] });
  for (let r = 0; r < rounds; r++) {
    for (const conc of levels) {
      for (const off of offs) {
        const pair = r % 2 ? [off, on] : [on, off];
        let results: ClientResult[];
        try {
          results = [];
          for (const c of pair) results.push(await runClient(url, c, caFiles, conc, durationMs));
        } catch (err) {
          log(`  paired round ${r + 1}/${rounds} c=${conc} ${on.name} / ${off.name}: ${(err as Error).message.split('\n')[0]}`);
          continue;
        }
        const [a, b] = r % 2 ? [results[1]!, results[0]!] : [results[0]!, results[1]!];
        const row = out.find((p) => p.connections === conc && p.off === off.name)!;
        row.cpuRatios.push(cpuPerReq(a) / cpuPerReq(b));
        row.rpsRatios.push(a.rps / b.rps);
        log(
          `  paired round ${r + 1}/${rounds} c=${conc} ${on.name} / ${off.name}: CPU/req ${fmtRatio(row.cpuRatios.at(-1)!)}, req/s ${fmtRatio(row.rpsRatios.at(-1)!)}`,
        );
      }
    }
  }
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
