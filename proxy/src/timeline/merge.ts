/**
 * The live capture outlives its proxy: the app restarts the proxy when a setting changes and keeps
 * one capture. Its socket timeline is therefore the timelines of the proxies that ran since the
 * capture was cleared, merged into one log. Ids do not collide: exchange and connection ids are
 * counted per process (proxy-server.ts, pool.ts).
 */
import type { TimelineLog } from './types.js';

/** The logs of successive proxies (oldest first) as one, or undefined when there are none. */
export function mergeTimelineLogs(logs: TimelineLog[]): TimelineLog | undefined {
  if (logs.length <= 1) return logs[0];
  return {
    _connections: logs.flatMap((l) => l._connections),
    _connectionsDropped: logs.reduce((n, l) => n + l._connectionsDropped, 0),
    // One process, one performance.timeOrigin: every log's `t` is on the same clock.
    _connectionsTimeOrigin: logs[logs.length - 1]!._connectionsTimeOrigin,
  };
}
