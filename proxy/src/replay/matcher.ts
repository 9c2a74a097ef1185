/**
 * Server replay matching: which recorded response answers a live request.
 * Pure (no I/O), so every rule is tested without a network.
 *
 * A request's key is its method, scheme, host, port, path, query (parameters
 * sorted, so order does not matter) and, for requests with a body, a hash of
 * the body; optionally chosen header values. Options follow what mitmproxy's
 * server replay users expect (server_replay_ignore_params, _use_headers,
 * _ignore_content, _reuse).
 *
 * Several recordings with one key (a page polling the same URL) are served in
 * recorded order; once all are used the last one is reused (`reuseLast`), or
 * the request counts as unmatched.
 */
import crypto from 'node:crypto';
import type { RawHeaders } from '../model.js';

export interface MatchOptions {
  /** Query parameter names left out of the key (e.g. cache busters like `_`, `t`). */
  ignoreQueryParams?: string[];
  /** Header names whose values are part of the key; `*` = every header except the volatile ones below and `ignoreHeaders`. */
  matchHeaders?: string[];
  /** Header names never part of the key (subtracted from `matchHeaders`, useful with `*`). */
  ignoreHeaders?: string[];
  /** Compare request bodies. Default true. */
  matchBody?: boolean;
  /** After the last recording of a key was served, keep serving it. Default true. */
  reuseLast?: boolean;
}

/** What the matcher needs of a request, live or recorded. */
export interface MatchRequest {
  method: string;
  url: string | URL;
  headers: RawHeaders;
  /** Decoded body bytes; null or empty when there is none. */
  body: Buffer | null;
}

/**
 * Headers that differ between two loads of the same page by nature (connection
 * framing, caching validators, cookies set meanwhile, tracing): never matched on under `*`.
 */
const VOLATILE_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'host',
  'date',
  'if-none-match',
  'if-modified-since',
  'cache-control',
  'pragma',
  'cookie',
  'traceparent',
  'tracestate',
  'x-request-id',
]);

function defaultPort(protocol: string): string {
  return protocol === 'https:' ? '443' : protocol === 'http:' ? '80' : '';
}

/** The match key of a request under the given options. */
export function requestKey(req: MatchRequest, options: MatchOptions = {}): string {
  const url = typeof req.url === 'string' ? new URL(req.url) : req.url;
  const ignoredParams = new Set(options.ignoreQueryParams ?? []);
  const query = [...url.searchParams]
    .filter(([k]) => !ignoredParams.has(k))
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .sort();
  const parts = [
    req.method.toUpperCase(),
    url.protocol,
    url.hostname.toLowerCase(),
    url.port || defaultPort(url.protocol),
    url.pathname,
    query.join('&'),
  ];
  if (options.matchBody !== false && req.body && req.body.length > 0) {
    parts.push(`body:${crypto.createHash('sha256').update(req.body).digest('hex')}`);
  }
  const wanted = (options.matchHeaders ?? []).map((h) => h.toLowerCase());
  if (wanted.length > 0) {
    const all = wanted.includes('*');
    const ignored = new Set((options.ignoreHeaders ?? []).map((h) => h.toLowerCase()));
    const values = new Map<string, string[]>();
    for (const [k, v] of req.headers) {
      const name = k.toLowerCase();
      if (name.startsWith(':') || ignored.has(name)) continue;
      if (all ? VOLATILE_HEADERS.has(name) : !wanted.includes(name)) continue;
      values.set(name, [...(values.get(name) ?? []), v]);
    }
    for (const name of [...values.keys()].sort()) parts.push(`h:${name}=${values.get(name)!.join('\n')}`);
  }
  return parts.join('\u0000');
}

export interface MatchResult<T> {
  value: T;
  /** Position of the recording among those with this key (0 = first recorded). */
  occurrence: number;
  /** True when the last recording was served again after all were used. */
  reused: boolean;
}

/** Recordings by key, each served in recorded order. */
export class Matcher<T> {
  private readonly queues = new Map<string, { items: T[]; next: number }>();
  private readonly options: MatchOptions;

  constructor(recordings: Iterable<{ request: MatchRequest; value: T }>, options: MatchOptions = {}) {
    this.options = options;
    for (const r of recordings) {
      const key = requestKey(r.request, options);
      const q = this.queues.get(key);
      if (q) q.items.push(r.value);
      else this.queues.set(key, { items: [r.value], next: 0 });
    }
  }

  /** Number of distinct keys. */
  get size(): number {
    return this.queues.size;
  }

  /** The recording that answers `req` (and advances the queue), or undefined. */
  match(req: MatchRequest): MatchResult<T> | undefined {
    const q = this.queues.get(requestKey(req, this.options));
    if (!q) return undefined;
    if (q.next < q.items.length) {
      const occurrence = q.next++;
      return { value: q.items[occurrence], occurrence, reused: false };
    }
    if (this.options.reuseLast === false) return undefined;
    const occurrence = q.items.length - 1;
    return { value: q.items[occurrence], occurrence, reused: true };
  }

  /** Recordings never served so far. */
  unused(): T[] {
    const out: T[] = [];
    for (const q of this.queues.values()) out.push(...q.items.slice(q.next));
    return out;
  }
}
