/**
 * HAR 1.2 phases from monotonic timestamps (a pure function, tested on its own).
 * Rules, as in HAR 1.2 and Chrome DevTools: -1 when a phase does not apply
 * (dns/connect/ssl on a reused connection), ssl is counted inside connect, and
 * tiny negative differences from clock granularity are clamped to 0.
 */
import type { ClientTimings, ExchangeTimestamps, Timings } from '../model.js';

const round = (n: number) => Math.round(n * 1000) / 1000;
const span = (from: number | undefined, to: number | undefined): number =>
  from === undefined || to === undefined ? -1 : round(Math.max(0, to - from));

export function computeTimings(t: ExchangeTimestamps): Timings {
  const assigned = t.upstreamAssigned;
  const blocked = assigned === undefined ? -1 : span(t.start, assigned);
  const dns = t.dnsEnd === undefined ? -1 : span(assigned, t.dnsEnd);
  const connectStart = t.dnsEnd ?? assigned;
  const connectEnd = t.tlsEnd ?? t.connectEnd;
  const connect = t.connectEnd === undefined && t.tlsEnd === undefined ? -1 : span(connectStart, connectEnd);
  const ssl = t.tlsEnd === undefined || t.connectEnd === undefined ? -1 : span(t.connectEnd, t.tlsEnd);
  const sendStart = connectEnd ?? assigned;
  const send = t.requestSent === undefined ? -1 : span(sendStart, t.requestSent);
  const wait = t.responseHeaders === undefined ? -1 : span(t.requestSent ?? sendStart, t.responseHeaders);
  const receive = t.responseEnd === undefined ? -1 : span(t.responseHeaders, t.responseEnd);
  const total = round([blocked, dns, connect, send, wait, receive].filter((n) => n > 0).reduce((a, b) => a + b, 0));
  return { blocked, dns, connect, ssl, send, wait, receive, total };
}

export function computeClientTimings(t: ExchangeTimestamps, upstream: Timings): ClientTimings {
  const total = span(t.start, t.clientResponseEnd ?? t.responseEnd);
  const receiveRequest = span(t.start, t.clientRequestEnd);
  const respond = span(t.responseHeaders, t.clientResponseHeaders);
  const upstreamBusy = [upstream.dns, upstream.connect, upstream.wait, upstream.receive].filter((n) => n > 0).reduce((a, b) => a + b, 0);
  const proxyOverhead = total < 0 ? -1 : round(Math.max(0, total - upstreamBusy));
  return { receiveRequest, proxyOverhead, respond, total };
}
