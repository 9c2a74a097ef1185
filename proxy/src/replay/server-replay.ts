/**
 * Server replay: the proxy answers requests from a recorded HAR instead of the
 * network, so a page loads offline and deterministically.
 *
 * `ServerReplay` is the proxy's `respond` hook (options.ts): it matches each
 * request (matcher.ts) and turns the recorded response into one that fits the
 * new connection:
 *  - hop-by-hop headers go (they described the recorded connection), and so do
 *    Content-Length / Transfer-Encoding: the length is the replayed body's;
 *  - HAR `content.text` is the decoded body, so Content-Encoding is dropped
 *    (unless decoding failed when recording: then the text holds the wire bytes);
 *  - Date is set to now and Expires / Last-Modified shifted by the time since
 *    the recording, so caches treat the replay like a fresh load (`refreshDates`);
 *  - with `pacing`, the recorded `wait` and `receive` are replayed.
 * Unmatched requests follow `extra`: forward (default), 404 or kill.
 */
import { decodeContent } from '../har/body.js';
import type { HarEntry } from '../har/types.js';
import type { RawHeaders } from '../model.js';
import type { HookAnswer, HookRequest, ProxyOptions, RespondHook } from '../options.js';
import { startProxy, type ProxyHandle } from '../server/proxy-server.js';
import { Matcher, type MatchOptions } from './matcher.js';
import { recordedMatchRequest, recordedResponseBody, type ReplayEntry } from './load.js';

export type UnmatchedPolicy = 'forward' | '404' | 'kill';
export const UNMATCHED_POLICIES: readonly UnmatchedPolicy[] = ['forward', '404', 'kill'];

export interface ServerReplayOptions extends MatchOptions {
  /** What to do with requests that match no recording. Default `forward`. */
  extra?: UnmatchedPolicy;
  /** Set Date to now and shift Expires / Last-Modified. Default true. */
  refreshDates?: boolean;
  /** Replay the recorded wait (before the head) and receive (body) times. Default false. */
  pacing?: boolean;
  /** Request bodies larger than this are not read for matching (they match as body-less). Default 16 MiB. */
  maxBodyBytes?: number;
}

export interface UnmatchedRequest {
  method: string;
  url: string;
  action: UnmatchedPolicy;
}

export interface ServerReplayReport {
  /** Replayable entries in the recording. */
  recorded: number;
  /** Requests answered from the recording. */
  served: number;
  /** Of those, answered again by reusing the last recording of their key. */
  reused: number;
  unmatched: { forward: number; '404': number; kill: number };
  /** The first unmatched requests (at most MAX_LISTED). */
  unmatchedRequests: UnmatchedRequest[];
  /** Recordings never served. */
  unused: number;
}

const MAX_LISTED = 200;
const DEFAULT_MAX_BODY = 16 * 1024 * 1024;
/** Headers that describe the recorded connection or body framing, never replayed as they were. */
const DROP = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
  'alt-svc',
]);

/** The recorded response, fitted to a new connection (see the file comment). */
export function replayResponse(
  e: HarEntry,
  method: string,
  options: Pick<ServerReplayOptions, 'refreshDates' | 'pacing'> = {},
  now = Date.now(),
): HookAnswer {
  const r = e.response;
  const content = r.content;
  let body = recordedResponseBody(e);
  // HAR text is decoded, except when decoding failed at record time (then it holds the wire bytes).
  const keepEncoding = Boolean(content?._decodingError);
  const noBody = method.toUpperCase() === 'HEAD' || r.status === 204 || r.status === 304 || (r.status >= 100 && r.status < 200);
  if (noBody) body = Buffer.alloc(0);
  const shift = now - Date.parse(e.startedDateTime);
  const headers: RawHeaders = [];
  for (const { name, value } of r.headers ?? []) {
    const lower = name.toLowerCase();
    if (lower.startsWith(':') || DROP.has(lower)) continue;
    if (lower === 'content-encoding' && !keepEncoding) continue;
    if (options.refreshDates !== false) {
      if (lower === 'date') {
        headers.push([name, new Date(now).toUTCString()]);
        continue;
      }
      if ((lower === 'expires' || lower === 'last-modified') && Number.isFinite(shift)) {
        const t = Date.parse(value);
        if (Number.isFinite(t)) {
          headers.push([name, new Date(t + shift).toUTCString()]);
          continue;
        }
      }
    }
    headers.push([name, value]);
  }
  // HEAD keeps the recorded length (it describes the GET body); others get the replayed body's.
  const recordedLength = (r.headers ?? []).find((h) => h.name.toLowerCase() === 'content-length')?.value;
  if (method.toUpperCase() === 'HEAD' && recordedLength) headers.push(['Content-Length', recordedLength]);
  else if (r.status !== 204 && r.status !== 304 && r.status >= 200) headers.push(['Content-Length', String(body.length)]);
  const t = e.timings;
  return {
    status: r.status,
    statusText: r.statusText,
    headers,
    body,
    fromRecording: true,
    delayHeadMs: options.pacing && t && t.wait > 0 ? t.wait : undefined,
    spreadBodyMs: options.pacing && t && t.receive > 0 ? t.receive : undefined,
  };
}

function notFound(req: HookRequest): HookAnswer {
  const body = Buffer.from(`Netlens replay: no recorded response for ${req.method} ${req.url.href}\n`);
  return {
    status: 404,
    statusText: 'Not Found',
    headers: [
      ['Content-Type', 'text/plain; charset=utf-8'],
      ['Content-Length', String(body.length)],
      ['X-Netlens-Replay', 'unmatched'],
    ],
    body,
    fromRecording: false,
  };
}

/** The live request body as the matcher compares it: decoded like HAR postData is. */
function decodedBody(req: HookRequest): Buffer | null {
  if (!req.body || req.body.length === 0) return null;
  const encoding = req.headers.find(([k]) => k.toLowerCase() === 'content-encoding')?.[1];
  return decodeContent(req.body, encoding, false).bytes;
}

export class ServerReplay implements RespondHook {
  readonly maxBodyBytes: number;
  private readonly matcher: Matcher<ReplayEntry>;
  private readonly stats: ServerReplayReport;

  constructor(
    entries: ReplayEntry[],
    private readonly options: ServerReplayOptions = {},
  ) {
    this.maxBodyBytes = options.matchBody === false ? 0 : (options.maxBodyBytes ?? DEFAULT_MAX_BODY);
    this.matcher = new Matcher(
      entries.map((r) => ({ request: recordedMatchRequest(r.entry), value: r })),
      options,
    );
    this.stats = {
      recorded: entries.length,
      served: 0,
      reused: 0,
      unmatched: { forward: 0, '404': 0, kill: 0 },
      unmatchedRequests: [],
      unused: entries.length,
    };
  }

  async respond(req: HookRequest): Promise<HookAnswer | 'forward' | 'kill'> {
    const found = this.matcher.match({ method: req.method, url: req.url, headers: req.headers, body: decodedBody(req) });
    if (found) {
      this.stats.served++;
      if (found.reused) this.stats.reused++;
      return replayResponse(found.value.entry, req.method, this.options);
    }
    const action = this.options.extra ?? 'forward';
    this.stats.unmatched[action]++;
    if (this.stats.unmatchedRequests.length < MAX_LISTED)
      this.stats.unmatchedRequests.push({ method: req.method, url: req.url.href, action });
    if (action === '404') return notFound(req);
    return action;
  }

  report(): ServerReplayReport {
    return {
      ...this.stats,
      unmatched: { ...this.stats.unmatched },
      unmatchedRequests: [...this.stats.unmatchedRequests],
      unused: this.matcher.unused().length,
    };
  }
}

export interface ReplayServerHandle {
  proxy: ProxyHandle;
  replay: ServerReplay;
}

/** Starts a proxy that serves `entries` (the same CA and options as `netlens proxy`). */
export async function startReplayServer(
  entries: ReplayEntry[],
  replayOptions: ServerReplayOptions,
  proxyOptions: Omit<ProxyOptions, 'respond'>,
): Promise<ReplayServerHandle> {
  const replay = new ServerReplay(entries, replayOptions);
  const proxy = await startProxy({ ...proxyOptions, respond: replay });
  return { proxy, replay };
}
