/**
 * HAR timings → coloured waterfall segments, with Chrome DevTools' phase colours
 * (front_end/panels/network/NetworkWaterfallColumn.ts) so the bars read the
 * same as in the tool users already know.
 */
import type { PhaseTimings } from '../../../proxy/src/api/contract';

export type Phase = 'blocked' | 'dns' | 'connect' | 'ssl' | 'send' | 'wait' | 'receive';

export const PHASES: readonly Phase[] = ['blocked', 'dns', 'connect', 'ssl', 'send', 'wait', 'receive'];

export const PHASE_COLORS: Record<Phase, string> = {
  blocked: '#aaaaaa',
  dns: '#009688',
  connect: '#ff9800',
  ssl: '#9c27b0',
  send: '#b0bec5',
  wait: '#00c853',
  receive: '#03a9f4',
};

export const PHASE_LABELS: Record<Phase, string> = {
  blocked: 'Queueing / blocked',
  dns: 'DNS lookup',
  connect: 'Initial connection',
  ssl: 'SSL / TLS',
  send: 'Request sent',
  wait: 'Waiting (TTFB)',
  receive: 'Content download',
};

export interface Segment {
  phase: Phase;
  /** ms from the exchange's start. */
  start: number;
  end: number;
}

/**
 * Lays the phases end to end from the exchange's start. HAR rules: -1 (or a
 * missing value) = phase did not happen; `ssl` is inside `connect`, so the
 * connect bar is split into TCP then TLS; negative or non-finite values count as 0.
 */
export function phaseSegments(t: Partial<PhaseTimings> | undefined): Segment[] {
  if (!t) return [];
  const v = (n: number | undefined) => (n !== undefined && Number.isFinite(n) && n > 0 ? n : 0);
  const ssl = Math.min(v(t.ssl), v(t.connect));
  const durations: Array<[Phase, number]> = [
    ['blocked', v(t.blocked)],
    ['dns', v(t.dns)],
    ['connect', v(t.connect) - ssl],
    ['ssl', ssl],
    ['send', v(t.send)],
    ['wait', v(t.wait)],
    ['receive', v(t.receive)],
  ];
  const out: Segment[] = [];
  let at = 0;
  for (const [phase, d] of durations) {
    if (d <= 0) continue;
    out.push({ phase, start: at, end: at + d });
    at += d;
  }
  return out;
}

/** Sum of the phases (HAR `time`): what the bar's length stands for. */
export function phaseTotal(t: Partial<PhaseTimings> | undefined): number {
  const segs = phaseSegments(t);
  return segs.length ? segs[segs.length - 1]!.end : 0;
}
