/**
 * Reading the socket timeline back from a HAR (`log._connections`, written by
 * Timeline.toLog). Imported HARs are untrusted: anything malformed is skipped.
 */
import type { ConnectionTimeline, SocketEvent } from './types.js';

function validEvent(e: unknown): e is SocketEvent {
  const o = e as SocketEvent;
  return !!o && typeof o.t === 'number' && Number.isFinite(o.t) && (o.d === 'w' || o.d === 'r') && typeof o.n === 'number' && o.n >= 0;
}

/** The connections of a HAR log (empty when it has none). */
export function connectionsOf(log: unknown): ConnectionTimeline[] {
  const list = (log as { _connections?: unknown } | undefined)?._connections;
  if (!Array.isArray(list)) return [];
  const out: ConnectionTimeline[] = [];
  for (const c of list) {
    if (!c || typeof c.id !== 'string' || (c.leg !== 'client' && c.leg !== 'upstream') || !Array.isArray(c.events)) continue;
    out.push({
      id: c.id,
      leg: c.leg,
      opened: typeof c.opened === 'number' ? c.opened : 0,
      ...(typeof c.closed === 'number' ? { closed: c.closed } : {}),
      ...(c.framing === 'h2' ? { framing: 'h2' as const } : {}),
      events: (c.events as unknown[]).filter(validEvent),
    });
  }
  return out;
}

/** Events dropped by the recording's memory cap (0 when none, or unknown). */
export function connectionsDropped(log: unknown): number {
  const n = (log as { _connectionsDropped?: unknown } | undefined)?._connectionsDropped;
  return typeof n === 'number' && n > 0 ? n : 0;
}
