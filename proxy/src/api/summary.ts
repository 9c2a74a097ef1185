/**
 * Core model (Exchange, ExchangeStart) → the contract's compact row and detail types.
 * Pure functions; the only place that knows both shapes.
 */
import type { Exchange, ExchangeResponseHead, ExchangeStart } from '../model.js';
import type { ExchangeDetail, ExchangeSummary, PhaseTimings } from './contract.js';
import { mimeOf } from './body-view.js';

/**
 * Host and path+query of a row's URL. Tunnels are recorded as `https://host:port`. A target the
 * proxy refused (origin-form `/index.html` sent to the proxy, garbage) is no URL: it is all path,
 * as in saved sessions (session-view.ts), so it never shows up as a host in the host filter.
 * `example.com:443` parses as a URL of scheme `example.com:` with no host: all path too.
 */
function splitUrl(url: string): { host: string; path: string } {
  const u = URL.canParse(url) ? new URL(url) : undefined;
  if (!u?.host) return { host: '', path: url };
  return { host: u.host, path: u.pathname + u.search };
}

export function pendingSummary(start: ExchangeStart): ExchangeSummary {
  return {
    id: start.id,
    startedDateTime: start.startedDateTime,
    startTime: Date.parse(start.startedDateTime),
    method: start.method,
    url: start.url,
    ...splitUrl(start.url),
    mimeType: '',
    protocol: start.clientProtocol,
    transport: start.transport,
    requestSize: -1,
    responseSize: -1,
    duration: -1,
    state: 'pending',
  };
}

export function withResponseHead(row: ExchangeSummary, head: ExchangeResponseHead): ExchangeSummary {
  return {
    ...row,
    status: head.status,
    statusText: head.statusText,
    mimeType: mimeOf(head.headers),
    connection: head.upstreamConnectionId,
    serverIPAddress: head.serverIPAddress,
  };
}

export function phaseTimings(x: Exchange): PhaseTimings {
  const t = x.timings;
  return { blocked: t.blocked, dns: t.dns, connect: t.connect, ssl: t.ssl, send: t.send, wait: t.wait, receive: t.receive };
}

export function exchangeSummary(x: Exchange): ExchangeSummary {
  // Tunnels (CONNECT, WebSocket) have a response head with no body: the bytes that went
  // through them are their size, both ways.
  const requestSize = x.tunnelBytes ? x.tunnelBytes.up : x.request.body.size;
  const responseSize = x.tunnelBytes ? x.tunnelBytes.down : x.response ? x.response.body.size : -1;
  return {
    id: x.id,
    startedDateTime: x.startedDateTime,
    startTime: Date.parse(x.startedDateTime),
    method: x.request.method,
    url: x.request.url,
    ...splitUrl(x.request.url),
    status: x.response?.status,
    statusText: x.response?.statusText,
    mimeType: x.response ? mimeOf(x.response.headers) : '',
    protocol: x.clientProtocol,
    transport: x.transport,
    requestSize,
    responseSize,
    duration: x.clientTimings.total >= 0 ? x.clientTimings.total : x.timings.total,
    timings: phaseTimings(x),
    state: x.error ? 'error' : 'complete',
    error: x.error ? { code: x.error.code, message: x.error.message } : undefined,
    connection: x.upstreamConnectionId,
    serverIPAddress: x.serverIPAddress,
    ...(x.mocked ? { mocked: true } : {}),
  };
}

export function exchangeDetail(x: Exchange): ExchangeDetail {
  return {
    summary: exchangeSummary(x),
    request: {
      httpVersion: x.request.httpVersion,
      headers: x.request.headers,
      bodySize: x.request.body.size,
      bodyTruncated: x.request.body.truncated,
    },
    response: x.response && {
      httpVersion: x.response.httpVersion,
      headers: x.response.headers,
      bodySize: x.response.body.size,
      bodyTruncated: x.response.body.truncated,
    },
    clientTimings: x.clientTimings,
    timestamps: x.timestamps,
    upstreamProtocol: x.upstreamProtocol,
    upstreamConnectionNew: x.upstreamConnectionNew,
    nagle: x.nagle,
    retries: x.retries,
    tunnelBytes: x.tunnelBytes,
    websocket: x.websocket,
    ...(x.rules?.length ? { rules: x.rules } : {}),
    ...(x.mocked ? { mocked: true } : {}),
  };
}
