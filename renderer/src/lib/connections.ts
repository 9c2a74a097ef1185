/**
 * The Connections view's pure logic: lane order, the time extent, socket events
 * binned per pixel (a page load makes thousands; one tick per pixel column and
 * direction is what the eye can see), exchange bars in DevTools phase colours,
 * stalls as time ranges, and what the Connection tab lists around one exchange.
 * Timeline times are monotonic ms; `view.timeOrigin + t` puts them on the rows' epoch axis.
 */
import type { ConnectionLane, ConnectionsView, ExchangeSummary, StallInfo } from '../../../proxy/src/api/contract';
import { phaseSegments, type Segment } from './phases';
import type { TimeRange } from './time-scale';

export const epochOf = (view: Pick<ConnectionsView, 'timeOrigin'>, t: number): number => view.timeOrigin + t;

/** Client lanes in the order they opened, each followed by the upstream lanes its exchanges used; then the rest. */
export function orderLanes(lanes: readonly ConnectionLane[]): ConnectionLane[] {
  const byOpen = [...lanes].sort((a, b) => a.opened - b.opened);
  const upstreamOf = new Map<string, ConnectionLane>();
  for (const l of byOpen) if (l.leg === 'upstream') for (const x of l.exchanges) if (!upstreamOf.has(x.id)) upstreamOf.set(x.id, l);
  const out: ConnectionLane[] = [];
  const placed = new Set<string>();
  const place = (l: ConnectionLane) => {
    if (placed.has(l.id)) return;
    placed.add(l.id);
    out.push(l);
  };
  for (const l of byOpen) {
    if (l.leg !== 'client') continue;
    place(l);
    for (const x of l.exchanges) {
      const u = upstreamOf.get(x.id);
      if (u) place(u);
    }
  }
  for (const l of byOpen) place(l);
  return out;
}

/** An exchange drawn on a lane: its phases from the row (epoch ms), or the span of its events when the row has none. */
export interface LaneBar {
  rowId: string;
  start: number;
  segments: Segment[];
  /** Whole length in ms (phases, or the events' span). */
  total: number;
}

export function laneBars(
  view: Pick<ConnectionsView, 'timeOrigin'>,
  lane: ConnectionLane,
  rowsById: ReadonlyMap<string, ExchangeSummary>,
): LaneBar[] {
  return lane.exchanges.map((x) => {
    const row = rowsById.get(x.id);
    const segments = phaseSegments(row?.timings);
    if (row && segments.length) return { rowId: x.id, start: row.startTime, segments, total: segments[segments.length - 1]!.end };
    return { rowId: x.id, start: epochOf(view, x.from), segments: [], total: Math.max(0, x.to - x.from) };
  });
}

/** Epoch range covering every event, exchange bar and stall (undefined when there is nothing to draw). */
export function connectionsExtent(view: ConnectionsView, rowsById: ReadonlyMap<string, ExchangeSummary>): TimeRange | undefined {
  let start = Infinity;
  let end = -Infinity;
  const add = (a: number, b = a) => {
    if (Number.isFinite(a) && a < start) start = a;
    if (Number.isFinite(b) && b > end) end = b;
  };
  for (const lane of view.connections) {
    for (const e of lane.events) add(epochOf(view, e.t));
    for (const bar of laneBars(view, lane, rowsById)) add(bar.start, bar.start + bar.total);
  }
  for (const s of view.stalls) add(epochOf(view, s.at), epochOf(view, s.at + s.ms));
  if (start === Infinity) return undefined;
  return { start, end: end > start ? end : start + 1 };
}

/** Events of one direction in one pixel column. */
export interface TickBin {
  px: number;
  /** Epoch ms of its first event. */
  at: number;
  d: 'w' | 'r';
  count: number;
  bytes: number;
  /** Some write in it had Nagle on. */
  nagle: boolean;
  /** Row ids of its events (first few). */
  rows: string[];
}

/** Bins a lane's events by pixel column and direction, dropping those outside [0, width]. */
export function tickBins(
  view: Pick<ConnectionsView, 'timeOrigin'>,
  lane: ConnectionLane,
  toPx: (epoch: number) => number,
  width: number,
): TickBin[] {
  const bins = new Map<string, TickBin>();
  for (const e of lane.events) {
    const at = epochOf(view, e.t);
    const px = Math.floor(toPx(at));
    if (px < 0 || px > width) continue;
    const key = `${e.d}${px}`;
    let b = bins.get(key);
    if (!b) bins.set(key, (b = { px, at, d: e.d, count: 0, bytes: 0, nagle: false, rows: [] }));
    b.count++;
    b.bytes += e.n;
    if (e.nagle) b.nagle = true;
    if (e.x && b.rows.length < 3 && !b.rows.includes(e.x)) b.rows.push(e.x);
  }
  return [...bins.values()].sort((a, b) => a.px - b.px || (a.d < b.d ? -1 : 1));
}

/** Tick height in px for `bytes`: log-scaled so a 100-byte head and a 1 MiB body both show, from 3 px to `max`. */
export function tickHeight(bytes: number, max: number): number {
  if (bytes <= 0) return 3;
  const h = 3 + (Math.log10(bytes + 1) / 6) * (max - 3);
  return Math.min(max, Math.round(h * 10) / 10);
}

/** The nearest bin to `px` within `slack` pixels, for the hover tooltip. */
export function binAt(bins: readonly TickBin[], px: number, d: 'w' | 'r', slack = 3): TickBin | undefined {
  let best: TickBin | undefined;
  for (const b of bins) {
    if (b.d !== d) continue;
    const dist = Math.abs(b.px - px);
    if (dist <= slack && (!best || dist < Math.abs(best.px - px))) best = b;
  }
  return best;
}

/** A stall's range on the epoch axis. */
export function stallRange(view: Pick<ConnectionsView, 'timeOrigin'>, s: StallInfo): TimeRange {
  return { start: epochOf(view, s.at), end: epochOf(view, s.at + s.ms) };
}

/** "1 stall, 41 ms" */
export function stallLabel(v: { count: number; ms: number }): string {
  const ms = v.ms >= 10 ? Math.round(v.ms) : Math.round(v.ms * 10) / 10;
  return `${v.count} ${v.count === 1 ? 'stall' : 'stalls'}, ${ms} ms`;
}

/** Counts for a lane's label: writes, reads, bytes each way. */
export function laneCounts(lane: ConnectionLane): { writes: number; reads: number; written: number; read: number } {
  const c = { writes: 0, reads: 0, written: 0, read: 0 };
  for (const e of lane.events) {
    if (e.d === 'w') {
      c.writes++;
      c.written += e.n;
    } else {
      c.reads++;
      c.read += e.n;
    }
  }
  return c;
}

/** For the Connection tab: on each lane, the exchange before and after `rowId`, and its position. */
export interface Neighbours {
  lane: ConnectionLane;
  index: number;
  previous?: string;
  next?: string;
}

export function neighboursOf(lanes: readonly ConnectionLane[], rowId: string): Neighbours[] {
  return lanes.map((lane) => {
    const index = lane.exchanges.findIndex((x) => x.id === rowId);
    return {
      lane,
      index,
      ...(index > 0 ? { previous: lane.exchanges[index - 1]!.id } : {}),
      ...(index >= 0 && index + 1 < lane.exchanges.length ? { next: lane.exchanges[index + 1]!.id } : {}),
    };
  });
}

/** The view cut to the exchanges `ids` (the Connection tab: one request and its neighbours): their events, bars and stalls only. */
export function focusView(view: ConnectionsView, ids: ReadonlySet<string>): ConnectionsView {
  const connections = view.connections.map((lane) => ({
    ...lane,
    events: lane.events.filter((e) => e.x !== undefined && ids.has(e.x)),
    exchanges: lane.exchanges.filter((x) => ids.has(x.id)),
  }));
  return { ...view, connections, stalls: view.stalls.filter((s) => s.exchangeId !== undefined && ids.has(s.exchangeId)) };
}
