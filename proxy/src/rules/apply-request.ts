/**
 * The request side of rules, called by server/handle-request.ts before the upstream:
 * match, then delay, break (fault), answer (mock) or rewrite the request and throttle
 * its upload. What touched the exchange is recorded on it (`rules`, HAR `_rules`).
 */
import http from 'node:http';
import { Readable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import type { Exchange, RawHeaders } from '../model.js';
import { ErrorCodes } from '../errors.js';
import { finishExchange } from '../server/exchange-record.js';
import { BodyCapturer } from '../server/body-capture.js';
import { endClient, type NodeRequest, type NodeResponse } from '../server/client.js';
import type { ProxyContext } from '../server/context.js';
import type { Plan } from './engine.js';
import type { FaultAction, RewriteRequestAction } from './types.js';
import { readAll, readBounded } from './read-body.js';
import { editBody, editHeaders, removeHeaders } from './edits.js';
import { sleep, throttled } from './pacing.js';
import { writeMock } from './mock.js';
import { pauseRequest } from './apply-breakpoint.js';
import { answerBadGateway } from '../server/bad-gateway.js';

/** Body matchers see at most this much of a request body. */
export const MATCH_BODY_LIMIT = 1024 * 1024;
/** A held ("timeout") request is closed after this long unless the fault says otherwise. */
const DEFAULT_HOLD_MS = 5 * 60_000;

export type RequestOutcome =
  | { handled: true }
  | {
      handled: false;
      plan: Plan | undefined;
      url: URL;
      body: Readable | null;
      /** Applies the header edits to the headers the proxy would send upstream. */
      headers(upstream: RawHeaders): RawHeaders;
    };

/** The identity header edit. */
export const noEdit = (h: RawHeaders): RawHeaders => h;
const unchanged = noEdit;

export async function applyRequestRules(
  ctx: ProxyContext,
  req: NodeRequest,
  res: NodeResponse,
  x: Exchange,
  target: URL,
  body: Readable | null,
): Promise<RequestOutcome> {
  const rules = ctx.options.rules?.current;
  if (!rules) return { handled: false, plan: undefined, url: target, body, headers: unchanged };
  let whole: Buffer | null = null;
  if (rules.needsBody && body) {
    const read = await readBounded(body, MATCH_BODY_LIMIT);
    whole = read.whole;
    body = read.forward;
  }
  const plan = rules.evaluate({
    method: x.request.method,
    url: target,
    headers: x.request.headers,
    httpVersion: x.clientProtocol,
    body: whole,
  });
  if (!plan) return { handled: false, plan, url: target, body, headers: unchanged };
  x.rules = plan.hits;

  if (plan.requestDelayMs > 0) await sleep(plan.requestDelayMs);
  let start = target;
  let headerEdit = unchanged;
  let bodyEdited = false;
  if (plan.breakRequestMs !== undefined) {
    const p = await pauseRequest(ctx, res, x, target, body, whole, plan.breakRequestMs);
    if (p.resumed.outcome === 'aborted' || p.resumed.outcome === 'client-closed') {
      p.body?.resume();
      abortPaused(ctx, req, res, x, p.resumed.outcome === 'aborted', p.whole === null && p.body !== null);
      return { handled: true };
    }
    ({ url: start, body, whole, headers: headerEdit, bodyEdited } = p);
  }
  const fault = plan.fault;
  if (fault && (fault.fault === 'close' || fault.fault === 'reset' || fault.fault === 'timeout')) {
    await breakRequest(ctx, req, res, x, body, fault);
    return { handled: true };
  }
  if (plan.mock) {
    body?.resume();
    if (whole) {
      // The body was read for matching: keep it in the record like a forwarded one.
      const capture = new BodyCapturer(ctx.options.bodyCaptureLimit);
      capture.push(whole);
      x.request.body = capture.result();
    }
    await writeMock(ctx, req, res, x, plan, rules.resolveFile.bind(rules));
    return { handled: true };
  }

  let url = start;
  for (const a of plan.rewriteRequest) {
    url = rewriteUrl(url, a);
    const before = headerEdit;
    headerEdit = (h) => editHeaders(before(h), a.headers);
    if (a.body && body) {
      const buf = whole ?? (await readAll(body));
      whole = editBody(buf, a.body);
      body = null;
    }
  }
  if (whole && (bodyEdited || plan.rewriteRequest.some((a) => a.body))) {
    const length = whole.length;
    const edit = headerEdit;
    headerEdit = (h) => [...removeHeaders(edit(h), ['content-length', 'transfer-encoding']), ['Content-Length', String(length)]];
    body = Readable.from([whole]);
  }
  if (url !== target) {
    // The origin must see the host the request now goes to.
    const edit = headerEdit;
    headerEdit = (h) => edit(h.map(([k, v]) => (k.toLowerCase() === 'host' ? [k, url.host] : [k, v])));
  }
  if (body && plan.throttle?.uploadBps) body = throttled(body, `${x.clientConnectionId}:up`, plan.throttle.uploadBps);
  return { handled: false, plan, url, body, headers: headerEdit };
}

/** A paused request the user aborted (502 with X-Netlens-Error), or whose client left while it waited. */
function abortPaused(ctx: ProxyContext, req: NodeRequest, res: NodeResponse, x: Exchange, aborted: boolean, unread: boolean): void {
  if (!aborted) {
    x.timestamps.clientResponseEnd = performance.now();
    finishExchange(ctx, x, {
      code: ErrorCodes.CLIENT_ABORTED,
      message: 'The client closed the connection while a breakpoint paused the request',
      side: 'client',
    });
    return;
  }
  const message = `Aborted at a breakpoint (rule "${x.rules?.at(-1)?.name ?? x.rules?.at(-1)?.id}"): the request was not sent upstream`;
  if (answerBadGateway(res, x, x.clientProtocol, ErrorCodes.BREAKPOINT_ABORTED, message, unread)) {
    x.timestamps.clientResponseHeaders = performance.now();
  } else endClient(req, res);
  x.timestamps.clientResponseEnd = performance.now();
  finishExchange(ctx, x, { code: ErrorCodes.BREAKPOINT_ABORTED, message, side: 'proxy' });
}

function rewriteUrl(url: URL, a: RewriteRequestAction): URL {
  if (!a.url) return url;
  const u = new URL(url.href);
  if (a.url.scheme) u.protocol = `${a.url.scheme}:`;
  if (a.url.host) u.hostname = a.url.host;
  if (a.url.port !== undefined) u.port = String(a.url.port);
  if (a.url.path) u.pathname = a.url.path;
  for (const [k, v] of Object.entries(a.url.query ?? {})) {
    if (v === null) u.searchParams.delete(k);
    else u.searchParams.set(k, v);
  }
  return u;
}

/** close / reset / timeout before anything goes upstream. */
async function breakRequest(
  ctx: ProxyContext,
  req: NodeRequest,
  res: NodeResponse,
  x: Exchange,
  body: Readable | null,
  f: FaultAction,
): Promise<void> {
  body?.resume();
  if (f.fault === 'timeout') {
    const hold = f.ms ?? DEFAULT_HOLD_MS;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, hold);
      res.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
  if (f.fault === 'reset') resetClient(req, res);
  else if (f.fault === 'close') closeClient(req, res);
  else endClient(req, res);
  x.timestamps.clientResponseEnd = performance.now();
  const what =
    f.fault === 'timeout'
      ? `held the request without an answer (${f.ms ?? DEFAULT_HOLD_MS} ms), then closed it`
      : `${f.fault === 'reset' ? 'reset' : 'closed'} the connection`;
  finishExchange(ctx, x, {
    code: ErrorCodes.RULE_FAULT,
    message: `Rule "${x.rules?.at(-1)?.name ?? x.rules?.at(-1)?.id}" ${what} (fault action)`,
    side: 'proxy',
  });
}

/** A TCP RST on HTTP/1; RST_STREAM (CANCEL) on HTTP/2. */
export function resetClient(req: NodeRequest, res: NodeResponse): void {
  if (res instanceof http.ServerResponse) {
    const s = res.socket;
    try {
      // Only a TCP handle can send RST; inside an intercepted tunnel the TLS socket has none.
      s?.resetAndDestroy();
    } catch {
      s?.destroy();
    }
  } else if ('stream' in req && !req.stream.destroyed) {
    req.stream.close(0x8 /* CANCEL */);
  }
}

/** A clean close: FIN on HTTP/1; RST_STREAM NO_ERROR on HTTP/2 (the connection's other streams go on). */
function closeClient(req: NodeRequest, res: NodeResponse): void {
  if (res instanceof http.ServerResponse) res.socket?.end();
  else if ('stream' in req && !req.stream.destroyed) req.stream.close(0x0);
}
