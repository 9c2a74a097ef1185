/**
 * The heart of the proxy: one client request in (HTTP/1.x or HTTP/2, plain or
 * intercepted), forwarded upstream, the response streamed back, and the
 * exchange's lifecycle published on the event stream.
 *
 * Bodies stream both ways (pipe with backpressure); captures are bounded copies
 * taken as chunks pass. On an upstream failure that retrying cannot fix (refused,
 * unknown host, TLS verification) and before any response byte went out, the client
 * gets a 502 with X-Netlens-Error naming the cause (bad-gateway.ts); the exchange keeps
 * the error, so it is never measured as if the origin sent it. Every other failure
 * ends the client's connection (or, for HTTP/2, its stream), which browsers retry.
 */
import http from 'node:http';
import http2 from 'node:http2';
import { performance } from 'node:perf_hooks';
import type { ExchangeError, HttpProtocol, RawHeaders } from '../model.js';
import { classifyUpstreamError, ErrorCodes, isPermanentUpstreamFailure } from '../errors.js';
import { sendUpstream } from '../upstream/forward.js';
import type { UpstreamResponse } from '../upstream/types.js';
import { BodyCapturer } from './body-capture.js';
import { emitRequest, finishExchange, newExchangeRecord } from './exchange-record.js';
import { flatFromPairs, hasRequestBody, pairsFromFlat, stripHopByHop } from '../headers.js';
import type { ProxyContext } from './context.js';
import { runRespondHook } from './respond.js';
import { checkRequest, isAsteriskForm } from './request-checks.js';
import { takeTurn } from './connection-order.js';
import {
  answerProxyError,
  clientClosed,
  endClient,
  responseFinished,
  type ClientRequest,
  type ClientResponse,
  type NodeRequest,
  type NodeResponse,
  type RequestOrigin,
  type ResponseHandle,
} from './client.js';
import { H2StreamRequest, toCompat } from './h2-stream-leg.js';
import { answerBadGateway } from './bad-gateway.js';
import { applyRequestRules, noEdit } from '../rules/apply-request.js';
import { applyResponseRules } from '../rules/apply-response.js';
import { flushHeadAlone, relayChunks } from './naive-relay.js';
import { pauseResponse } from '../rules/apply-breakpoint.js';
import { respondH2 } from './h2-response.js';
import { relayToH2 } from './h2-relay.js';
import type { Resumed } from '../rules/breakpoints.js';

function clientProtocol(req: ClientRequest): HttpProtocol {
  // By the connection, not the request line: an HTTP/1 connection can carry a request line that says "HTTP/2.0".
  if (!(req instanceof http.IncomingMessage)) return 'h2';
  return req.httpVersion === '1.0' ? 'http/1.0' : 'http/1.1';
}

/** The absolute URL the client asked for, or an error message why it cannot be used. */
export function targetUrl(req: ClientRequest, origin: RequestOrigin): URL | string {
  const raw = req.url ?? '';
  if (origin.transport === 'plain') {
    // An explicit proxy receives absolute-form targets (RFC 9112 §3.2.2).
    if (!/^https?:\/\//i.test(raw)) {
      return 'This is the Netlens proxy. Configure your client to use it as an HTTP proxy (e.g. curl -x); it does not serve pages itself.';
    }
    try {
      return new URL(raw);
    } catch {
      return `Invalid request target "${raw.slice(0, 200)}"`;
    }
  }
  const scheme = origin.transport === 'intercepted' ? 'https' : 'http';
  // An empty Host is legal (RFC 9110 §7.2); the tunnel's target names the server then.
  const authority =
    (req.headers[':authority'] as string | undefined) || req.headers.host || `${origin.target?.host}:${origin.target?.port}`;
  // Only host[:port] may come from Host/:authority: a '/', '?', '#', '@' or space would
  // move into the URL's path or userinfo (Host "h/x" turned GET /a into GET /x/a upstream).
  if (!/^(?:\[[0-9a-fA-F:.]+\]|[^\s/?#@[\]\\]+)(?::\d*)?$/.test(authority)) return `Invalid Host "${authority.slice(0, 200)}"`;
  let path: string;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    // Absolute-form inside a tunnel (RFC 9112 §3.2.2: a server MUST accept it): only its
    // path and query travel on; where the request goes is the tunnel's target.
    const absolute = URL.canParse(raw) ? new URL(raw) : undefined;
    if (!absolute || !/^https?:$/.test(absolute.protocol)) return `Invalid request target "${raw.slice(0, 200)}"`;
    path = `${absolute.pathname}${absolute.search}`;
  } else {
    // Asterisk-form (OPTIONS *) has no path; the URL gets "/" and the upstream request line "*" (see isAsteriskForm).
    path = raw === '*' ? '/' : raw.startsWith('/') ? raw : `/${raw}`;
  }
  try {
    const url = new URL(`${scheme}://${authority}${path}`);
    // The tunnel's target wins over a Host header that names another server
    // (the request travels to where the client opened the tunnel).
    if (origin.target) {
      // Each URL setter re-serializes the whole URL: skip them when the authority already names the target (the usual case).
      const hostname = origin.target.host.includes(':') ? `[${origin.target.host}]` : origin.target.host;
      if (url.hostname !== hostname) url.hostname = hostname;
      const port = String(origin.target.port);
      if (url.port !== port) url.port = port;
    }
    return url;
  } catch {
    return `Invalid request target "${raw.slice(0, 200)}"`;
  }
}

function requestHeadersFor(received: RawHeaders, url: URL, origin: RequestOrigin, absoluteForm: boolean): RawHeaders {
  const pairs = stripHopByHop(received);
  // RFC 9112 §3.2.2: a proxy that receives an absolute-form target replaces Host with
  // the target URI's authority, so the origin sees the host the request is really for.
  // An empty Host (legal when the target has no authority) gets the authority the
  // request travels to too: an HTTP/1.1 client library refuses to send an empty one.
  let i = 0;
  while (i < pairs.length && (pairs[i]![0].length !== 4 || pairs[i]![0].toLowerCase() !== 'host')) i++;
  // HTTP/2 clients send :authority instead of Host; an HTTP/1.1 upstream needs Host
  // (an HTTP/2 upstream gets it back as :authority).
  if (i === pairs.length) pairs.unshift(['Host', url.host]);
  else if (origin.transport === 'plain' || absoluteForm || pairs[i]![1].trim() === '') pairs[i] = [pairs[i]![0], url.host];
  return pairs;
}

/** Writes the upstream response head to the client leg, in the client's protocol. */
function writeResponseHead(res: ClientResponse, up: UpstreamResponse): void {
  // HTTP/2: on the stream, without the compatibility response's trailers round trip (h2-response.ts strips too).
  if (!(res instanceof http.ServerResponse)) return respondH2(res.stream, up.status, up.headers);
  let headers = stripHopByHop(up.headers);
  // RFC 9110 §8.6: a server MUST NOT send Content-Length in a 204 (HTTP/2 clients reset the stream over it).
  if (up.status === 204) headers = headers.filter(([k]) => k.length !== 14 || k.toLowerCase() !== 'content-length');
  // Node would add its own Date; the origin's (or none) is what the client must see.
  res.sendDate = false;
  res.writeHead(
    up.status,
    up.statusText || http.STATUS_CODES[up.status] || '',
    flatFromPairs(headers) as unknown as http.OutgoingHttpHeaders,
  );
}

/**
 * Ends an HTTP/1.x response (with a Content-Length) once its last body bytes are out.
 *
 * Why not res.end() at once: the TLS socket reports a write done asynchronously, and while one is
 * pending node:http ends a response with an empty write of its own to learn when the bytes are out.
 * That write went through the TLS socket down to a write syscall of 0 bytes, once per exchange
 * (strace of the lab's intercepted HTTP/1.1 page load: 204 per load). The check phase comes after the
 * write's completion: nothing is pending then and node:http just emits 'finish'. A chunked response
 * still ends at once (its end writes the last chunk), and so does one whose bytes are still pending then.
 */
function endSent(res: http.ServerResponse): void {
  if (!res.destroyed) res.end();
}

/**
 * Handles one client request, from its head to the end of its exchange. `arrivedAt` (performance.now()) is when
 * its head arrived, for a request that waited to be taken in (h2-admission.ts): the exchange starts then, and the
 * wait counts as the proxy's own time (proxyOverhead), not the client's.
 */
export async function handleRequest(
  ctx: ProxyContext,
  req: ClientRequest,
  res: ClientResponse,
  origin: RequestOrigin,
  arrivedAt?: number,
): Promise<void> {
  const start = arrivedAt ?? performance.now();
  // Server replay and rules answer through Node's whole response API: a request they will see gets Node's
  // objects (h2-stream-leg.ts). Nothing awaits between here and where they are called, so this holds there.
  if (req instanceof H2StreamRequest && (ctx.options.respond || ctx.options.rules?.current)) ({ req, res } = toCompat(req));
  const handle = res as ResponseHandle;
  if (res instanceof http.ServerResponse) res.socket?.setNoDelay(!ctx.options.nagle);
  const target = targetUrl(req, origin);
  const protocol = clientProtocol(req);
  const x = newExchangeRecord(ctx, {
    origin,
    start,
    method: req.method ?? 'GET',
    url: typeof target === 'string' ? (req.url ?? '') : target.href,
    httpVersion: protocol,
    headers: pairsFromFlat(req.rawHeaders),
  });
  // HTTP/2: the stream's frames on the client lane (timeline/h2-hooks.ts), tagged with this exchange.
  if (ctx.timeline && !(req instanceof http.IncomingMessage)) ctx.timeline.watchStream(req.stream, origin.clientConnectionId, x.id);

  // Pipelined HTTP/1 requests are handled one at a time, in the order they came: the
  // client reads the answers in that order, and the origin must see the requests in it
  // too (they may depend on each other). Node's server hands them over at once. The
  // turn is taken before any refusal, so a request pipelined behind one the proxy
  // refused (which closes the connection) is never forwarded.
  if (res instanceof http.ServerResponse) {
    const socket = (req as http.IncomingMessage).socket;
    const turn = takeTurn(socket, res);
    if (turn.wait) await turn.wait;
    if (res.destroyed || !socket || socket.destroyed || socket.writableEnded) {
      // A response queued behind others on a closed connection never emits 'close': end its turn here.
      turn.done();
      req.resume();
      x.timestamps.clientResponseEnd = performance.now();
      finishExchange(ctx, x, {
        code: ErrorCodes.CLIENT_ABORTED,
        message: 'The connection was closed before this pipelined request was forwarded',
        side: 'client',
      });
      return;
    }
  }

  const bad = checkRequest(req, origin, ctx.options.maxHeaderSize);
  if (bad) {
    req.resume();
    answerProxyError(res, bad.status, bad.message);
    x.timestamps.clientResponseEnd = performance.now();
    finishExchange(ctx, x, { code: bad.code, message: bad.message, side: 'client' });
    return;
  }
  if (typeof target === 'string') {
    req.resume();
    answerProxyError(res, 400, target);
    x.timestamps.clientResponseEnd = performance.now();
    finishExchange(ctx, x, { code: ErrorCodes.CLIENT_MALFORMED, message: target, side: 'client' });
    return;
  }
  const refusal = ctx.refuseTarget(target, origin);
  if (refusal) {
    req.resume();
    answerProxyError(res, refusal.status, refusal.message);
    x.timestamps.clientResponseEnd = performance.now();
    finishExchange(ctx, x, { code: ErrorCodes.REQUEST_REFUSED, message: refusal.message, side: 'proxy' });
    return;
  }

  if (ctx.events.hasListeners) emitRequest(ctx, x);

  // Made with the first chunk sent upstream: most requests have no body, and their record keeps the empty one it was made with.
  let reqCapture: BodyCapturer | undefined;
  const requestBody = () => reqCapture?.result() ?? x.request.body;
  const hasBody = protocol === 'h2' ? !(req as http2.Http2ServerRequest).stream.endAfterHeaders : hasRequestBody(x.request.headers);
  const markRequestEnd = () => (x.timestamps.clientRequestEnd ??= performance.now());
  // Without a body the head was the whole request: received when it arrived (a wait since is the proxy's).
  if (!hasBody) x.timestamps.clientRequestEnd = start;
  else (req as NodeRequest).once('end', markRequestEnd);

  let clientGone = false;
  let up: UpstreamResponse | undefined;
  /** Set while the response streams: what a client gone mid-response ends (one 'close' listener serves both phases). */
  let responseGone: (() => void) | undefined;
  const onClientClose = () => {
    if (!responseFinished(res)) {
      clientGone = true;
      up?.abort();
      responseGone?.();
    }
  };
  handle.on('close', onClientClose);
  // Gone already (it reset its stream while the request waited to be taken in): its 'close' has been emitted.
  if (clientClosed(res)) onClientClose();

  // Server replay (options.respond): the hook may answer here instead of the network;
  // when it forwards, the body it read (if any) is replayed upstream by `body`.
  let body = hasBody ? (req as NodeJS.ReadableStream as import('node:stream').Readable) : null;
  if (body && protocol === 'h2') {
    // Node's HTTP/2 compatibility layer *ends* the request body when the stream is reset
    // (e.g. nghttp2 found DATA longer or shorter than content-length): forwarded as is, the
    // origin would process a cut-short request the client saw fail. Make the reset an error.
    const h2body = body;
    const aborted = () =>
      h2body.destroy(Object.assign(new Error('The client reset the HTTP/2 stream during the request body'), { code: 'ECONNRESET' }));
    // The upstream request sees the error through its own listener; this one keeps an
    // error on a body nobody reads yet from being an uncaught exception.
    h2body.on('error', () => {});
    if ((req as http2.Http2ServerRequest).aborted) aborted();
    else (req as http2.Http2ServerRequest).once('aborted', aborted);
  }
  if (ctx.options.respond) {
    const outcome = await runRespondHook(ctx, req as NodeRequest, res as NodeResponse, x, target, hasBody);
    if (outcome.handled) {
      handle.off('close', onClientClose);
      return;
    }
    body = outcome.body;
  }
  // Rules (rules/): may answer (mock), break (fault), delay or rewrite the request here.
  const ruled = ctx.options.rules?.current
    ? await applyRequestRules(ctx, req as NodeRequest, res as NodeResponse, x, target, body)
    : undefined;
  if (ruled?.handled) return void handle.off('close', onClientClose);
  /** Records the exchange as the client leaving at `when`. */
  const clientLeft = (when: string) => {
    x.request.body = requestBody();
    finishExchange(ctx, x, { code: ErrorCodes.CLIENT_ABORTED, message: `The client closed the connection ${when}`, side: 'client' });
  };
  // The client left while a rule held its request (a delay): the origin must not get a request nobody waits for.
  if (clientGone) return clientLeft('before the request was sent upstream');

  try {
    const sentBody = ruled ? ruled.body : body;
    up = await sendUpstream(ctx.pool, {
      method: x.request.method,
      url: ruled ? ruled.url : target,
      headers: (ruled?.headers ?? noEdit)(
        requestHeadersFor(x.request.headers, target, origin, /^[a-z][a-z0-9+.-]*:\/\//i.test(req.url ?? '')),
      ),
      path: isAsteriskForm(req, origin) ? '*' : undefined,
      body: sentBody,
      // Only a body has chunks (most requests have none: no closure for them).
      onBodyChunk: sentBody ? (c) => (reqCapture ??= new BodyCapturer(ctx.options.bodyCaptureLimit)).push(c) : undefined,
      timestamps: x.timestamps,
      exchangeId: x.id,
      timeoutMs: ctx.options.upstreamTimeoutMs,
      retries: ctx.options.retries,
    });
  } catch (err) {
    x.request.body = requestBody();
    x.retries = (err as { retries?: number }).retries ?? 0;
    const { code, message } = classifyUpstreamError(err, target.host);
    if (clientGone) return clientLeft('before the response arrived');
    // A failure retrying cannot fix gets a 502 naming it; the rest close the connection or stream, which browsers retry.
    const unread = x.timestamps.clientRequestEnd === undefined;
    if (isPermanentUpstreamFailure(err) && answerBadGateway(res, x, protocol, code, message, unread)) {
      x.timestamps.clientResponseHeaders = performance.now();
      if (unread) req.resume();
    } else {
      endClient(req, res);
    }
    x.timestamps.clientResponseEnd = performance.now();
    finishExchange(ctx, x, { code, message, side: 'upstream' });
    return;
  }
  let paused: Resumed | undefined;
  if (ruled?.plan) {
    const { plan } = ruled;
    const ms = plan.breakResponseMs;
    const pause =
      ms === undefined ? undefined : async (u: UpstreamResponse) => (paused = await pauseResponse(ctx, res as NodeResponse, x, u, ms));
    up = await applyResponseRules(plan, x, up, pause);
  }
  if (paused?.outcome === 'aborted' && !clientGone) {
    // The user aborted the paused response: the client gets a 502 naming why, never the origin's answer.
    up.abort();
    x.request.body = requestBody();
    const message = `Aborted at a breakpoint (rule "${x.rules?.at(-1)?.name ?? x.rules?.at(-1)?.id}"): the response was not forwarded`;
    if (answerBadGateway(res, x, protocol, ErrorCodes.BREAKPOINT_ABORTED, message, false))
      x.timestamps.clientResponseHeaders = performance.now();
    else endClient(req, res);
    x.timestamps.clientResponseEnd = performance.now();
    finishExchange(ctx, x, { code: ErrorCodes.BREAKPOINT_ABORTED, message, side: 'proxy' });
    return void handle.off('close', onClientClose);
  }
  if (clientGone) {
    up.abort();
    return clientLeft('before the response arrived');
  }

  const response = up;
  x.retries = response.retries;
  x.upstreamProtocol = response.protocol;
  x.upstreamConnectionId = response.connection.id;
  x.upstreamConnectionNew = response.newConnection;
  x.serverIPAddress = response.serverIPAddress;
  if (ctx.events.hasListeners)
    ctx.events.emit({
      type: 'response',
      response: {
        id: x.id,
        status: response.status,
        statusText: response.statusText,
        httpVersion: response.protocol,
        headers: response.headers,
        upstreamConnectionId: response.connection.id,
        serverIPAddress: response.serverIPAddress,
        at: x.timestamps.responseHeaders ?? performance.now(),
      },
    });

  const resCapture = new BodyCapturer(ctx.options.bodyCaptureLimit);
  const naive = ctx.options.relay === 'naive' && res instanceof http.ServerResponse ? res : undefined;
  try {
    writeResponseHead(res, response);
    if (naive) flushHeadAlone(naive);
  } catch (err) {
    // e.g. a header value HTTP/2 refuses; the client cannot get this response.
    response.abort();
    endClient(req, res);
    x.request.body = requestBody();
    finishExchange(ctx, x, {
      code: ErrorCodes.UPSTREAM_PROTOCOL,
      message: `Response cannot be forwarded to the client: ${(err as Error).message}`,
      side: 'proxy',
    });
    return;
  }
  x.timestamps.clientResponseHeaders = performance.now();

  await new Promise<void>((resolve) => {
    let done = false;
    const complete = (error?: ExchangeError) => {
      if (done) return;
      done = true;
      x.request.body = requestBody();
      x.response = {
        status: response.status,
        statusText: response.statusText,
        httpVersion: response.protocol,
        headers: response.headers,
        body: resCapture.result(),
      };
      finishExchange(ctx, x, error);
      resolve();
    };
    const upstreamFailed = (err: Error) => {
      const { code, message } = classifyUpstreamError(err, target.host);
      endClient(req, res);
      complete({ code, message, side: 'upstream' });
    };
    // HTTP/2 clients: one listener writes to the stream and feeds the capture (h2-relay.ts).
    const h2 = !(res instanceof http.ServerResponse);
    if (h2) relayToH2(response.body, (res as Exclude<ClientResponse, http.ServerResponse>).stream, resCapture);
    else response.body.on('data', (c: Buffer) => resCapture.push(c));
    // `on`, not `once`, for events that come once ('end', 'finish') or end the exchange ('error'): `once` wraps
    // each listener (two more objects per listener and exchange), and `complete` runs once anyway.
    response.body.on('end', () => {
      x.timestamps.responseEnd = performance.now();
      // The client's response ends only when the origin's really did: a cut-off body must reach the client as a cut-off.
      const cut = response.incomplete?.();
      if (cut) upstreamFailed(cut);
      else if (h2 || (res as http.ServerResponse).chunkedEncoding || !(res as http.ServerResponse).writableLength) handle.end();
      else setImmediate(endSent, res as http.ServerResponse);
    });
    response.body.on('error', upstreamFailed);
    handle.on('finish', () => {
      // An HTTP/2 client's reset emits 'finish' too (responseFinished); 'close' follows and records it.
      if (h2 && !responseFinished(res)) return;
      x.timestamps.clientResponseEnd = performance.now();
      complete();
    });
    responseGone = () => {
      response.abort();
      // A body a rule paces (throttle, trickle) may hold the whole origin response and keep its timers running
      // after the origin finished: without this it went on pacing into nothing for the rest of the body's time.
      response.body.destroy();
      complete({ code: ErrorCodes.CLIENT_ABORTED, message: 'The client closed the connection during the response', side: 'client' });
    };
    if (naive) relayChunks(response.body, naive);
    else if (!h2) response.body.pipe(res as NodeJS.WritableStream, { end: false });
  });
}
