/**
 * Sends one request to the origin over a pooled connection (HTTP/1.1 keep-alive
 * or a shared HTTP/2 session), records the timestamps HAR phases come from,
 * and retries connection failures of idempotent, body-less requests the way
 * browsers do (a few times, short backoff).
 */
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import type { ExchangeTimestamps, HttpProtocol, RawHeaders } from '../model.js';
import { h2HeaderObject } from '../headers.js';
import { nodeStyleError } from './h1-errors.js';
import { watchResponses, type ResponseWatch } from './h1-watch.js';
import { parserHttpVersion } from './undici-parser.js';
import { sendAsteriskH1 } from './asterisk.js';
import { bodyTimeoutError, watchBody, type BodyWatchdog } from './body-timeout.js';
import { releaseClosedStream } from './h2-release.js';
import { connectionInfo, h2GoawayWatchers, type ConnectionInfo, type UpstreamPool } from './pool.js';
import type { UpstreamRequest, UpstreamResponse } from './types.js';
import { ErrorCodes } from '../errors.js';

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);
/** Errors that mean "the connection failed before a response": safe to retry idempotent requests. */
const RETRYABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ERR_HTTP2_GOAWAY_SESSION',
  'ERR_HTTP2_STREAM_CANCEL',
  ErrorCodes.H2_DOWNGRADE,
  ErrorCodes.H2_REFUSED_STREAM,
]);
const BACKOFF_MS = [25, 100, 250];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Set on an error when the origin had sent at least one byte of a response: such a
 * request is never retried (the origin has seen it and acted on it), whatever the error.
 */
export const RESPONSE_STARTED = Symbol('responseStarted');

function isRetryable(err: unknown): boolean {
  const e = err as NodeJS.ErrnoException & { [RESPONSE_STARTED]?: boolean };
  if (e?.[RESPONSE_STARTED]) return false;
  return RETRYABLE.has(e?.code ?? '') || e?.message === 'socket hang up';
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
      t.upstreamAssigned = t.dialStart = t.dnsEnd = t.connectEnd = t.tlsEnd = t.requestSent = undefined;
    }
  }
}

/**
 * A client body destroyed before it could be sent (the client reset its HTTP/2 stream, or
 * its connection, while we waited for an upstream connection). undici would send such a
 * body as complete (an ended stream of 0 bytes becomes `content-length: 0`): the origin
 * would process a cut-short request that the client saw fail.
 */
function abortedBody(req: UpstreamRequest): Error | null {
  const b = req.body;
  if (!b || !(b.errored || (b.destroyed && !b.readableEnded))) return null;
  return Object.assign(new Error('The client aborted the request before its body was sent upstream'), { code: 'ECONNRESET' });
}

function sendOnce(pool: UpstreamPool, req: UpstreamRequest): Promise<UpstreamResponse> {
  const aborted = abortedBody(req);
  if (aborted) return Promise.reject(aborted);
  const { url } = req;
  const secure = url.protocol === 'https:' || url.protocol === 'wss:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port) || (secure ? 443 : 80);
  if (!secure) return sendHttp1(pool, req, false, host, port);
  // Known origins (every request after the first) go straight on, without waiting a turn for the probe.
  const known = pool.knownProtocol(host, port);
  if (known) return known === 'h2' ? sendH2(pool, req, host, port) : sendHttp1(pool, req, true, host, port);
  return pool.protocolFor(host, port, host).then((p) => {
    // The probe took a while: the client may have gone meanwhile.
    const gone = abortedBody(req);
    if (gone) throw gone;
    return p === 'h2' ? sendH2(pool, req, host, port) : sendHttp1(pool, req, true, host, port);
  });
}

function sendHttp1(pool: UpstreamPool, req: UpstreamRequest, tls: boolean, host: string, port: number): Promise<UpstreamResponse> {
  return req.path === '*' ? sendAsteriskH1(pool, req, tls, host, port) : sendH1(pool, req, tls, host, port);
}

function refusedStream(): Error {
  return Object.assign(new Error('the origin refused the stream (REFUSED_STREAM) before processing it'), {
    code: ErrorCodes.H2_REFUSED_STREAM,
  });
}

function timeoutError(ms: number): Error {
  return Object.assign(new Error(`no response within ${ms} ms`), { code: ErrorCodes.UPSTREAM_TIMEOUT });
}

/**
 * Copies a connection's setup timestamps into an exchange that uses it; timings.ts
 * reports the part of the setup that happened after the request started (so a request
 * that waited for a handshake in flight shows it, one on a ready connection does not).
 * Returns whether this is the connection's first exchange (`_upstreamConnectionNew`).
 */
function claimSetup(conn: ConnectionInfo, t: ExchangeTimestamps): boolean {
  t.dialStart = conn.dialStart;
  t.dnsEnd = conn.dnsEnd;
  t.connectEnd = conn.connectEnd;
  t.tlsEnd = conn.tlsEnd;
  if (conn.claimed) return false;
  conn.claimed = true;
  return true;
}

/** The HTTP version of the response being parsed on an undici HTTP/1.1 socket. */
function h1Version(socket: net.Socket | undefined, watch: ResponseWatch | undefined): HttpProtocol {
  // undici does not report the response's version; its llhttp parser knows it while the head is parsed.
  // Should an undici upgrade hide the parser, the status line h1-watch.ts saw says it as well.
  return parserHttpVersion(socket) ?? (watch?.firstVersion === '1.0' ? 'http/1.0' : 'http/1.1');
}

/** Request headers for undici: flat pairs, minus Expect (the client leg already answered 100-continue; undici refuses it). */
function h1RequestHeaders(headers: RawHeaders): string[] {
  const out: string[] = [];
  for (const [k, v] of headers) {
    if (k.length === 6 && k.toLowerCase() === 'expect') continue;
    out.push(k, v);
  }
  return out;
}

function pairsFromBuffers(raw: Buffer[]): RawHeaders {
  const out: RawHeaders = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i].toString('latin1'), raw[i + 1].toString('latin1')]);
  return out;
}

/** The callbacks undici 7 calls on a dispatched request (its legacy handler API, which hands over raw header buffers). */
interface H1Handler {
  onConnect(abort: (err?: Error) => void): void;
  onBodySent(chunk: Buffer): void;
  onRequestSent(): void;
  onHeaders(status: number, rawHeaders: Buffer[], resume: () => void, statusText: string): boolean;
  onData(chunk: Buffer): boolean;
  onComplete(trailers: Buffer[] | null): void;
  onError(err: Error): void;
}

function sendH1(pool: UpstreamPool, req: UpstreamRequest, secure: boolean, host: string, port: number): Promise<UpstreamResponse> {
  const t = req.timestamps;
  return new Promise((resolve, reject) => {
    const conn = pool.h1.acquire(secure, host, port);
    t.upstreamAssigned = performance.now();
    let socket: net.Socket | undefined;
    let watch: ResponseWatch | undefined;
    let status = 0;
    let conninfo: ConnectionInfo | undefined;
    let newConnection = false;
    /** The promise is settled (response head, or failure). */
    let settled = false;
    /** undici is done with the request (response complete, or failed): the connection is released. */
    let finished = false;
    let body: Readable | undefined;
    let watchdog: BodyWatchdog | undefined;
    let resumeUpstream: (() => void) | undefined;
    const finish = () => {
      if (finished) return;
      finished = true;
      pool.h1.release(conn);
    };
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      deadline.clear();
      markStarted(err);
      // The connection is this request's alone: tearing it down ends the request (undici then calls onError).
      if (!finished) conn.destroy();
      reject(err);
    };
    /** Marks an error that came after response bytes as not retryable. */
    const markStarted = (err: Error) => {
      if (watch && watch.received > 0) (err as { [RESPONSE_STARTED]?: boolean })[RESPONSE_STARTED] = true;
      return err;
    };
    const deadline = pool.deadlines.add(req.timeoutMs, () => fail(timeoutError(req.timeoutMs)));
    const onBodyChunk = req.onBodyChunk;
    const handler: H1Handler = {
      onConnect() {
        // The request is about to be written on a connected socket (a fresh one if undici had to reconnect).
        socket = conn.socket;
        if (!socket) return;
        conninfo = connectionInfo(socket);
        watch = watchResponses(socket);
        watch.expectResponse();
        newConnection = claimSetup(conninfo, t);
        // The request is written from now on: earlier waits (queue, dial) are blocked/dns/connect.
        t.upstreamAssigned = performance.now();
      },
      onBodySent(chunk) {
        onBodyChunk?.(chunk);
      },
      onRequestSent() {
        t.requestSent = performance.now();
      },
      onHeaders(statusCode, rawHeaders, resume, statusText) {
        // 1xx (e.g. 103 Early Hints) is not forwarded, as with Node's client before.
        if (statusCode < 200) return true;
        if (settled) return false;
        settled = true;
        status = statusCode;
        deadline.clear();
        t.responseHeaders = performance.now();
        resumeUpstream = resume;
        const res = new Readable({
          read: () => resumeUpstream?.(),
          destroy: (err, cb) => {
            // Destroyed before the response was complete (client went away): end the upstream request too.
            if (!finished) conn.destroy();
            cb(err);
          },
        });
        body = res;
        watchdog = watchBody(res, pool.bodyTimeoutMs);
        resolve({
          status: statusCode,
          statusText,
          headers: pairsFromBuffers(rawHeaders),
          protocol: h1Version(socket, watch),
          body: res,
          connection: conninfo ?? connectionInfo(conn.socket ?? conn),
          newConnection,
          serverIPAddress: cleanIP(socket?.remoteAddress),
          retries: 0,
          abort: () => res.destroy(),
        });
        return true;
      },
      onData(chunk) {
        // false pauses undici's parser until the reader asks for more (read → resume).
        watchdog?.touch();
        return body ? body.push(chunk) : true;
      },
      onComplete() {
        watchdog?.stop();
        finish();
        body?.push(null);
      },
      onError(err) {
        finish();
        // undici checks Content-Length against the bytes read even for responses that
        // have no body by definition (RFC 9110 §8.6: 304, and HEAD, may carry the
        // length the full response would have): the response is complete, not broken.
        if (settled && (status === 304 || status === 204) && (err as { code?: string }).code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') {
          body?.push(null);
          return;
        }
        const error = markStarted(
          nodeStyleError(err, { firstStatus: watch?.firstStatus, headReceived: settled, parserError: watch?.parserError }),
        );
        if (!settled) {
          settled = true;
          deadline.clear();
          reject(error);
        } else if (body && !body.destroyed) {
          body.destroy(error);
        }
      },
    };
    // Typed loosely: undici's types lag its runtime (servername, onBodySent(chunk), onRequestSent).
    const options = {
      path: req.path ?? `${req.url.pathname}${req.url.search}`,
      method: req.method,
      headers: h1RequestHeaders(req.headers),
      body: req.body,
      // Constant per connection: undici reconnects a Client whose servername changes (ours does SNI itself).
      servername: host,
      // undici closes the connection after every HEAD (for servers that send a body anyway);
      // Node's client and browsers keep it, and so do we.
      ...(req.method === 'HEAD' ? { reset: false } : {}),
    };
    conn.client.dispatch(options as never, handler as never);
  });
}

function sendH2(pool: UpstreamPool, req: UpstreamRequest, host: string, port: number): Promise<UpstreamResponse> {
  // Every request after an origin's first finds its session open: one promise for the request, no await for the session.
  const open = pool.openH2Session(host, port);
  if (open) return new Promise((resolve, reject) => requestH2(pool, req, open, resolve, reject));
  return pool
    .h2Session(host, port, host)
    .then((session) => new Promise((resolve, reject) => requestH2(pool, req, session, resolve, reject)));
}

/** Response headers from node:http2 → raw pairs, without the pseudo-headers (a null-prototype object: `for…in` is its own keys). */
function h2ResponsePairs(h: http2.IncomingHttpHeaders): RawHeaders {
  const pairs: RawHeaders = [];
  for (const k in h) {
    if (k.charCodeAt(0) === 58 /* ':' */) continue;
    const v = h[k];
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const item of v) pairs.push([k, item]);
    else pairs.push([k, String(v)]);
  }
  return pairs;
}

/**
 * `session.request`'s options, one frozen object each. Why not a literal per request: Node 20 copies the options
 * (`{ ...options }`) and then adds four priority defaults to the copy, and on this V8 adding properties to a spread copy
 * of an unfrozen object takes the slow path, ~0.7 µs a property: 5.5 µs of proxy CPU per HTTP/2 request in
 * `bench/profile.ts h2` (a copy of a frozen object, or of none, takes the fast one: ~15–50 ns).
 */
const NO_BODY = Object.freeze({ endStream: true });
const BODY_FOLLOWS = Object.freeze({ endStream: false });

function requestH2(
  pool: UpstreamPool,
  req: UpstreamRequest,
  session: http2.ClientHttp2Session,
  resolve: (res: UpstreamResponse) => void,
  reject: (err: unknown) => void,
): void {
  const t = req.timestamps;
  const gone = abortedBody(req);
  if (gone) return reject(gone);
  t.upstreamAssigned = performance.now();
  const conn = connectionInfo(session);
  const newConnection = claimSetup(conn, t);
  const headers = h2HeaderObject(req.headers);
  headers[':method'] = req.method;
  headers[':scheme'] = 'https';
  headers[':authority'] = req.url.host;
  headers[':path'] = req.path ?? `${req.url.pathname}${req.url.search}`;
  const hasBody = req.body !== null;
  let stream: http2.ClientHttp2Stream;
  try {
    stream = session.request(headers, hasBody ? BODY_FOLLOWS : NO_BODY);
  } catch (err) {
    reject(err);
    return;
  }
  pool.timeline?.watchStream(stream, conn.id, req.exchangeId, headers);
  if (!hasBody) t.requestSent = performance.now();
  else stream.on('finish', () => (t.requestSent = performance.now()));
  let settled = false;
  /** An interim (1xx) head came: the origin has the request, so it is never retried. */
  let interim = false;
  stream.once('headers', () => (interim = true));
  // GOAWAY naming a last stream below ours: the origin will never process it (RFC 9113 §6.8),
  // and Node leaves such a stream waiting; fail it now, as retryable. One listener per session
  // (pool.ts) calls the requests in flight: a listener each made every removal scan the others.
  const goawayWatchers = h2GoawayWatchers(session);
  const onGoaway = (_code: number, lastStreamID: number) => {
    if (stream.id !== undefined && stream.id > lastStreamID) {
      const message = `the origin sent GOAWAY (last stream ${lastStreamID}) before processing this request`;
      fail(Object.assign(new Error(message), { code: 'ERR_HTTP2_GOAWAY_SESSION' }));
    }
  };
  const goawayNode = goawayWatchers.push(onGoaway);
  const fail = (err: Error) => {
    if (settled) return;
    settled = true;
    goawayWatchers.remove(goawayNode);
    deadline.clear();
    stream.destroy();
    if (interim) (err as { [RESPONSE_STARTED]?: boolean })[RESPONSE_STARTED] = true;
    reject(err);
  };
  const deadline = pool.deadlines.add(req.timeoutMs, () => fail(timeoutError(req.timeoutMs)));
  stream.on('error', (err: NodeJS.ErrnoException) => {
    // REFUSED_STREAM: the origin did not process the request (RFC 9113 §8.7), so it may be retried.
    if (stream.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM) fail(refusedStream());
    else fail(err);
  });
  stream.on('close', () => {
    if (!settled) {
      if (stream.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM) fail(refusedStream());
      else fail(Object.assign(new Error(`stream closed with code ${stream.rstCode}`), { code: 'ERR_HTTP2_STREAM_ERROR' }));
    }
    // The closed stream outlives its 'close': its listeners (these and the relay's) must not keep the exchange alive.
    releaseClosedStream(stream);
  });
  stream.on('response', (h) => {
    pool.timeline?.streamResponse(stream, h);
    if (settled) return;
    settled = true;
    goawayWatchers.remove(goawayNode);
    deadline.clear();
    t.responseHeaders = performance.now();
    // Idle timer on the stream (reset by every frame): a stalled body fails it.
    const bodyMs = pool.bodyTimeoutMs;
    if (bodyMs > 0) {
      stream.setTimeout(bodyMs, () => {
        if (stream.readableLength === 0) stream.destroy(bodyTimeoutError(bodyMs));
      });
    }
    const status = Number(h[':status']);
    resolve({
      status,
      statusText: http.STATUS_CODES[status] ?? '',
      headers: h2ResponsePairs(h),
      protocol: 'h2',
      body: stream,
      connection: conn,
      newConnection,
      serverIPAddress: cleanIP(session.socket?.remoteAddress),
      retries: 0,
      abort: () => stream.close(http2.constants.NGHTTP2_CANCEL),
      // A stream that ends with a reset code set ended because its session went away, not by END_STREAM.
      incomplete: () =>
        stream.rstCode !== undefined && stream.rstCode !== http2.constants.NGHTTP2_NO_ERROR
          ? Object.assign(
              new Error(`the HTTP/2 stream ended without END_STREAM (code ${stream.rstCode}): the connection closed mid-body`),
              {
                code: 'ERR_HTTP2_STREAM_ERROR',
              },
            )
          : undefined,
    });
  });
  if (hasBody) pipeBody(req, stream);
}

/** Streams the client's body upstream (never buffered whole), observing chunks for capture. */
function pipeBody(req: UpstreamRequest, upstream: http2.ClientHttp2Stream): void {
  if (!req.body) {
    upstream.end();
    return;
  }
  if (req.onBodyChunk) req.body.on('data', req.onBodyChunk);
  // pipe() does not pass a source's failure on: a client body that fails half-way (the client reset its HTTP/2
  // stream or cut its connection: handle-request.ts makes that an error) left the upstream stream waiting for the
  // rest, open at the origin until the upstream deadline (proxy/test/reliability/lifecycle-slow-body.test.ts).
  req.body.once('error', () => upstream.close(http2.constants.NGHTTP2_CANCEL));
  req.body.pipe(upstream);
}
