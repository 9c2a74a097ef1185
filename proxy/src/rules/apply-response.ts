/**
 * The response side of rules, called by server/handle-request.ts once the upstream head
 * arrived and before it is written to the client: latency and delay, rewrites (status,
 * headers, body, one-clicks), then the body's pace (throttle, trickle, truncate).
 * It changes the UpstreamResponse in place, so the rest of the path is the usual one.
 */
import http from 'node:http';
import { Readable } from 'node:stream';
import type { Exchange, RawHeaders, RuleHit } from '../model.js';
import type { UpstreamResponse } from '../upstream/types.js';
import type { Plan } from './engine.js';
import type { RewriteResponseAction } from './types.js';
import { decodeBounded, editBody, editHeaders, headerOf, injectScriptTag, removeHeaders } from './edits.js';
import { readBounded, REWRITE_BODY_LIMIT } from './read-body.js';
import { sleep, throttled, trickled, truncated } from './pacing.js';
import { ErrorCodes } from '../errors.js';

const CACHE_HEADERS = ['cache-control', 'expires', 'etag', 'last-modified', 'pragma', 'age'];
const CORS_HEADERS = [
  'access-control-allow-origin',
  'access-control-allow-credentials',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-expose-headers',
];

/** `pause`: the response breakpoint (apply-breakpoint.ts), run after the rewrites and before the body's pacing. */
export async function applyResponseRules(
  plan: Plan,
  x: Exchange,
  up: UpstreamResponse,
  pause?: (up: UpstreamResponse) => Promise<unknown>,
): Promise<UpstreamResponse> {
  const wait = plan.responseDelayMs + (plan.throttle?.latencyMs ?? 0);
  if (wait > 0) await sleep(wait);
  const noBody = x.request.method === 'HEAD' || up.status === 204 || up.status === 304 || (up.status >= 100 && up.status < 200);
  for (const [i, a] of plan.rewriteResponse.entries()) await rewrite(a, x, up, noBody, plan.rewriteResponseBy[i]);
  if (pause) await pause(up);
  const fault = plan.fault;
  const rule = x.rules?.at(-1);
  if (fault?.fault === 'trickle') up.body = trickled(up.body, fault.bytes ?? 1, fault.intervalMs ?? 100);
  if (fault?.fault === 'truncate') {
    const bytes = fault.bytes ?? 0;
    up.body = truncated(up.body, bytes, () =>
      Object.assign(new Error(`rule "${rule?.name ?? rule?.id}" cut the response body after ${bytes} bytes (fault: truncate)`), {
        code: ErrorCodes.RULE_FAULT,
      }),
    );
  }
  if (plan.throttle?.downloadBps) up.body = throttled(up.body, `${x.clientConnectionId}:down`, plan.throttle.downloadBps);
  return up;
}

async function rewrite(a: RewriteResponseAction, x: Exchange, up: UpstreamResponse, noBody: boolean, by?: RuleHit): Promise<void> {
  if (a.status !== undefined && a.status !== up.status) {
    up.status = a.status;
    up.statusText = http.STATUS_CODES[a.status] ?? '';
  }
  let headers: RawHeaders = up.headers;
  if (a.stripCacheControl) headers = removeHeaders(headers, CACHE_HEADERS);
  if (a.addCors) headers = [...removeHeaders(headers, CORS_HEADERS), ...corsHeaders(x.request.headers)];
  headers = editHeaders(headers, a.headers);
  const html = /\bhtml\b/i.test(headerOf(headers, 'content-type') ?? '');
  if (!noBody && (a.body || (a.injectScript && html))) {
    const read = await readBounded(up.body, REWRITE_BODY_LIMIT);
    const raw = read.whole;
    const decoded = raw ? await decodeBounded(raw, headerOf(headers, 'content-encoding'), REWRITE_BODY_LIMIT) : 'too-large';
    if (decoded === 'too-large') {
      // Past the cap the body streams on as it came (what was read, then the rest); the header edits still apply.
      up.body = read.forward ?? Readable.from([]);
      up.headers = headers;
      noteRule(x, by, `body over ${REWRITE_BODY_LIMIT / (1024 * 1024)} MiB: passed through unchanged (body rewrite skipped)`);
      return;
    }
    let out = raw!;
    if (decoded) {
      out = editBody(decoded, a.body);
      if (a.injectScript && html) out = injectScriptTag(out, a.injectScript);
      // The body is sent decoded now: its old coding and length no longer describe it.
      headers = [
        ...removeHeaders(headers, ['content-encoding', 'content-length', 'transfer-encoding']),
        ['Content-Length', String(out.length)],
      ];
    }
    up.body = Readable.from(out.length ? [out] : []);
  }
  up.headers = headers;
}

/** Allows any origin, credentials included: the request's Origin is echoed (a `*` forbids credentials). */
function corsHeaders(request: RawHeaders): RawHeaders {
  const origin = headerOf(request, 'origin');
  const asked = headerOf(request, 'access-control-request-headers');
  return [
    ['Access-Control-Allow-Origin', origin ?? '*'],
    ...(origin ? ([['Access-Control-Allow-Credentials', 'true']] as RawHeaders) : []),
    ['Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE, OPTIONS, HEAD'],
    ['Access-Control-Allow-Headers', asked ?? '*'],
    ['Access-Control-Expose-Headers', '*'],
  ];
}

/** Records on the exchange (HAR `_rules[].note`) what a rule could not do; hits are shared between exchanges, so copied. */
function noteRule(x: Exchange, by: RuleHit | undefined, note: string): void {
  const hit = by && x.rules?.find((h) => h.id === by.id);
  if (!hit || !x.rules) return;
  x.rules = x.rules.map((h) => (h === hit ? { ...h, note: h.note ? `${h.note}; ${note}` : note } : h));
}
