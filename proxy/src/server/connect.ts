/**
 * CONNECT: either a blind TCP tunnel (interception off) or TLS termination with
 * a certificate for the requested host (interception on), after which every
 * request inside is handled like any other (handle-request.ts).
 */
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { IncomingMessage } from 'node:http';
import type { Exchange } from '../model.js';
import { classifyUpstreamError, ErrorCodes } from '../errors.js';
import { emitRequest, finishExchange, newExchangeRecord } from './exchange-record.js';
import { connectionInfo } from '../upstream/pool.js';
import { emptyBody } from './body-capture.js';
import { pairsFromFlat } from '../headers.js';
import type { ProxyContext } from './context.js';
import type { RequestOrigin } from './client.js';
import type { Interceptor } from './intercept-servers.js';

/** Attached to client sockets (raw and TLS) so handlers know where a request came from. */
export const ORIGIN = Symbol('netlens.origin');
export type WithOrigin = { [ORIGIN]?: RequestOrigin };

/** TLS records start with content type 22 (handshake); anything else inside CONNECT is cleartext. */
const TLS_HANDSHAKE = 0x16;

export interface ConnectTargets {
  /** TLS termination (HTTP/2 + HTTP/1.1 by ALPN) for intercepted tunnels. */
  interceptor: Interceptor;
  /** Receives cleartext connections from inside a tunnel (emit 'connection'). */
  tunnelHttpServer: net.Server;
  /** Puts a cleartext-in-tunnel connection under the client timeouts. */
  watchCleartext(socket: net.Socket, clientConnectionId: string): void;
  /** Upstream tunnel sockets, closed on stop. */
  tunnelSockets: Set<net.Socket>;
}

/** Parses an authority-form CONNECT target (`host:port`, `[v6]:port`). */
export function parseAuthority(target: string | undefined): { host: string; port: number } | null {
  if (!target) return null;
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s/@]+)):(\d{1,5})$/.exec(target);
  if (!m) return null;
  const port = Number(m[3]);
  if (port < 1 || port > 65535) return null;
  return { host: (m[1] ?? m[2]).toLowerCase(), port };
}

/**
 * Answers and closes. destroySoon: the socket (half-open capable, from the HTTP server)
 * is released once the answer is flushed, not when the client gets round to closing.
 */
function refuse(socket: net.Socket, status: string, message: string, errorCode?: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  // X-Netlens-Error names the cause of a 502 as on a request's (bad-gateway.ts).
  const named = errorCode ? `X-Netlens-Error: ${errorCode}\r\n` : '';
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\n${named}Connection: close\r\n\r\n${message}\n`);
  socket.destroySoon();
}

export function handleConnect(
  ctx: ProxyContext,
  targets: ConnectTargets,
  req: IncomingMessage,
  socket: net.Socket & WithOrigin,
  head: Buffer,
): void {
  // The HTTP server no longer listens for this socket's errors: a reset must not become an uncaught exception.
  socket.on('error', () => socket.destroy());
  const target = parseAuthority(req.url);
  const clientConnectionId = socket[ORIGIN]?.clientConnectionId ?? ctx.nextClientConnectionId();
  if (!target) {
    refuse(socket, '400 Bad Request', `CONNECT needs a host:port target (got "${String(req.url).slice(0, 200)}")`);
    return;
  }
  if (ctx.isSelf(target.host, target.port)) {
    refuse(socket, '400 Bad Request', 'Refusing to CONNECT to the proxy itself (request loop)');
    return;
  }
  socket.setNoDelay(!ctx.options.nagle);
  if (!ctx.options.intercept) {
    tunnel(ctx, targets, req, socket, head, target, clientConnectionId);
    return;
  }
  socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  const origin = (transport: RequestOrigin['transport']): RequestOrigin => ({ transport, clientConnectionId, target });
  const start = performance.now();
  // The client must start talking (ClientHello or a request line) within the header timeout.
  const silent = setTimeout(() => {
    socket.off('data', dispatch);
    socket.destroy();
    const ms = ctx.options.headerTimeoutMs;
    const why = `The client sent nothing in the tunnel to ${target.host} for ${ms} ms`;
    recordConnectFailure(ctx, req, origin('intercepted'), start, ErrorCodes.CLIENT_TIMEOUT, why);
  }, ctx.options.headerTimeoutMs);
  silent.unref();
  socket.once('close', () => clearTimeout(silent));
  // A client that closes before saying anything: the socket allows half-open (it comes from an
  // HTTP server), so without this our side would wait in CLOSE-WAIT for the timer.
  const early = () => socket.destroy();
  socket.once('end', early);
  function dispatch(first: Buffer) {
    clearTimeout(silent);
    socket.off('end', early);
    socket.pause();
    socket.unshift(first);
    if (first[0] === TLS_HANDSHAKE) intercept(ctx, targets, socket, origin('intercepted'), req);
    else {
      socket[ORIGIN] = origin('connect-plain');
      targets.tunnelHttpServer.emit('connection', socket);
      targets.watchCleartext(socket, clientConnectionId);
      socket.resume();
    }
  }
  if (head.length) dispatch(head);
  else socket.once('data', dispatch);
}

function intercept(
  ctx: ProxyContext,
  targets: ConnectTargets,
  socket: net.Socket & WithOrigin,
  origin: RequestOrigin,
  req: IncomingMessage,
): void {
  const host = origin.target!.host;
  const start = performance.now();
  socket[ORIGIN] = origin;
  // The TLS socket wraps the raw socket itself (it also replays the bytes we peeked at).
  // Do not resume the raw socket here: the peeked ClientHello would flow out as
  // 'data' events before the TLS socket reads the buffer on the next tick.
  try {
    targets.interceptor.accept(socket, host, ({ error, timedOut }) => {
      if (timedOut) {
        recordConnectFailure(
          ctx,
          req,
          origin,
          start,
          ErrorCodes.CLIENT_TIMEOUT,
          `No TLS handshake from the client for ${host}: ${error.message}`,
        );
        return;
      }
      // Usually: the client does not trust the Netlens CA. Record it so users see why.
      recordConnectFailure(
        ctx,
        req,
        origin,
        start,
        ErrorCodes.CLIENT_TLS,
        `TLS handshake with the client failed for ${host}: ${tlsReason(error)}. Does the client trust the Netlens CA? Run "netlens ca" for how.`,
      );
    });
  } catch (err) {
    socket.destroy();
    recordConnectFailure(
      ctx,
      req,
      origin,
      start,
      ErrorCodes.INTERNAL,
      `Cannot create a certificate for ${host}: ${(err as Error).message}`,
    );
  }
}

/** OpenSSL messages carry file paths and codes; keep the readable part ("tlsv1 alert unknown ca"). */
function tlsReason(err: Error): string {
  const m = /:([a-z0-9 _]+):[^:]*\.c:\d+/i.exec(err.message) ?? /:([^:]+)$/.exec(err.message.trim());
  return (m?.[1] ?? err.message).trim();
}

function connectExchange(ctx: ProxyContext, req: IncomingMessage, origin: RequestOrigin, start: number): Exchange {
  const t = origin.target!;
  return newExchangeRecord(ctx, {
    origin,
    start,
    method: 'CONNECT',
    url: `https://${t.host.includes(':') ? `[${t.host}]` : t.host}:${t.port}`,
    httpVersion: 'http/1.1',
    headers: pairsFromFlat(req.rawHeaders),
  });
}

function recordConnectFailure(
  ctx: ProxyContext,
  req: IncomingMessage,
  origin: RequestOrigin,
  start: number,
  code: string,
  message: string,
): void {
  const x = connectExchange(ctx, req, origin, start);
  x.timestamps.clientResponseEnd = performance.now();
  finishExchange(ctx, x, { code, message, side: 'client' });
}

/** Blind tunnel: bytes both ways, recorded as one exchange with byte counts. */
function tunnel(
  ctx: ProxyContext,
  targets: ConnectTargets,
  req: IncomingMessage,
  socket: net.Socket,
  head: Buffer,
  target: { host: string; port: number },
  clientConnectionId: string,
): void {
  const origin: RequestOrigin = { transport: 'tunnel', clientConnectionId, target };
  const start = performance.now();
  const x = connectExchange(ctx, req, origin, start);
  emitRequest(ctx, x);
  const upstream = net.connect({ host: target.host, port: target.port, noDelay: !ctx.options.nagle });
  upstream.setNoDelay(!ctx.options.nagle);
  // An origin that never completes the TCP handshake: the OS would wait minutes.
  const connectMs = ctx.options.upstreamTimeoutMs;
  upstream.setTimeout(connectMs, () => {
    if (!connected) upstream.destroy(Object.assign(new Error(`no connection within ${connectMs} ms`), { code: 'ETIMEDOUT' }));
  });
  targets.tunnelSockets.add(upstream);
  const conn = connectionInfo(upstream);
  x.timestamps.upstreamAssigned = start;
  upstream.once('lookup', () => (x.timestamps.dnsEnd = performance.now()));
  let connected = false;
  let finished = false;
  const up = { bytes: 0 };
  const down = { bytes: 0 };
  const done = (error?: { code: string; message: string }) => {
    if (finished) return;
    finished = true;
    targets.tunnelSockets.delete(upstream);
    x.tunnelBytes = { up: up.bytes, down: down.bytes };
    x.timestamps.responseEnd = x.timestamps.clientResponseEnd = performance.now();
    finishExchange(ctx, x, error && { ...error, side: 'upstream' });
  };
  upstream.once('connect', () => {
    connected = true;
    upstream.setTimeout(0);
    const now = performance.now();
    x.timestamps.connectEnd = now;
    x.timestamps.requestSent = now;
    x.timestamps.responseHeaders = now;
    x.upstreamConnectionId = conn.id;
    x.upstreamConnectionNew = true;
    x.serverIPAddress = upstream.remoteAddress;
    x.response = { status: 200, statusText: 'Connection Established', httpVersion: 'http/1.1', headers: [], body: emptyBody() };
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) {
      up.bytes += head.length;
      upstream.write(head);
    }
    socket.on('data', (c: Buffer) => (up.bytes += c.length));
    upstream.on('data', (c: Buffer) => (down.bytes += c.length));
    socket.pipe(upstream);
    upstream.pipe(socket);
  });
  upstream.on('error', (err) => {
    const { code, message } = classifyUpstreamError(err, `${target.host}:${target.port}`);
    if (!connected) refuse(socket, '502 Bad Gateway', message, code);
    else socket.destroy();
    done({ code, message });
  });
  socket.on('error', () => upstream.destroy());
  socket.on('close', () => {
    upstream.destroy();
    done();
  });
  upstream.on('close', () => {
    socket.end();
    if (connected) done();
  });
}
