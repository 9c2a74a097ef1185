/**
 * Browser and proxy side by side: matches a browser-side HAR (chrome-har-capturer)
 * with the proxy's HAR of the same page load and cuts each matched request's
 * browser time into where it went (docs/timings.md, "Browser and proxy side by side").
 *
 * Pure: imports only HAR types. The two HARs come from two clocks (the browser's
 * wall clock and the proxy's `performance.timeOrigin + now`); the offset between
 * them is estimated from the matched pairs (see `estimateOffset`).
 */
import type { Har, HarEntry, HarTimings } from './types.js';

/** Where a request's browser time went; the five parts add up to the browser's `time`. */
export interface Breakdown {
  /** Browser `blocked`: queued in the browser before the request left it. */
  queue: number;
  /** Browser's connection setup to the proxy, sending, and the proxy receiving the request (to its request end). */
  clientLeg: number;
  /** The proxy's own time: request end → upstream work starts (incl. upstream `blocked`), upstream end → last byte written to the client. */
  proxy: number;
  /** The proxy's upstream phases dns/connect/ssl/send/wait/receive: upstream work starts → upstream response end. */
  upstream: number;
  /** Last byte written by the proxy → the browser's end of the request. */
  back: number;
}

export interface BrowserSide {
  startedDateTime: string;
  time: number;
  timings: HarTimings;
  breakdown: Breakdown;
  /** How far (ms, summed) the proxy's boundaries had to be moved to fit inside the browser's span: 0 when the clocks agreed. */
  clampedMs: number;
}

export interface UnmatchedEntry {
  method: string;
  url: string;
  startedDateTime: string;
}

export interface AlignmentSummary {
  /** proxy clock − browser clock (ms), subtracted from proxy times. */
  offsetMs: number;
  browserEntries: number;
  proxyEntries: number;
  matched: number;
  unmatchedBrowser: UnmatchedEntry[];
  unmatchedProxy: UnmatchedEntry[];
  /** Per-part median over the matched requests (undefined when none matched). */
  medianBreakdown?: Breakdown;
}

export interface AlignedPair {
  browser: HarEntry;
  proxy: HarEntry;
  side: BrowserSide;
}

export interface Alignment {
  pairs: AlignedPair[];
  summary: AlignmentSummary;
}

export interface AlignOptions {
  /** Use this clock offset (proxy − browser, ms) instead of estimating one. */
  offsetMs?: number;
}

export const BREAKDOWN_PARTS = ['queue', 'clientLeg', 'proxy', 'upstream', 'back'] as const;

const pos = (n: number | undefined): number => (typeof n === 'number' && n > 0 ? n : 0);
const round3 = (n: number): number => Math.round(n * 1000) / 1000;
const wall = (e: HarEntry): number => Date.parse(e.startedDateTime);
const keyOf = (e: HarEntry): string => `${e.request.method.toUpperCase()} ${stripFragment(e.request.url)}`;

function stripFragment(url: string): string {
  const i = url.indexOf('#');
  return i < 0 ? url : url.slice(0, i);
}

/** Browser wall time when the request left the browser queue (connection setup and send follow). */
function browserQueueEnd(b: HarEntry): number {
  return wall(b) + pos(b.timings.blocked);
}

/** Browser wall time when the request was being sent: after blocked, dns and connect (ssl is inside connect). */
function browserSendStart(b: HarEntry): number {
  return browserQueueEnd(b) + pos(b.timings.dns) + pos(b.timings.connect);
}

function clientTotal(p: HarEntry): number {
  const ct = p._clientTimings as { total?: number } | undefined;
  return typeof ct?.total === 'number' && ct.total >= 0 ? ct.total : p.time;
}

function clientRequestEnd(p: HarEntry): number {
  const ct = p._clientTimings as { receiveRequest?: number } | undefined;
  return pos(ct?.receiveRequest);
}

/**
 * Pairs entries: same method and URL (fragment dropped); within a key, by order
 * of start when both sides have as many, else greedily by nearest start (after
 * `offset`, proxy − browser). Returns pairs and what is left on either side.
 */
export function matchEntries(
  browser: readonly HarEntry[],
  proxy: readonly HarEntry[],
  offset = 0,
): { pairs: [HarEntry, HarEntry][]; browserLeft: HarEntry[]; proxyLeft: HarEntry[] } {
  const group = (list: readonly HarEntry[]) => {
    const m = new Map<string, HarEntry[]>();
    for (const e of list) {
      const k = keyOf(e);
      const g = m.get(k);
      if (g) g.push(e);
      else m.set(k, [e]);
    }
    for (const g of m.values()) g.sort((a, b) => wall(a) - wall(b));
    return m;
  };
  const bs = group(browser);
  const ps = group(proxy);
  const pairs: [HarEntry, HarEntry][] = [];
  const browserLeft: HarEntry[] = [];
  const proxyLeft: HarEntry[] = [];
  for (const [k, bg] of bs) {
    const pg = ps.get(k) ?? [];
    ps.delete(k);
    if (bg.length === pg.length) {
      bg.forEach((b, i) => pairs.push([b, pg[i]!]));
      continue;
    }
    // Repeats with a count that differs (a cached reload, a request the proxy never saw): nearest starts first.
    const candidates: { b: number; p: number; d: number }[] = [];
    bg.forEach((b, i) => pg.forEach((p, j) => candidates.push({ b: i, p: j, d: Math.abs(wall(p) - offset - browserSendStart(b)) })));
    candidates.sort((x, y) => x.d - y.d);
    const usedB = new Set<number>();
    const usedP = new Set<number>();
    for (const c of candidates) {
      if (usedB.has(c.b) || usedP.has(c.p)) continue;
      usedB.add(c.b);
      usedP.add(c.p);
      pairs.push([bg[c.b]!, pg[c.p]!]);
    }
    bg.forEach((b, i) => usedB.has(i) || browserLeft.push(b));
    pg.forEach((p, j) => usedP.has(j) || proxyLeft.push(p));
  }
  for (const pg of ps.values()) proxyLeft.push(...pg);
  return { pairs, browserLeft, proxyLeft };
}

/** Each side's wall instants carry up to 1 ms of rounding (ISO 8601 strings): the slack of the bounds below. */
const ROUNDING_MS = 1;

/**
 * Proxy clock − browser clock, from causality: no request reaches the proxy before
 * the browser sent it (`proxyStart − browserSendStart = offset + latencyOut ≥ offset`)
 * and none ends in the browser before the proxy wrote its last byte
 * (`proxyClientEnd − browserEnd = offset − latencyBack ≤ offset`). So the offset lies
 * in [max of the second, min of the first]. The proxy's end of an HTTP/2 stream can be
 * noted late (its event loop busy), so the range is taken between quartiles: [75th
 * percentile of the second, 25th of the first]. When 0 is in it (± rounding),
 * the clocks are taken to agree (browser and proxy on one machine share the system
 * clock, and the proxy's time to pick up a request is then not moved to the way back);
 * otherwise the middle of the range, as NTP does (equal latency both ways). If the
 * range is empty (odd pairs), the middle of the medians of the two differences.
 */
export function estimateOffset(pairs: readonly (readonly [HarEntry, HarEntry])[]): number {
  const outs: number[] = [];
  const backs: number[] = [];
  for (const [b, p] of pairs) {
    const out = wall(p) - browserSendStart(b);
    const back = wall(p) + clientTotal(p) - (wall(b) + pos(b.time));
    if (Number.isFinite(out) && Number.isFinite(back)) {
      outs.push(out);
      backs.push(back);
    }
  }
  if (!outs.length) return 0;
  const hi = quantile(outs, 0.25);
  const lo = quantile(backs, 0.75);
  if (lo - ROUNDING_MS <= 0 && 0 <= hi + ROUNDING_MS) return 0;
  return lo <= hi ? (lo + hi) / 2 : (median(outs) + median(backs)) / 2;
}

/**
 * Cuts the browser's span [start, start + time] at the browser's queue end and
 * four proxy instants, moved to the browser's clock: request end, upstream work
 * start, upstream end, last byte written to the client. Each instant is kept
 * inside the span and no earlier than the one before, so every part is ≥ 0 and
 * they add up to the browser's `time`; `clampedMs` says how far instants moved.
 */
export function breakdownOf(b: HarEntry, p: HarEntry, offsetMs: number): { breakdown: Breakdown; clampedMs: number } {
  const start = wall(b);
  const end = start + pos(b.time);
  const p0 = wall(p) - offsetMs;
  // The proxy's own instants in order first: upstream work may start while a request body is still arriving
  // (it is streamed), and that overlap counts as client leg, not as a clock disagreement.
  const proxyCuts: number[] = [];
  for (const t of [clientRequestEnd(p), pos(p.timings.blocked), pos(p.time), clientTotal(p)]) {
    proxyCuts.push(Math.max(t, proxyCuts.at(-1) ?? 0));
  }
  const raw = [browserQueueEnd(b), ...proxyCuts.map((t) => p0 + t)];
  let clampedMs = 0;
  const cuts: number[] = [];
  let prev = start;
  for (const t of raw) {
    const c = Math.min(end, Math.max(prev, t));
    clampedMs += Math.abs(c - t);
    cuts.push(c);
    prev = c;
  }
  const [q, req, up0, up1, last] = cuts as [number, number, number, number, number];
  const breakdown: Breakdown = {
    queue: round3(q - start),
    clientLeg: round3(req - q),
    proxy: round3(up0 - req + (last - up1)),
    upstream: round3(up1 - up0),
    back: round3(end - last),
  };
  return { breakdown, clampedMs: round3(clampedMs) };
}

/** Matches the two HARs and computes each matched request's breakdown. Does not change either HAR. */
export function alignHars(browserHar: Har, proxyHar: Har, options: AlignOptions = {}): Alignment {
  const browser = browserHar.log.entries.filter((e) => Number.isFinite(wall(e)));
  const proxy = proxyHar.log.entries.filter((e) => Number.isFinite(wall(e)));
  // First pass without an offset; when a greedy (repeat) match was needed, match again with the estimated offset.
  let m = matchEntries(browser, proxy, options.offsetMs ?? 0);
  let offsetMs = options.offsetMs ?? estimateOffset(m.pairs);
  if (options.offsetMs === undefined && offsetMs !== 0) {
    m = matchEntries(browser, proxy, offsetMs);
    offsetMs = estimateOffset(m.pairs);
  }
  const pairs: AlignedPair[] = m.pairs.map(([b, p]) => {
    const { breakdown, clampedMs } = breakdownOf(b, p, offsetMs);
    return {
      browser: b,
      proxy: p,
      side: { startedDateTime: b.startedDateTime, time: b.time, timings: { ...b.timings }, breakdown, clampedMs },
    };
  });
  pairs.sort((x, y) => wall(x.browser) - wall(y.browser));
  const unmatched = (e: HarEntry): UnmatchedEntry => ({ method: e.request.method, url: e.request.url, startedDateTime: e.startedDateTime });
  return {
    pairs,
    summary: {
      offsetMs: round3(offsetMs),
      browserEntries: browserHar.log.entries.length,
      proxyEntries: proxyHar.log.entries.length,
      matched: pairs.length,
      unmatchedBrowser: m.browserLeft.map(unmatched),
      unmatchedProxy: m.proxyLeft.map(unmatched),
      medianBreakdown: medianBreakdown(pairs.map((x) => x.side.breakdown)),
    },
  };
}

/** Per-part median (each part on its own, so the medians need not add up to a median time). */
export function medianBreakdown(list: readonly Breakdown[]): Breakdown | undefined {
  if (!list.length) return undefined;
  const out = {} as Breakdown;
  for (const k of BREAKDOWN_PARTS) out[k] = round3(median(list.map((b) => b[k])));
  return out;
}

/** The proxy HAR with `_browser` on each matched entry and `_alignment` (the summary) on its log. */
export function withBrowserSide(proxyHar: Har, alignment: Alignment): Har {
  const sides = new Map<HarEntry, BrowserSide>(alignment.pairs.map((x) => [x.proxy, x.side]));
  return {
    ...proxyHar,
    log: {
      ...proxyHar.log,
      _alignment: alignment.summary,
      entries: proxyHar.log.entries.map((e) => {
        const side = sides.get(e);
        return side ? { ...e, _browser: side } : e;
      }),
    },
  };
}

/** One line: "matched 10 of 10 browser requests (proxy 10); median ms: queue 0.4, client leg 1.2, …". */
export function formatAlignment(s: AlignmentSummary): string {
  const head = `matched ${s.matched} of ${s.browserEntries} browser requests (proxy entries ${s.proxyEntries})`;
  const b = s.medianBreakdown;
  if (!b) return `${head}\n`;
  const parts =
    `queue ${b.queue.toFixed(1)}, client leg ${b.clientLeg.toFixed(1)}, proxy ${b.proxy.toFixed(1)}, ` +
    `upstream ${b.upstream.toFixed(1)}, back ${b.back.toFixed(1)}`;
  return `${head}; median ms: ${parts}; clock offset ${s.offsetMs.toFixed(1)} ms\n`;
}

/** Linear-interpolated quantile (q in [0, 1]) of a non-empty list. */
function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  const i = Math.floor(at);
  return s[i]! + (s[Math.min(i + 1, s.length - 1)]! - s[i]!) * (at - i);
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
