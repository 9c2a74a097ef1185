/**
 * HAR 1.2 phases from monotonic timestamps (a pure function; proxy/test/proxy/timings.test.ts tests it directly).
 * The model is in docs/timings.md; in short:
 *  - The upstream leg is one line of time from `start` (request head parsed) to
 *    `responseEnd`, cut into consecutive phases: blocked, dns, connect (ssl inside
 *    it), send, wait, receive. Each timestamp is clamped to be no earlier than the
 *    one before it, so phases are never negative and their sum is the leg's length.
 *  - dns/connect/ssl are the part of a connection's setup this request waited for:
 *    a setup that finished before the request started (a reused connection, a
 *    finished preconnect, an idle stashed probe socket) is -1; one still in flight
 *    when the request started (its own dial, a preconnect or protocol probe, an
 *    HTTP/2 session other streams also wait for) counts from the request's start.
 *  - blocked is every other wait before the request is written: waiting for a
 *    connection or a dial to start, the failed attempts and backoff of retries,
 *    and a gap between the connection being ready and the request being written.
 *  - send ends no later than the response head (an origin may answer early).
 */
import type { ClientTimings, ExchangeTimestamps, Timings } from '../model.js';

const round = (n: number) => Math.round(n * 1000) / 1000;
const defined = (n: number | undefined): n is number => n !== undefined;
const positive = (n: number) => (n > 0 ? n : 0);

export function computeTimings(t: ExchangeTimestamps): Timings {
  const s = t.start;
  const clip = (n: number) => Math.max(s, n);
  let blocked = -1;
  let dns = -1;
  let connect = -1;
  let ssl = -1;
  /** When the request began to be written: the end of blocked/dns/connect. */
  let sendStart: number | undefined;
  const ready = t.tlsEnd ?? t.connectEnd;
  if (defined(ready) && ready > s) {
    // The request waited for (part of) this connection's setup.
    const dialAt = clip(t.dialStart ?? t.upstreamAssigned ?? s);
    const dnsAt = defined(t.dnsEnd) && t.dnsEnd > s ? Math.max(dialAt, t.dnsEnd) : undefined;
    if (defined(dnsAt)) dns = dnsAt - dialAt;
    const connectFrom = dnsAt ?? dialAt;
    const readyAt = Math.max(connectFrom, ready);
    connect = readyAt - connectFrom;
    if (defined(t.tlsEnd) && defined(t.connectEnd)) ssl = Math.min(connect, readyAt - Math.max(connectFrom, t.connectEnd));
    sendStart = Math.max(readyAt, t.upstreamAssigned ?? readyAt);
    blocked = dialAt - s + (sendStart - readyAt);
  } else if (defined(t.upstreamAssigned)) {
    sendStart = clip(t.upstreamAssigned);
    blocked = sendStart - s;
  }
  let send = -1;
  let wait = -1;
  let receive = -1;
  let end = sendStart ?? s;
  if (defined(sendStart) && defined(t.requestSent)) {
    const sent = Math.max(sendStart, Math.min(t.requestSent, t.responseHeaders ?? Infinity));
    send = sent - sendStart;
    end = sent;
    if (defined(t.responseHeaders)) {
      const head = Math.max(sent, t.responseHeaders);
      wait = head - sent;
      end = head;
      if (defined(t.responseEnd)) {
        const last = Math.max(head, t.responseEnd);
        receive = last - head;
        end = last;
      }
    }
  }
  const r = (n: number) => (n < 0 ? -1 : round(n));
  return {
    blocked: r(blocked),
    dns: r(dns),
    connect: r(connect),
    ssl: r(ssl),
    send: r(send),
    wait: r(wait),
    receive: r(receive),
    total: round(end - s),
  };
}

export function computeClientTimings(t: ExchangeTimestamps, upstream: Timings): ClientTimings {
  const span = (from: number | undefined, to: number | undefined): number =>
    from === undefined || to === undefined ? -1 : round(Math.max(0, to - from));
  // The client leg cannot end before the upstream leg it relays did (clock order of two callbacks aside).
  const clientEnd = t.clientResponseEnd ?? t.responseEnd;
  const end = clientEnd === undefined ? undefined : Math.max(clientEnd, t.responseEnd ?? clientEnd);
  const total = end === undefined ? -1 : Math.max(span(t.start, end), upstream.total);
  const receiveRequest = span(t.start, t.clientRequestEnd);
  const respond = span(t.responseHeaders, t.clientResponseHeaders);
  // The positive phases summed (-1 is "did not happen"), without an array per exchange.
  const upstreamBusy = positive(upstream.dns) + positive(upstream.connect) + positive(upstream.wait) + positive(upstream.receive);
  const proxyOverhead = total < 0 ? -1 : round(Math.max(0, total - upstreamBusy));
  return { receiveRequest, proxyOverhead, respond, total };
}
