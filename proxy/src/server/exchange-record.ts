/**
 * Creating and finishing Exchange records: one place for the defaults (-1 phases,
 * one wall-clock instant derived from the monotonic start) and for the final
 * step (phases computed, `complete` or `error` emitted).
 */
import { performance } from 'node:perf_hooks';
import type { Exchange, ExchangeError, HttpProtocol, RawHeaders } from '../model.js';
import { ErrorCodes } from '../errors.js';
import { computeClientTimings, computeTimings } from '../upstream/timings.js';
import type { ProxyContext } from './context.js';
import type { RequestOrigin } from './client.js';
import { headerListBytes } from '../timeline/h2-hooks.js';
import { emptyBody } from './body-capture.js';
import { isoTime } from '../iso-time.js';

/** The wall-clock time of performance.now()'s zero: fixed for the process (its getter was in the per-exchange profile). */
const TIME_ORIGIN = performance.timeOrigin;

export interface NewExchange {
  origin: RequestOrigin;
  /** performance.now() when the request head was parsed. */
  start: number;
  method: string;
  url: string;
  httpVersion: HttpProtocol;
  headers: RawHeaders;
}

export function newExchangeRecord(ctx: ProxyContext, n: NewExchange): Exchange {
  const id = ctx.nextExchangeId();
  // Node's HTTP/1 parser and nghttp2 read the client socket in C++, unseen by the timeline's hooks: the head's arrival is its read.
  // Over HTTP/2 its size is the header list's (h2-hooks.ts), the unit of the lane's other HEADERS events.
  ctx.timeline?.markRead(n.origin.clientConnectionId, n.httpVersion === 'h2' ? headerListBytes(n.headers) : headBytes(n), n.start, id);
  return {
    id,
    clientConnectionId: n.origin.clientConnectionId,
    startedDateTime: isoTime(TIME_ORIGIN + n.start),
    transport: n.origin.transport,
    clientProtocol: n.httpVersion,
    nagle: ctx.options.nagle,
    request: { method: n.method, url: n.url, httpVersion: n.httpVersion, headers: n.headers, body: emptyBody() },
    retries: 0,
    timestamps: { start: n.start },
    timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: -1, wait: -1, receive: -1, total: 0 },
    clientTimings: { receiveRequest: -1, proxyOverhead: -1, respond: -1, total: -1 },
  };
}

/** Announces an exchange whose request head has arrived. */
export function emitRequest(ctx: ProxyContext, x: Exchange): void {
  ctx.events.emit(requestEvent(x));
}

/** The `request` event of an exchange (also what bench/recording-cost.ts replays). */
export function requestEvent(x: Exchange) {
  return {
    type: 'request' as const,
    exchange: {
      id: x.id,
      clientConnectionId: x.clientConnectionId,
      startedDateTime: x.startedDateTime,
      transport: x.transport,
      clientProtocol: x.clientProtocol,
      method: x.request.method,
      url: x.request.url,
      headers: x.request.headers,
      timestamps: { start: x.timestamps.start },
    },
  };
}

/** Computes the phases and emits the final `complete` (or `error`) event. */
export function finishExchange(ctx: ProxyContext, x: Exchange, error?: ExchangeError): void {
  // A client "abort" the proxy itself caused by a timeout is recorded as that timeout.
  if (error?.code === ErrorCodes.CLIENT_ABORTED) error = ctx.clientTimeoutReason?.(x.clientConnectionId) ?? error;
  x.timings = computeTimings(x.timestamps);
  tagTimeline(ctx, x);
  x.clientTimings = computeClientTimings(x.timestamps, x.timings);
  if (error) x.error = error;
  ctx.events.emit(error ? { type: 'error', exchange: x } : { type: 'complete', exchange: x });
}

/** Approximate size of a request head (the timeline cannot see the bytes the parser read). */
function headBytes(n: NewExchange): number {
  let size = n.method.length + n.url.length + 12;
  for (const [k, v] of n.headers) size += k.length + v.length + 4;
  return size;
}

/** Gives the exchange's socket events its id: client leg from head to last byte written, upstream leg while it had the connection. */
function tagTimeline(ctx: ProxyContext, x: Exchange): void {
  const tl = ctx.timeline;
  if (!tl) return;
  const t = x.timestamps;
  tl.tag(x.clientConnectionId, x.id, t.start, t.clientResponseEnd ?? t.responseEnd);
  tl.tag(x.upstreamConnectionId, x.id, t.upstreamAssigned ?? t.start, t.responseEnd);
}
