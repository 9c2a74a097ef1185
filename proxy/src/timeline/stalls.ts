/**
 * Stall detection on the socket timeline: bytes that probably waited in the kernel
 * because Nagle's algorithm met the peer's delayed ACK.
 *
 * The rule (docs/timings.md, "Stalls"): on a socket with Nagle on, a small write
 * (< `smallBytes`) made while an earlier write is probably still unacknowledged
 * (it was less than `ackWindowMs` ago and the peer has sent nothing since, so no
 * ACK could ride on its data) is held by the kernel until that ACK comes. If the
 * peer then stays silent for `minGapMs`..`maxGapMs` (Linux delays an ACK 40 ms or
 * more), the write is flagged: the gap is the stall's time. Several small writes
 * before the same silence are one stall.
 *
 * What it cannot see: ACKs themselves (no TCP_INFO from Node), so a peer that is
 * merely slow to send its next request in that window is flagged too; writes on
 * HTTP/2 sessions (nghttp2 writes from C++: their lanes, `framing: 'h2'`, hold frames
 * handed to nghttp2, not send syscalls, and are never flagged); segments held on a
 * socket the proxy does not own (an origin's or a browser's own Nagle).
 */
import type { ConnectionTimeline, SocketEvent } from './types.js';

export interface StallRule {
  /** Writes smaller than this are "small" (a typical Ethernet MSS; loopback's MSS is ~64 KiB). */
  smallBytes: number;
  /** An earlier write this recent, with no peer data since, is taken as unacknowledged. */
  ackWindowMs: number;
  /** Peer silence after the write that counts as a stall: Linux's delayed ACK is 40 ms at least… */
  minGapMs: number;
  /** …and at most 200 ms (longer silences are the peer being idle). */
  maxGapMs: number;
}

export const DEFAULT_STALL_RULE: StallRule = { smallBytes: 1460, ackWindowMs: 200, minGapMs: 30, maxGapMs: 250 };

export interface Stall {
  connectionId: string;
  /** Exchange of the held write, when tagged. */
  exchangeId?: string;
  /** When the held write was made (performance.now() ms). */
  at: number;
  /** How long the peer stayed silent after it: the stall's time, ms. */
  ms: number;
  bytes: number;
  message: string;
}

export interface StallSummary {
  stalls: Stall[];
  byExchange: Map<string, { count: number; ms: number }>;
  count: number;
  /** Every stall's time added up: stalls on parallel connections count once each, so this can exceed the session's length. */
  ms: number;
  /** Wall-clock time during which at least one connection was stalled (overlapping stalls merged, `stallWallMs`). */
  wallMs: number;
}

const round = (n: number) => Math.round(n * 1000) / 1000;

function explain(c: ConnectionTimeline, w: SocketEvent, prev: SocketEvent, gap: number): string {
  const peer = c.leg === 'client' ? 'the client' : 'the origin';
  return (
    `${w.n} bytes written ${round(w.t - prev.t)} ms after an earlier write that ${peer} had not yet acknowledged, ` +
    `on a socket with Nagle's algorithm on: the kernel probably held them until ${peer}'s delayed ACK, ` +
    `and ${peer} sent nothing for ${round(gap)} ms. Turn Nagle off (setNoDelay) or write the response in one piece.`
  );
}

/** The stalls of one connection's timeline. */
export function connectionStalls(c: ConnectionTimeline, rule: StallRule = DEFAULT_STALL_RULE): Stall[] {
  const out: Stall[] = [];
  // Frames handed to nghttp2 say nothing of when bytes left the kernel: no stall can be read from them.
  if (c.framing !== undefined) return out;
  const ev = c.events;
  let prevWrite: SocketEvent | undefined;
  let readSincePrev = false;
  for (let i = 0; i < ev.length; i++) {
    const e = ev[i];
    if (e.d === 'r') {
      readSincePrev = true;
      continue;
    }
    // An empty write (Node's `res.end()` after the body went out in an earlier turn) puts nothing
    // on the wire: Nagle cannot hold it, and it is no unacknowledged data for a later write either.
    if (e.n === 0) continue;
    const prev = prevWrite;
    const unacked = prev !== undefined && !readSincePrev && e.t - prev.t < rule.ackWindowMs;
    prevWrite = e;
    readSincePrev = false;
    if (!e.nagle || !unacked || e.n >= rule.smallBytes) continue;
    // The next thing the peer sent; writes in between were held with this one.
    let j = i + 1;
    while (j < ev.length && ev[j].d === 'w') j++;
    if (j >= ev.length) continue;
    const gap = ev[j].t - e.t;
    if (gap < rule.minGapMs || gap > rule.maxGapMs) continue;
    out.push({
      connectionId: c.id,
      ...(e.x ? { exchangeId: e.x } : {}),
      at: e.t,
      ms: round(gap),
      bytes: e.n,
      message: explain(c, e, prev!, gap),
    });
    // One stall per silence: skip the writes held with it.
    i = j - 1;
  }
  return out;
}

/** Stalls of every connection, with counts and time per exchange and in total (per session). */
export function summarizeStalls(connections: readonly ConnectionTimeline[], rule: StallRule = DEFAULT_STALL_RULE): StallSummary {
  const stalls = connections.flatMap((c) => connectionStalls(c, rule));
  const byExchange = new Map<string, { count: number; ms: number }>();
  let ms = 0;
  for (const s of stalls) {
    ms += s.ms;
    if (!s.exchangeId) continue;
    const x = byExchange.get(s.exchangeId) ?? { count: 0, ms: 0 };
    x.count++;
    x.ms = round(x.ms + s.ms);
    byExchange.set(s.exchangeId, x);
  }
  return { stalls, byExchange, count: stalls.length, ms: round(ms), wallMs: stallWallMs(stalls) };
}

/**
 * Wall-clock time covered by the stalls, ms: the union of their intervals (`at` .. `at + ms`),
 * overlapping ones merged. Six browser connections stalled during the same 40 ms lose the page
 * 40 ms, not 240 ms: this, not the sum, is the time a page load can have lost to them.
 */
export function stallWallMs(stalls: readonly Pick<Stall, 'at' | 'ms'>[]): number {
  const spans = stalls.filter((s) => s.ms > 0).map((s) => [s.at, s.at + s.ms] as const);
  spans.sort((a, b) => a[0] - b[0]);
  let total = 0;
  let from = -Infinity;
  let to = -Infinity;
  for (const [a, b] of spans) {
    if (a > to) {
      if (to > from) total += to - from;
      from = a;
      to = b;
    } else if (b > to) to = b;
  }
  if (to > from) total += to - from;
  return round(total);
}
