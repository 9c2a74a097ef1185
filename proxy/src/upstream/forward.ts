/**
 * Sends one request to the origin over a pooled connection (HTTP/1.1 keep-alive
 * or a shared HTTP/2 session), records the timestamps HAR phases come from,
 * and retries connection failures of idempotent, body-less requests the way
 * browsers do (a few times, short backoff).
 */
import http from 'node:http';
import https from 'node:https';
import http2 from 'node:http2';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import type { ExchangeTimestamps, HttpProtocol, RawHeaders } from '../model.js';
import { flatFromPairs, h2HeaderObject, pairsFromFlat } from '../server/headers.js';
import { connectionInfo, type ConnectionInfo, type UpstreamPool } from './pool.js';

export interface UpstreamRequest {
  method: string;
  url: URL;
  /** Headers to send (hop-by-hop already removed; includes Host for HTTP/1.1). */
  headers: RawHeaders;
  /** The request body stream, or null when the request has none. */
  body: Readable | null;
  /** Called with each body chunk as it is forwarded (for capture). */
  onBodyChunk?: (chunk: Buffer) => void;
  timestamps: ExchangeTimestamps;
  timeoutMs: number;
  retries: number;
}

export interface UpstreamResponse {
  status: number;
  statusText: string;
  headers: RawHeaders;
  protocol: HttpProtocol;
  body: Readable;
  connection: ConnectionInfo;
  newConnection: boolean;
  serverIPAddress?: string;
  retries: number;
  /** Aborts the upstream request (client went away). */
  abort(): void;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);
/** Errors that mean "the connection failed before a response": safe to retry idempotent requests. */
const RETRYABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ERR_HTTP2_GOAWAY_SESSION', 'ERR_HTTP2_STREAM_CANCEL', 'NL_H2_DOWNGRADE']);
const BACKOFF_MS = [25, 100, 250];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function isRetryable(err: unknown): boolean {
  const e = err as NodeJS.ErrnoException;
  return RETRYABLE.has(e?.code ?? '') || e?.message === 'socket hang up';
}

function h1Version(msg: http.IncomingMessage): HttpProtocol {
  return msg.httpVersion === '1.0' ? 'http/1.0' : 'http/1.1';
}

/** Strips IPv6 brackets and the IPv4-mapped prefix for HAR's serverIPAddress. */
function cleanIP(addr: string | undefined): string | undefined {
  if (!addr) return undefined;
  return addr.startsWith('::ffff:') && net.isIPv4(addr.slice(7)) ? addr.slice(7) : addr;
}

export async function sendUpstream(pool: UpstreamPool, req: UpstreamRequest): Promise<UpstreamResponse> {
  const canRetry = req.body === null && IDEMPOTENT.has(req.method.toUpperCase());
  const max = canRetry ? req.retries : 0;
  let attempt = 0;
  for (;;) {
    try {
      const res = await sendOnce(pool, req);
      res.retries = attempt;
      return res;
    } catch (err) {
      if (attempt >= max || !isRetryable(err) || pool.isClosed) {
        (err as { retries?: number }).retries = attempt;
        throw err;
      }
      await sleep(BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)]);
      attempt++;
      // A retry starts a fresh wait for a connection: forget the failed attempt's steps.
      const t = req.timestamps;
      t.upstreamAssigned = t.dnsEnd = t.connectEnd = t.tlsEnd = t.requestSent = undefined;
    }
  }
}

function sendOnce(pool: UpstreamPool, req: UpstreamRequest): Promise<UpstreamResponse> {
  const { url } = req;
  const secure = url.protocol === 'https:' || url.protocol === 'wss:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port) || (secure ? 443 : 80);
  if (!secure) return sendH1(pool, req, false, host, port);
  // Known origins (every request after the first) go straight on, without waiting a turn for the probe.
  const known = pool.knownProtocol(host, port);
  if (known) return known === 'h2' ? sendH2(pool, req, host, port) : sendH1(pool, req, true, host, port);
  return pool.protocolFor(host, port, host).then((p) => (p === 'h2' ? sendH2(pool, req, host, port) : sendH1(pool, req, true, host, port)));
}

function timeoutError(ms: number): Error {
  return Object.assign(new Error(`no response within ${ms} ms`), { code: 'NL_UPSTREAM_TIMEOUT' });
}

/** Copies a connection's setup timestamps into the first exchange that used it. */
function claimSetup(conn: ConnectionInfo, t: ExchangeTimestamps): boolean {
  if (conn.claimed) return false;
  conn.claimed = true;
  t.dnsEnd = conn.dnsEnd;
  t.connectEnd = conn.connectEnd;
  t.tlsEnd = conn.tlsEnd;
  return true;
}

function sendH1(pool: UpstreamPool, req: UpstreamRequest, secure: boolean, host: string, port: number): Promise<UpstreamResponse> {
  const t = req.timestamps;
  return new Promise((resolve, reject) => {
    const options: https.RequestOptions = {
      host,
      port,
      method: req.method,
      path: `${req.url.pathname}${req.url.search}`,
      headers: flatFromPairs(req.headers) as unknown as http.OutgoingHttpHeaders,
      setHost: false,
      agent: secure ? pool.httpsAgent : pool.httpAgent,
      servername: secure && !net.isIP(host) ? host : undefined,
    };
    const upstream = (secure ? https : http).request(options);
    let conn: ConnectionInfo | undefined;
    let newConnection = false;
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      deadline.clear();
      upstream.destroy();
      reject(err);
    };
    const deadline = pool.deadlines.add(req.timeoutMs, () => fail(timeoutError(req.timeoutMs)));
    upstream.on('socket', (socket) => {
      t.upstreamAssigned = performance.now();
      conn = connectionInfo(socket);
      const claimNow = () => {
        if (conn) newConnection = claimSetup(conn, t);
      };
      // A new socket reports its setup steps once connected; a reused one has none.
      if (socket.connecting) socket.once(secure ? 'secureConnect' : 'connect', claimNow);
      else claimNow();
    });
    upstream.on('error', fail);
    upstream.on('finish', () => (t.requestSent = performance.now()));
    upstream.on('response', (res) => {
      if (settled) return;
      settled = true;
      deadline.clear();
      t.responseHeaders = performance.now();
      const socket = res.socket;
      resolve({
        status: res.statusCode ?? 0,
        statusText: res.statusMessage ?? '',
        headers: pairsFromFlat(res.rawHeaders),
        protocol: h1Version(res),
        body: res,
        connection: conn ?? connectionInfo(socket),
        newConnection,
        serverIPAddress: cleanIP(socket?.remoteAddress),
        retries: 0,
        abort: () => upstream.destroy(),
      });
    });
    pipeBody(req, upstream);
  });
}

function sendH2(pool: UpstreamPool, req: UpstreamRequest, host: string, port: number): Promise<UpstreamResponse> {
  const t = req.timestamps;
  return pool.h2Session(host, port, host).then(
    (session) =>
      new Promise<UpstreamResponse>((resolve, reject) => {
        t.upstreamAssigned = performance.now();
        const conn = connectionInfo(session);
        const newConnection = claimSetup(conn, t);
        const authority = req.url.host;
        const headers = {
          ...h2HeaderObject(req.headers),
          ':method': req.method,
          ':scheme': 'https',
          ':authority': authority,
          ':path': `${req.url.pathname}${req.url.search}`,
        };
        const hasBody = req.body !== null;
        let stream: http2.ClientHttp2Stream;
        try {
          stream = session.request(headers, { endStream: !hasBody });
        } catch (err) {
          reject(err);
          return;
        }
        if (!hasBody) t.requestSent = performance.now();
        else stream.on('finish', () => (t.requestSent = performance.now()));
        let settled = false;
        const fail = (err: Error) => {
          if (settled) return;
          settled = true;
          deadline.clear();
          stream.destroy();
          reject(err);
        };
        const deadline = pool.deadlines.add(req.timeoutMs, () => fail(timeoutError(req.timeoutMs)));
        stream.on('error', fail);
        stream.on('close', () => {
          if (!settled) fail(Object.assign(new Error(`stream closed with code ${stream.rstCode}`), { code: 'ERR_HTTP2_STREAM_ERROR' }));
        });
        stream.on('response', (h) => {
          if (settled) return;
          settled = true;
          deadline.clear();
          t.responseHeaders = performance.now();
          const status = Number(h[':status']);
          const pairs: RawHeaders = [];
          for (const [k, v] of Object.entries(h)) {
            if (k.startsWith(':') || v === undefined) continue;
            if (Array.isArray(v)) for (const item of v) pairs.push([k, item]);
            else pairs.push([k, String(v)]);
          }
          resolve({
            status,
            statusText: http.STATUS_CODES[status] ?? '',
            headers: pairs,
            protocol: 'h2',
            body: stream,
            connection: conn,
            newConnection,
            serverIPAddress: cleanIP(session.socket?.remoteAddress),
            retries: 0,
            abort: () => stream.close(http2.constants.NGHTTP2_CANCEL),
          });
        });
        if (hasBody) pipeBody(req, stream);
      }),
  );
}

/** Streams the client's body upstream (never buffered whole), observing chunks for capture. */
function pipeBody(req: UpstreamRequest, upstream: NodeJS.WritableStream & { end(): void }): void {
  if (!req.body) {
    upstream.end();
    return;
  }
  if (req.onBodyChunk) req.body.on('data', req.onBodyChunk);
  req.body.pipe(upstream);
}
