/**
 * The recorder's main-thread CPU per exchange, from bench/recording-cost.ts run as
 * a child (bundled, as shipped): one line in the report next to the intercepted
 * HTTPS table, whose "recording off" row shows what recording costs under load.
 */
import { scriptResultOrLog } from '../lib/child.js';

export interface RecordingCost {
  perTurn: number;
  rounds: number;
  exchanges: number;
  results: {
    kind: 'h1' | 'h2';
    mainUs: number;
    mainRange: string;
    allUs: number;
    allRange: string;
    beforeUs: number;
    beforeRange: string;
  }[];
}

/** Runs the micro-benchmark (bounded in time); undefined with the reason logged if it fails. */
export function recordingCost(rounds: number, log: (s: string) => void): Promise<RecordingCost | undefined> {
  const args = ['--json', '--rounds', String(rounds), '--exchanges', '3000'];
  return scriptResultOrLog<RecordingCost>('recording-cost.ts', args, 'recording cost', 180_000, log);
}

/** "HTTP/1.1 9.8 µs (9.1–10.5), HTTP/2 10.2 µs (…)": median main-thread µs per exchange and the range over rounds. */
export function recordingCostText(r: RecordingCost, which: 'now' | 'before' = 'now'): string {
  return r.results
    .map((x) => {
      const [us, range] = which === 'now' ? [x.mainUs, x.mainRange] : [x.beforeUs, x.beforeRange];
      return `${x.kind === 'h1' ? 'HTTP/1.1' : 'HTTP/2'} ${us.toFixed(1)} µs (${range})`;
    })
    .join(', ');
}

/** bench/recording-block.ts's result: per body, how long the loop is held making its line at once and in the recorder. */
export interface RecordingBlock {
  rounds: number;
  /** blockMs and atOnceMs: on a core (the time the thread waited for one taken off); wallBlockMs: blockMs by the wall clock. */
  results: { body: string; atOnceMs: number; blockMs: number; wallBlockMs?: number; doneMs: number; lineMiB: number }[];
}

/** Runs bench/recording-block.ts (bounded in time); undefined with the reason logged if it fails. */
export function recordingBlock(rounds: number, log: (s: string) => void): Promise<RecordingBlock | undefined> {
  return scriptResultOrLog<RecordingBlock>('recording-block.ts', ['--json', '--rounds', String(rounds)], 'recording block', 300_000, log);
}

/** The body that held the loop longest in the recorder, and the longest hold at once. */
export function recordingBlockWorst(r: RecordingBlock): {
  recorder: RecordingBlock['results'][number];
  atOnce: RecordingBlock['results'][number];
} {
  const by = (k: 'blockMs' | 'atOnceMs') => r.results.reduce((a, b) => (b[k] > a[k] ? b : a));
  return { recorder: by('blockMs'), atOnce: by('atOnceMs') };
}
