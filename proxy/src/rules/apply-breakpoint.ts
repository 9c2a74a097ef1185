/**
 * The `breakpoint` action on the proxy's path: the request (before the upstream, from
 * apply-request.ts) or the response (before the client, from apply-response.ts) is shown
 * in the registry (breakpoints.ts) and waits there; the user's edits are applied when it
 * continues. What happened is recorded on the exchange (`breakpoint`, HAR `_breakpoint`).
 */
import http from 'node:http';
import { Readable } from 'node:stream';
import type { Exchange, RawHeaders } from '../model.js';
import type { UpstreamResponse } from '../upstream/types.js';
import type { ProxyContext } from '../server/context.js';
import { responseFinished, type NodeResponse } from '../server/client.js';
import { getHeader, stripHopByHop } from '../headers.js';
import { BREAKPOINT_BODY_LIMIT, Breakpoints, type BreakpointEdits, type Resumed } from './breakpoints.js';
import { readBounded, REWRITE_BODY_LIMIT } from './read-body.js';
import { decodeBounded, headerOf, removeHeaders } from './edits.js';

/** The proxy's registry, made on first use when the embedder gave none. */
export function breakpointsOf(ctx: ProxyContext): Breakpoints {
  return (ctx.options.breakpoints ??= new Breakpoints());
}

/** Calls `cb` when the client goes away before its response finished; returns the unsubscribe. */
function clientGone(res: NodeResponse): (cb: () => void) => () => void {
  return (cb) => {
    const f = () => {
      if (!responseFinished(res)) cb();
    };
    res.once('close', f);
    return () => res.off('close', f);
  };
}

/** Adds one pause to the exchange's record (a request and a response pause add up). */
function record(x: Exchange, started: number, r: Resumed): void {
  const prev = x.breakpoint;
  x.breakpoint = {
    pausedMs: (prev?.pausedMs ?? 0) + (Date.now() - started),
    edited: Boolean(prev?.edited || r.edits),
    outcome: r.outcome,
  };
}

export interface RequestPause {
  resumed: Resumed;
  url: URL;
  body: Readable | null;
  /** The body as it goes upstream now (read whole for the pause), or null when it was too large. */
  whole: Buffer | null;
  /** Whether the body was replaced (the caller sets Content-Length). */
  bodyEdited: boolean;
  /** Header edit over the headers the proxy would send upstream. */
  headers(upstream: RawHeaders): RawHeaders;
}

export async function pauseRequest(
  ctx: ProxyContext,
  res: NodeResponse,
  x: Exchange,
  url: URL,
  body: Readable | null,
  whole: Buffer | null,
  timeoutMs: number,
): Promise<RequestPause> {
  let cut = false;
  if (body && !whole) {
    const read = await readBounded(body, BREAKPOINT_BODY_LIMIT);
    body = read.forward;
    whole = read.whole;
    cut = !read.whole;
  }
  const started = Date.now();
  const resumed = await breakpointsOf(ctx).pause(
    {
      exchangeId: x.id,
      phase: 'request',
      ruleId: x.rules?.at(-1)?.id ?? '',
      method: x.request.method,
      url: url.href,
      // HTTP/2 pseudo-headers are the method and URL shown above; the proxy rebuilds them upstream.
      headers: x.request.headers.filter(([k]) => !k.startsWith(':')),
      body: whole ? whole.toString('utf8') : '',
      bodyCut: cut,
    },
    // A body left half-read stalls its stream: continue before the client's body timeout would cut it.
    cut ? Math.min(timeoutMs, ctx.options.bodyTimeoutMs / 2) : timeoutMs,
    clientGone(res),
  );
  record(x, started, resumed);
  const e: BreakpointEdits = resumed.edits ?? {};
  let headers = (h: RawHeaders) => h;
  if (e.headers) {
    const edited = stripHopByHop(e.headers);
    headers = (h) => (getHeader(edited, 'host') ? edited : [['Host', getHeader(h, 'host') ?? url.host], ...edited]);
  }
  const bodyEdited = e.body !== undefined;
  if (bodyEdited) {
    whole = Buffer.from(e.body!, 'utf8');
    body = Readable.from(whole.length ? [whole] : []);
  }
  return { resumed, url: e.url ? new URL(e.url) : url, body, whole, bodyEdited, headers };
}

/**
 * The response pause, after the rules' rewrites and before its pacing. On `aborted` or
 * `client-closed` the caller does not forward the response.
 */
export async function pauseResponse(
  ctx: ProxyContext,
  res: NodeResponse,
  x: Exchange,
  up: UpstreamResponse,
  timeoutMs: number,
): Promise<Resumed> {
  const noBody = x.request.method === 'HEAD' || up.status === 204 || up.status === 304;
  let raw: Buffer | null = null;
  let cut = false;
  if (!noBody) {
    const read = await readBounded(up.body, BREAKPOINT_BODY_LIMIT);
    up.body = read.forward ?? Readable.from([]);
    raw = read.whole;
    cut = !raw;
  }
  // Shown decoded; a body whose coding is unknown (or broken), or that decodes past what a rewrite holds (a small
  // brotli body can inflate to gigabytes), cannot be edited as text.
  const decoded = raw ? await decodeBounded(raw, headerOf(up.headers, 'content-encoding'), REWRITE_BODY_LIMIT) : Buffer.alloc(0);
  const text = decoded === 'too-large' ? undefined : decoded;
  if (raw && !text) cut = true;
  const started = Date.now();
  const resumed = await breakpointsOf(ctx).pause(
    {
      exchangeId: x.id,
      phase: 'response',
      ruleId: x.rules?.at(-1)?.id ?? '',
      method: x.request.method,
      url: x.request.url,
      status: up.status,
      headers: up.headers,
      body: text && !cut ? text.toString('utf8') : '',
      bodyCut: cut,
    },
    // Likewise the origin's body: continue before the upstream body timeout would cut it.
    cut ? Math.min(timeoutMs, ctx.options.upstreamBodyTimeoutMs / 2) : timeoutMs,
    clientGone(res),
  );
  record(x, started, resumed);
  const e = resumed.edits;
  if (!e) return resumed;
  if (e.status !== undefined && e.status !== up.status) {
    up.status = e.status;
    up.statusText = http.STATUS_CODES[e.status] ?? '';
  }
  if (e.headers) up.headers = e.headers;
  if (e.body !== undefined && !noBody) {
    const out = Buffer.from(e.body, 'utf8');
    // Sent decoded: the old coding and length no longer describe it.
    up.headers = [
      ...removeHeaders(up.headers, ['content-encoding', 'content-length', 'transfer-encoding']),
      ['Content-Length', String(out.length)],
    ];
    up.body = Readable.from(out.length ? [out] : []);
  }
  return resumed;
}
