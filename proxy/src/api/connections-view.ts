/**
 * The answer of `getConnections`: a HAR log's socket timeline (`log._connections`)
 * with its stalls, in row ids the UI knows, cut to a bounded size.
 *
 * Stalls are found on every event first, then the events are cut: a stall is never
 * lost to the cap. The cap is shared fairly: each connection keeps its first
 * `maxEvents / connections` events (at least MIN_PER_LANE), and says how many it left out.
 */
import { connectionsDropped, connectionsOf } from '../timeline/har.js';
import { summarizeStalls } from '../timeline/stalls.js';
import type { ConnectionTimeline } from '../timeline/types.js';
import type { ConnectionLane, ConnectionsView, SocketTick, StallInfo } from './contract.js';

export const MAX_EVENTS_SHOWN = 20_000;
export const MAX_LANES = 400;
export const STALLS_SHOWN = 1_000;
const MIN_PER_LANE = 50;

export interface ViewOptions {
  /** Row id of a timeline exchange id (live: the same; sessions: `h<i>`); undefined = not in this capture. */
  rowOf(exchangeId: string): string | undefined;
  /** Only the connections of this row: those with its events, plus `connectionIds` (from its HAR entry). */
  only?: { rowId: string; connectionIds: string[] };
  maxEvents?: number;
  maxLanes?: number;
}

function lane(c: ConnectionTimeline, budget: number, rowOf: ViewOptions['rowOf']): ConnectionLane {
  const events: SocketTick[] = [];
  const spans = new Map<string, { id: string; from: number; to: number }>();
  for (const e of c.events) {
    const x = e.x === undefined ? undefined : rowOf(e.x);
    if (x !== undefined) {
      const s = spans.get(x);
      if (s) s.to = e.t;
      else spans.set(x, { id: x, from: e.t, to: e.t });
    }
    if (events.length < budget)
      events.push({ t: e.t, d: e.d, n: e.n, ...(x !== undefined ? { x } : {}), ...(e.nagle ? { nagle: true } : {}) });
  }
  return {
    id: c.id,
    leg: c.leg,
    opened: c.opened,
    ...(c.closed !== undefined ? { closed: c.closed } : {}),
    ...(c.framing !== undefined ? { framing: c.framing } : {}),
    events,
    eventsOmitted: c.events.length - events.length,
    exchanges: [...spans.values()],
  };
}

/** The view of `log` (a HAR log, or `Timeline.toLog()`'s fields). */
export function connectionsView(log: unknown, options: ViewOptions): ConnectionsView {
  const timeOrigin = Number((log as { _connectionsTimeOrigin?: unknown } | undefined)?._connectionsTimeOrigin);
  let all = connectionsOf(log);
  const { rowOf, only } = options;
  if (only) {
    const ids = new Set(only.connectionIds);
    all = all.filter((c) => ids.has(c.id) || c.events.some((e) => e.x !== undefined && rowOf(e.x) === only.rowId));
  }
  all.sort((a, b) => a.opened - b.opened || (a.id < b.id ? -1 : 1));
  const summary = summarizeStalls(all);
  const stallsByExchange: ConnectionsView['stallsByExchange'] = {};
  for (const [x, v] of summary.byExchange) {
    const row = rowOf(x);
    if (row !== undefined) stallsByExchange[row] = v;
  }
  const stalls: StallInfo[] = summary.stalls.slice(0, STALLS_SHOWN).map((s) => {
    const row = s.exchangeId === undefined ? undefined : rowOf(s.exchangeId);
    return {
      connectionId: s.connectionId,
      ...(row !== undefined ? { exchangeId: row } : {}),
      at: s.at,
      ms: s.ms,
      bytes: s.bytes,
      message: s.message,
    };
  });
  const maxLanes = options.maxLanes ?? MAX_LANES;
  const shown = all.slice(0, maxLanes);
  const budget = Math.max(MIN_PER_LANE, Math.floor((options.maxEvents ?? MAX_EVENTS_SHOWN) / Math.max(1, shown.length)));
  const connections = shown.map((c) => lane(c, budget, rowOf));
  const events = all.reduce((n, c) => n + c.events.length, 0);
  const view: ConnectionsView = {
    timeOrigin: Number.isFinite(timeOrigin) ? timeOrigin : 0,
    connections,
    connectionsOmitted: all.length - shown.length,
    stalls,
    stallsOmitted: summary.stalls.length - stalls.length,
    stallsByExchange,
    totals: {
      connections: all.length,
      events,
      eventsShown: connections.reduce((n, c) => n + c.events.length, 0),
      stalls: summary.count,
      stallMs: summary.wallMs,
    },
    recorderDropped: connectionsDropped(log),
  };
  if (!Array.isArray((log as { _connections?: unknown } | undefined)?._connections)) {
    view.note = 'No socket timeline was recorded here (a HAR from another tool, or a proxy started with the timeline off).';
  }
  return view;
}
