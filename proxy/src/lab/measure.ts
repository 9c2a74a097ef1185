/**
 * Per-run measurements from the browser HAR (and the proxy's exchanges for
 * proxy cells). Pure functions: the runner feeds them what it captured.
 */
import type { IntervalHistogram } from 'node:perf_hooks';
import type { Har } from '../har/types.js';
import type { Exchange } from '../model.js';
import { summarizeStalls } from '../timeline/stalls.js';
import type { ConnectionTimeline } from '../timeline/types.js';
import { mean, median } from './stats.js';
import type { RunMeasurement } from './types.js';

export type BrowserMetrics = Required<
  Pick<RunMeasurement, 'onLoadMs' | 'ttfbMeanMs' | 'ttfbMedianMs' | 'requests' | 'connections' | 'bytes' | 'protocols'>
>;

/** Metrics of one page load from its browser-side HAR (load time comes from the capture, not from here). */
export function browserMetrics(har: Har): BrowserMetrics {
  const entries = har.log.entries;
  // Unknown waits (browser/unknown-waits.ts: Chrome's HTTP/2 sendEnd after the first response byte) are left out, not averaged.
  const waits = entries
    .filter((e) => e.timings._waitUnknown !== true)
    .map((e) => e.timings.wait)
    .filter((w) => typeof w === 'number' && w >= 0);
  const protocols: Record<string, number> = {};
  const connections = new Set<string>();
  let bytes = 0;
  for (const e of entries) {
    const p = e.response.httpVersion || 'unknown';
    protocols[p] = (protocols[p] ?? 0) + 1;
    if (e.connection) connections.add(e.connection);
    const transfer = e.response._transferSize;
    if (typeof transfer === 'number' && transfer > 0) bytes += transfer;
  }
  return {
    onLoadMs: har.log.pages?.[0]?.pageTimings?.onLoad ?? -1,
    ttfbMeanMs: waits.length ? mean(waits) : -1,
    ttfbMedianMs: waits.length ? median(waits) : -1,
    requests: entries.length,
    connections: connections.size,
    bytes,
    protocols,
  };
}

/**
 * What the proxy saw during one run, tallied exchange by exchange as each finishes. The lab's proxy process used to
 * keep every finished exchange of a run (its headers, timings and body bytes, up to the capture limit each) only to
 * count them at the end: a page of large bodies held them all until the run ended. A tally keeps a few numbers and
 * the upstream connection ids. (Its CPU cost on the 1,000-image page was within the noise: proxy main thread 311–323
 * against 308–344 ms per load, three interleaved pairs of 6-run labs.)
 */
export class ProxyTally {
  private exchanges = 0;
  private errors = 0;
  private readonly upstream = new Set<string>();
  private readonly protocols: Record<string, number> = {};
  private waitSum = 0;
  private waits = 0;

  add(x: Exchange): void {
    this.exchanges++;
    if (x.error) this.errors++;
    if (x.upstreamConnectionId) this.upstream.add(x.upstreamConnectionId);
    if (x.upstreamProtocol) this.protocols[x.upstreamProtocol] = (this.protocols[x.upstreamProtocol] ?? 0) + 1;
    if (x.transport !== 'tunnel' && x.timings.wait >= 0) {
      this.waitSum += x.timings.wait;
      this.waits++;
    }
  }

  /** The run's proxy metrics (`connections`: its socket timeline, for the stall count). */
  metrics(connections?: readonly ConnectionTimeline[]): NonNullable<RunMeasurement['proxy']> {
    return {
      exchanges: this.exchanges,
      errors: this.errors,
      upstreamConnections: this.upstream.size,
      // Summed in the order the exchanges finished, as mean() of their waits would.
      upstreamWaitMeanMs: this.waits ? this.waitSum / this.waits : undefined,
      protocols: { ...this.protocols },
      ...(connections ? stallCounts(connections) : {}),
    };
  }
}

/** What the proxy saw during one run, from its finished exchanges (`connections`: its socket timeline, for the stall count). */
export function proxyMetrics(
  exchanges: readonly Exchange[],
  connections?: readonly ConnectionTimeline[],
): NonNullable<RunMeasurement['proxy']> {
  const tally = new ProxyTally();
  for (const x of exchanges) tally.add(x);
  return tally.metrics(connections);
}

/** The count, and the wall-clock time stalled (overlaps merged), not the sum of every connection's waits. */
function stallCounts(connections: readonly ConnectionTimeline[]): { stalls: number; stallWallMs: number } {
  const s = summarizeStalls(connections);
  return { stalls: s.count, stallWallMs: s.wallMs };
}

/** Sampling interval of the event-loop delay monitor (ms). */
export const LOOP_RESOLUTION_MS = 10;

/**
 * Event-loop lag from a `monitorEventLoopDelay` histogram. Its samples include
 * the sampling interval itself: only the lag beyond it is reported.
 */
export function loopDelaySummary(h: IntervalHistogram): { p50: number; p99: number; max: number } | undefined {
  if (h.count === 0) return undefined;
  const ms = (ns: number) => Math.max(0, Math.round(ns / 1e4) / 100 - LOOP_RESOLUTION_MS);
  return { p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max) };
}
