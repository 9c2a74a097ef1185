/**
 * The browser leg's SETTINGS_MAX_CONCURRENT_STREAMS follows the origin's: once the pooled upstream HTTP/2
 * session has the origin's SETTINGS, every intercepted HTTP/2 client session of that CONNECT target is sent a
 * SETTINGS frame with the origin's limit, and again whenever the origin changes it.
 *
 * Why: a client schedules its requests by the limit its server advertises (Chrome keeps at most that many open,
 * capped at 256, and 100 when the server says nothing). Through a proxy that advertises its own number, a page
 * is loaded differently from how it loads against the origin: with more streams than the origin allows, the
 * extra requests wait inside the proxy with their clock running (counted as time to first byte); with fewer,
 * the browser holds back requests the origin would have taken. The browser leg starts at 100
 * (intercept-servers.ts), which is also what it keeps for an origin that advertises no limit, speaks only
 * HTTP/1.1 or cannot be reached.
 *
 * The origin's value is kept within [1, MAX_MIRRORED_STREAMS]: 0 (an origin pausing new streams) would stop the
 * client from sending the request that opens the next upstream session, and each open stream holds memory in
 * the proxy on both legs.
 */
import type http2 from 'node:http2';
import { H2_MAX_CONCURRENT_STREAMS } from './intercept-servers.js';
import { originKey, type UpstreamPool } from '../upstream/pool.js';

/** The most concurrent streams the browser leg advertises, whatever the origin allows (the previous fixed value). */
export const MAX_MIRRORED_STREAMS = 1000;
/** What nghttp2 reports for a peer that sent no SETTINGS_MAX_CONCURRENT_STREAMS: no limit. */
const NO_LIMIT = 2 ** 32 - 1;

/** The browser leg's limit for an origin that advertises `origin` concurrent streams (undefined: says nothing). */
export function browserLegStreams(origin: number | undefined): number {
  if (origin === undefined || origin >= NO_LIMIT) return H2_MAX_CONCURRENT_STREAMS;
  return Math.min(Math.max(origin, 1), MAX_MIRRORED_STREAMS);
}

export interface StreamLimitMirror {
  /** Follows the origin of `target` on this client session from now on (until it closes). */
  watch(session: http2.ServerHttp2Session, target: { host: string; port: number }): void;
  /** Client sessions followed now, all origins together (a closed session leaves). */
  readonly watched: number;
}

export function createStreamLimitMirror(pool: UpstreamPool): StreamLimitMirror {
  const clients = new Map<string, Set<http2.ServerHttp2Session>>();
  /** The limit last sent on each client session, so that an unchanged one sends no frame. */
  const sent = new WeakMap<http2.ServerHttp2Session, number>();
  /** Each followed session's CONNECT target, to read its origin's limit again when the client acknowledges one. */
  const targets = new WeakMap<http2.ServerHttp2Session, { host: string; port: number }>();
  let watched = 0;

  const apply = (session: http2.ServerHttp2Session, origin: number | undefined) => {
    if (session.closed || session.destroyed) return;
    const limit = browserLegStreams(origin);
    if ((sent.get(session) ?? H2_MAX_CONCURRENT_STREAMS) === limit) return;
    try {
      // When the client acknowledges it, the origin's limit is read again: one refused meanwhile is sent then.
      session.settings({ maxConcurrentStreams: limit }, () => catchUp(session));
      sent.set(session, limit);
    } catch {
      // Too many SETTINGS not yet acknowledged (an origin changing its limit faster than the client acks), or the
      // session is going away: the acknowledgement of one still pending catches up (catchUp).
    }
  };
  const catchUp = (session: http2.ServerHttp2Session) => {
    const target = targets.get(session);
    const known = target && pool.originSettings(target.host, target.port);
    if (known) apply(session, known.maxConcurrentStreams);
  };

  pool.onOriginSettings = (host, port, settings) => {
    const sessions = clients.get(originKey(host, port));
    if (sessions) for (const s of sessions) apply(s, settings.maxConcurrentStreams);
  };

  return {
    watch(session, target) {
      const key = originKey(target.host, target.port);
      let sessions = clients.get(key);
      if (!sessions) clients.set(key, (sessions = new Set()));
      sessions.add(session);
      targets.set(session, target);
      watched++;
      const set = sessions;
      session.once('close', () => {
        set.delete(session);
        watched--;
        if (set.size === 0 && clients.get(key) === set) clients.delete(key);
      });
      catchUp(session);
    },
    get watched() {
      return watched;
    },
  };
}
