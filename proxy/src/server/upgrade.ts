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
import type { RawHeaders } from '../model.js';
import type { Exchange } from '../model.js';
import { classifyUpstreamError, ErrorCodes } from '../errors.js';
import { emitRequest, finishExchange, newExchangeRecord } from './exchange-record.js';
import { connectionInfo } from '../upstream/pool.js';
import { emptyBody } from './body-capture.js';
import { flatFromPairs, getHeader, pairsFromFlat, stripHopByHop } from '../headers.js';
import { targetUrl } from './handle-request.js';
import type { RequestOrigin } from './client.js';
import type { ProxyContext } from './context.js';
import { upgradeRules } from '../rules/upgrade-rules.js';
import type { RuleHit } from '../rules/types.js';

function rawHead(statusLine: string, headers: string[]): string {
  let out = `${statusLine}\r\n`;
  for (let i = 0; i + 1 < headers.length; i += 2) out += `${headers[i]}: ${headers[i + 1]}\r\n`;
  return `${out}\r\n`;
}

export function handleUpgrade(
  ctx: ProxyContext,
  req: http.IncomingMessage,
  socket: Duplex,
  head: Buffer,
  origin: RequestOrigin,
  ruleHits?: RuleHit[],
): void {
  // Rules (rules/upgrade-rules.ts) may refuse or delay the handshake; they call back here with what matched.
  if (
    !ruleHits &&
    ctx.options.rules?.current &&
    upgradeRules(ctx, req, socket, origin, (hits) => handleUpgrade(ctx, req, socket, head, origin, hits))
  )
    return;
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
  if (ruleHits?.length) x.rules = ruleHits;
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
  // The request's own body (rare, but legal) must reach the origin before the new protocol's bytes.
  const framing = upgradeBody(headers);
  if (typeof framing === 'string') {
    socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nNetlens: ${framing}\n`);
    (socket as net.Socket).destroySoon?.();
    finish({ code: ErrorCodes.CLIENT_MALFORMED, message: framing, side: 'client' });
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
  // An origin that never answers the handshake (or stalls it): the same head deadline as any request.
  const headMs = ctx.options.upstreamTimeoutMs;
  upstreamReq.setTimeout(headMs, () =>
    upstreamReq.destroy(Object.assign(new Error(`no response within ${headMs} ms`), { code: ErrorCodes.UPSTREAM_TIMEOUT })),
  );
  let answered = false;
  // The client gave up before the origin answered (closed, or half-closed: nginx's 499 too):
  // release both sides and record it.
  const onClientGone = () => {
    if (answered) return;
    answered = true;
    upstreamReq.destroy();
    socket.destroy();
    finish({
      code: ErrorCodes.CLIENT_ABORTED,
      message: 'The client closed the connection before the upgrade was answered',
      side: 'client',
    });
  };
  socket.once('close', onClientGone);
  socket.once('end', onClientGone);
  const early = readUntilAnswered(upstreamReq, socket, head, framing);
  upstreamReq.on('socket', (s: net.Socket) => {
    x.timestamps.upstreamAssigned = performance.now();
    s.setNoDelay(noDelay);
    s.once('lookup', () => (x.timestamps.dnsEnd = performance.now()));
    s.once('connect', () => (x.timestamps.connectEnd = performance.now()));
    if (secure) s.once('secureConnect', () => (x.timestamps.tlsEnd = performance.now()));
  });
  upstreamReq.on('finish', () => (x.timestamps.requestSent = performance.now()));
  upstreamReq.on('upgrade', (res, upSocket: net.Socket, upHead: Buffer) => {
    answered = true;
    socket.off('close', onClientGone);
    socket.off('end', onClientGone);
    upSocket.setTimeout(0);
    x.timestamps.responseHeaders = performance.now();
    x.upstreamProtocol = 'http/1.1';
    x.upstreamConnectionId = connectionInfo(upSocket).id;
    x.upstreamConnectionNew = true;
    x.serverIPAddress = upSocket.remoteAddress;
    x.response = {
      status: res.statusCode ?? 101,
      statusText: res.statusMessage ?? '',
      httpVersion: 'http/1.1',
      headers: pairsFromFlat(res.rawHeaders),
      body: emptyBody(),
    };
    upSocket.setNoDelay(noDelay);
    socket.write(rawHead(`HTTP/1.1 ${res.statusCode} ${res.statusMessage}`, res.rawHeaders));
    x.timestamps.clientResponseHeaders = performance.now();
    const sent = early.stop();
    const bytes = { up: sent.length, down: upHead.length };
    x.tunnelBytes = bytes;
    if (upHead.length) socket.write(upHead);
    if (sent.length) upSocket.write(sent);
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
    answered = true;
    early.stop();
    socket.off('close', onClientGone);
    socket.off('end', onClientGone);
    x.timestamps.responseHeaders = performance.now();
    x.response = {
      status: res.statusCode ?? 0,
      statusText: res.statusMessage ?? '',
      httpVersion: 'http/1.1',
      headers: pairsFromFlat(res.rawHeaders),
      body: emptyBody(),
    };
    const h = stripHopByHop(pairsFromFlat(res.rawHeaders));
    socket.write(rawHead(`HTTP/1.1 ${res.statusCode} ${res.statusMessage}`, [...flatFromPairs(h), 'Connection', 'close']));
    res.pipe(socket);
    res.once('end', () => {
      (socket as net.Socket).destroySoon?.();
      finish();
    });
    res.once('error', (err) => {
      socket.destroy();
      const { code, message } = classifyUpstreamError(err, target.host);
      finish({ code, message, side: 'upstream' });
    });
    socket.once('close', () => {
      if (res.complete) return;
      res.destroy();
      finish({ code: ErrorCodes.CLIENT_ABORTED, message: 'The client closed the connection during the response', side: 'client' });
    });
  });
  upstreamReq.on('error', (err) => {
    const { code, message } = classifyUpstreamError(err, target.host);
    socket.destroy();
    finish({ code, message, side: 'upstream' });
  });
  socket.on('error', () => upstreamReq.destroy());
}

/** Body framing of an Upgrade request: a byte count (0: none), or why it cannot be forwarded. */
function upgradeBody(headers: RawHeaders): number | string {
  if (getHeader(headers, 'transfer-encoding') !== undefined)
    return 'an Upgrade request with a chunked body cannot be forwarded; send Content-Length';
  const cl = getHeader(headers, 'content-length');
  if (cl === undefined) return 0;
  if (!/^\d{1,15}$/.test(cl.trim())) return `invalid Content-Length "${cl.slice(0, 40)}"`;
  return Number(cl.trim());
}

/** Bytes the client sends after its head while the origin has not answered, kept for the new protocol. */
const EARLY_BYTES_LIMIT = 64 * 1024;

/**
 * Until the origin answers: writes the request body (`length` bytes: from `head`, then from
 * the socket) upstream and ends the request, and keeps reading the client so that its close is
 * seen (a socket nobody reads never reports the peer's FIN). Bytes after the body are kept (up
 * to 64 KiB, then reading pauses) and handed back by `stop` for the upgraded connection.
 */
function readUntilAnswered(upstreamReq: http.ClientRequest, socket: Duplex, head: Buffer, length: number): { stop(): Buffer } {
  let remaining = length;
  const kept: Buffer[] = [];
  let keptBytes = 0;
  const take = (c: Buffer) => {
    if (remaining > 0) {
      const part = c.subarray(0, remaining);
      remaining -= part.length;
      upstreamReq.write(part);
      if (remaining === 0) upstreamReq.end();
      c = c.subarray(part.length);
    }
    if (c.length) {
      kept.push(c);
      keptBytes += c.length;
      if (keptBytes >= EARLY_BYTES_LIMIT) socket.pause();
    }
  };
  if (length === 0) upstreamReq.end();
  if (head.length) take(head);
  socket.on('data', take);
  socket.resume();
  return {
    stop() {
      socket.off('data', take);
      socket.pause();
      return Buffer.concat(kept);
    },
  };
}
