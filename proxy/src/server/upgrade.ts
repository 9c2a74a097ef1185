/**
 * WebSocket (and any HTTP/1.1 Upgrade) pass-through: the handshake is forwarded
 * and recorded like a request; after the origin's 101 the bytes flow both ways
 * untouched, counted for the record. Works for ws:// through the plain proxy and
 * for wss:// inside an intercepted CONNECT.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import type { Exchange } from '../model.js';
import { classifyUpstreamError, ErrorCodes } from '../errors.js';
import { emitRequest, finishExchange, newExchangeRecord } from './exchange-record.js';
import { connectionInfo } from '../upstream/pool.js';
import { emptyBody } from './body-capture.js';
import { flatFromPairs, getHeader, pairsFromFlat, stripHopByHop } from './headers.js';
import { targetUrl, type RequestOrigin } from './handle-request.js';
import type { ProxyContext } from './context.js';

function rawHead(statusLine: string, headers: string[]): string {
  let out = `${statusLine}\r\n`;
  for (let i = 0; i + 1 < headers.length; i += 2) out += `${headers[i]}: ${headers[i + 1]}\r\n`;
  return `${out}\r\n`;
}

export function handleUpgrade(ctx: ProxyContext, req: http.IncomingMessage, socket: Duplex, head: Buffer, origin: RequestOrigin): void {
  const start = performance.now();
  const target = targetUrl(req, origin);
  const headers = pairsFromFlat(req.rawHeaders);
  const x = newExchangeRecord(ctx, {
    origin,
    start,
    method: req.method ?? 'GET',
    url: typeof target === 'string' ? (req.url ?? '') : target.href.replace(/^http/, 'ws'),
    httpVersion: 'http/1.1',
    headers,
  });
  x.websocket = (getHeader(headers, 'upgrade') ?? '').toLowerCase() === 'websocket';
  x.timestamps.clientRequestEnd = start;
  let finished = false;
  const finish = (error?: Exchange['error']) => {
    if (finished) return;
    finished = true;
    x.timestamps.responseEnd ??= performance.now();
    x.timestamps.clientResponseEnd = x.timestamps.responseEnd;
    finishExchange(ctx, x, error);
  };
  if (typeof target === 'string' || ctx.refuseTarget(target, origin)) {
    const message = typeof target === 'string' ? target : ctx.refuseTarget(target, origin)!.message;
    socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${message}\n`);
    finish({ code: ErrorCodes.CLIENT_MALFORMED, message, side: 'client' });
    return;
  }
  emitRequest(ctx, x);
  const secure = target.protocol === 'https:';
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const noDelay = !ctx.options.nagle;
  // A WebSocket owns its connection for its whole life: no pooling (agent: false).
  const upstreamReq = (secure ? https : http).request({
    host,
    port: Number(target.port) || (secure ? 443 : 80),
    method: req.method,
    path: `${target.pathname}${target.search}`,
    headers: flatFromPairs(stripHopByHop(headers, { keepUpgrade: true })) as unknown as http.OutgoingHttpHeaders,
    setHost: !headers.some(([k]) => k.toLowerCase() === 'host'),
    agent: false,
    servername: secure && !net.isIP(host) ? host : undefined,
    // tls.connect option (not in https.RequestOptions' type): the pool's shared trust context.
    ...({ secureContext: ctx.pool.secureContext } as object),
    rejectUnauthorized: !ctx.options.insecureUpstream,
  });
  upstreamReq.on('socket', (s: net.Socket) => {
    x.timestamps.upstreamAssigned = performance.now();
    s.setNoDelay(noDelay);
    s.once('lookup', () => (x.timestamps.dnsEnd = performance.now()));
    s.once('connect', () => (x.timestamps.connectEnd = performance.now()));
    if (secure) s.once('secureConnect', () => (x.timestamps.tlsEnd = performance.now()));
  });
  upstreamReq.on('finish', () => (x.timestamps.requestSent = performance.now()));
  upstreamReq.on('upgrade', (res, upSocket: net.Socket, upHead: Buffer) => {
    x.timestamps.responseHeaders = performance.now();
    x.upstreamProtocol = 'http/1.1';
    x.upstreamConnectionId = connectionInfo(upSocket).id;
    x.upstreamConnectionNew = true;
    x.serverIPAddress = upSocket.remoteAddress;
    x.response = { status: res.statusCode ?? 101, statusText: res.statusMessage ?? '', httpVersion: 'http/1.1', headers: pairsFromFlat(res.rawHeaders), body: emptyBody() };
    upSocket.setNoDelay(noDelay);
    socket.write(rawHead(`HTTP/1.1 ${res.statusCode} ${res.statusMessage}`, res.rawHeaders));
    x.timestamps.clientResponseHeaders = performance.now();
    const bytes = { up: head.length, down: upHead.length };
    x.tunnelBytes = bytes;
    if (upHead.length) socket.write(upHead);
    if (head.length) upSocket.write(head);
    socket.on('data', (c: Buffer) => (bytes.up += c.length));
    upSocket.on('data', (c: Buffer) => (bytes.down += c.length));
    socket.pipe(upSocket).on('error', () => socket.destroy());
    upSocket.pipe(socket);
    const close = () => {
      socket.destroy();
      upSocket.destroy();
      finish();
    };
    socket.once('close', close);
    upSocket.once('close', close);
    socket.on('error', close);
    upSocket.on('error', close);
  });
  upstreamReq.on('response', (res) => {
    // The origin declined the upgrade: relay its answer as a normal response.
    x.timestamps.responseHeaders = performance.now();
    x.response = { status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', httpVersion: 'http/1.1', headers: pairsFromFlat(res.rawHeaders), body: emptyBody() };
    const h = stripHopByHop(pairsFromFlat(res.rawHeaders));
    socket.write(rawHead(`HTTP/1.1 ${res.statusCode} ${res.statusMessage}`, [...flatFromPairs(h), 'Connection', 'close']));
    res.pipe(socket);
    res.once('end', () => finish());
  });
  upstreamReq.on('error', (err) => {
    const { code, message } = classifyUpstreamError(err, target.host);
    socket.destroy();
    finish({ code, message, side: 'upstream' });
  });
  socket.on('error', () => upstreamReq.destroy());
  upstreamReq.end();
}
