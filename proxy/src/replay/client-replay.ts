/**
 * Client replay: send the recorded requests again (directly, or through a
 * proxy so they are recorded again) and compare each new response with the
 * recorded one: status, decoded body size, body content and time.
 *
 * Requests go out over HTTP/1.1 with the recorded method, headers (minus
 * hop-by-hop and framing headers, which belong to the recorded connection) and
 * body. Through a proxy, http:// URLs use absolute-form and https:// URLs a
 * CONNECT tunnel, the way browsers do. Responses are content-decoded before
 * comparing, since HAR holds decoded bodies.
 */
import { rootsPlus } from '../tls/root-trust.js';
import crypto from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { performance } from 'node:perf_hooks';
import { bodyText, decodeContent } from '../har/body.js';
import type { HarEntry, HarNameValue } from '../har/types.js';
import type { RawHeaders } from '../model.js';
import { classifyUpstreamError, ErrorCodes, isErrorCode } from '../errors.js';
import { recordedRequestBody, recordedResponseBody, type ReplayEntry } from './load.js';

export interface ResendOptions {
  /** Send through this HTTP proxy (e.g. http://127.0.0.1:8080); absent = directly to the origins. */
  proxyUrl?: string;
  /** Requests in flight at once. Default 1 (sequential, in recorded order). */
  concurrency?: number;
  /** Extra CA certificates (PEM) to trust, e.g. the Netlens CA when going through the intercepting proxy. */
  ca?: string[];
  /** Do not verify TLS certificates (testing only). */
  insecure?: boolean;
  /** Per-request timeout. Default 30 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called after each request, for progress. */
  onResult?: (row: ResendRow) => void;
}

export interface ResendSide {
  status: number;
  /** Decoded body bytes (HAR content.size). */
  size: number;
  /** Whole request time in ms (HAR `time` before; client-measured after). */
  time: number;
}

/** What changed between the recording and the new response. Time is reported, not counted as a change (it is noise on most machines). */
export type ResendChange = 'status' | 'size' | 'body' | 'failed';

export interface ResendRow {
  /** Index in the HAR's log.entries. */
  index: number;
  method: string;
  url: string;
  before: ResendSide;
  after?: ResendSide;
  error?: { code: string; message: string };
  changes: ResendChange[];
  /** After took more than twice as long and at least 100 ms longer. */
  slower: boolean;
}

export interface ResendResult {
  rows: ResendRow[];
  /** One HAR entry per resent request (client-side view), in recorded order. */
  entries: HarEntry[];
}

/** Headers that describe the recorded connection or framing; recomputed for the new request. */
const DROP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'host',
  'http2-settings',
]);
const MAX_BODY = 64 * 1024 * 1024;

function requestHeaders(e: HarEntry, url: URL, body: Buffer | null): RawHeaders {
  const out: RawHeaders = [['Host', url.host]];
  for (const { name, value } of e.request.headers ?? []) {
    const lower = name.toLowerCase();
    if (lower.startsWith(':') || DROP.has(lower)) continue;
    out.push([name, value]);
  }
  if (body) out.push(['Content-Length', String(body.length)]);
  return out;
}

const flat = (h: RawHeaders) => h.flat();
const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

interface Sent {
  status: number;
  statusText: string;
  headers: RawHeaders;
  /** Wire bytes (content-encoded). */
  wire: Buffer;
  startedDateTime: string;
  ttfb: number;
  total: number;
}

/** Opens the TLS connection for an https URL: through a CONNECT tunnel when a proxy is used. */
function tlsConnection(url: URL, proxy: URL | undefined, tlsOpts: tls.ConnectionOptions, timeoutMs: number): Promise<tls.TLSSocket> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port) || 443;
  // SNI must not carry an IP (RFC 6066), but the certificate is still checked against `host`:
  // without `host` a tunnelled socket is checked against Node's fallback "localhost" and an IP origin always fails.
  const servername = net.isIP(host) ? undefined : host;
  // Resolve once the handshake is done so TLS errors reject here, not on a socket nobody listens to.
  const secure = (o: tls.ConnectionOptions) =>
    new Promise<tls.TLSSocket>((resolve, reject) => {
      const s = tls.connect({ ...tlsOpts, ...o, servername, ALPNProtocols: ['http/1.1'] });
      s.setTimeout(timeoutMs, () => s.destroy(Object.assign(new Error('TLS handshake timed out'), { code: 'ETIMEDOUT' })));
      s.once('secureConnect', () => {
        s.setTimeout(0);
        s.off('error', reject);
        resolve(s);
      });
      s.once('error', reject);
    });
  // autoSelectFamily: "localhost" may resolve to ::1 first while the origin listens on 127.0.0.1 (as browsers do, try both).
  if (!proxy) return secure({ host, port, autoSelectFamily: true } as tls.ConnectionOptions);
  return new Promise((resolve, reject) => {
    const authority = `${host.includes(':') ? `[${host}]` : host}:${port}`;
    const req = http.request({
      host: proxy.hostname,
      port: Number(proxy.port) || 80,
      method: 'CONNECT',
      path: authority,
      headers: { Host: authority },
      timeout: timeoutMs,
    });
    req.once('connect', (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        reject(Object.assign(new Error(`the proxy refused CONNECT ${authority} (${res.statusCode})`), { code: 'ECONNREFUSED' }));
        return;
      }
      secure({ socket, host }).then(resolve, reject);
    });
    req.once('timeout', () => req.destroy(Object.assign(new Error('CONNECT timed out'), { code: 'ETIMEDOUT' })));
    req.once('error', reject);
    req.end();
  });
}

async function sendOne(e: HarEntry, opts: ResendOptions): Promise<Sent> {
  const url = new URL(e.request.url);
  const proxy = opts.proxyUrl ? new URL(opts.proxyUrl) : undefined;
  const body = recordedRequestBody(e);
  const headers = flat(requestHeaders(e, url, body));
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const tlsOpts: tls.ConnectionOptions = { secureContext: rootsPlus(opts.ca ?? []), rejectUnauthorized: !opts.insecure };
  const start = performance.now();
  const startedDateTime = new Date().toISOString();
  let options: http.RequestOptions;
  if (url.protocol === 'https:') {
    const socket = await tlsConnection(url, proxy, tlsOpts, timeoutMs);
    // No `agent` with createConnection: http.request would otherwise open its own socket (agent: false makes a new Agent).
    options = { createConnection: () => socket, path: url.pathname + url.search };
  } else if (proxy) {
    options = { host: proxy.hostname, port: Number(proxy.port) || 80, path: url.href, agent: false };
  } else {
    options = {
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: Number(url.port) || 80,
      path: url.pathname + url.search,
      agent: false,
      autoSelectFamily: true,
    } as http.RequestOptions;
  }
  return new Promise<Sent>((resolve, reject) => {
    const req = http.request({
      ...options,
      method: e.request.method,
      headers: headers as unknown as http.OutgoingHttpHeaders,
      timeout: timeoutMs,
      signal: opts.signal,
    });
    req.once('response', (res) => {
      const ttfb = performance.now() - start;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= MAX_BODY) chunks.push(c);
      });
      res.once('end', () => {
        const pairs: RawHeaders = [];
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i], res.rawHeaders[i + 1]]);
        resolve({
          status: res.statusCode ?? 0,
          statusText: res.statusMessage ?? '',
          headers: pairs,
          wire: Buffer.concat(chunks),
          startedDateTime,
          ttfb,
          total: performance.now() - start,
        });
      });
      res.once('error', reject);
    });
    req.once('timeout', () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    req.once('error', reject);
    req.end(body ?? undefined);
  });
}

const header = (h: RawHeaders, name: string) => h.find(([k]) => k.toLowerCase() === name)?.[1];

/** Whether the recorded body is whole, so comparing its content means something. */
function recordedBodyKnown(e: HarEntry): boolean {
  const c = e.response.content;
  return Boolean(c) && typeof c.text === 'string' && !c._truncated && !c._decodingError && !c._bodyOmitted;
}

export function compare(e: HarEntry, sent: Sent): { after: ResendSide; changes: ResendChange[]; decoded: Buffer; slower: boolean } {
  const decoded = decodeContent(sent.wire, header(sent.headers, 'content-encoding'), false).bytes;
  const before: ResendSide = { status: e.response.status, size: e.response.content?.size ?? 0, time: e.time };
  const after: ResendSide = { status: sent.status, size: decoded.length, time: Math.round(sent.total * 1000) / 1000 };
  const changes: ResendChange[] = [];
  if (before.status !== after.status) changes.push('status');
  const bodyKnown = recordedBodyKnown(e);
  if (bodyKnown && before.size !== after.size) changes.push('size');
  if (bodyKnown && before.size === after.size && sha(recordedResponseBody(e)) !== sha(decoded)) changes.push('body');
  const slower = after.time > 2 * before.time && after.time - before.time >= 100;
  return { after, changes, decoded, slower };
}

function nameValues(h: RawHeaders): HarNameValue[] {
  return h.map(([name, value]) => ({ name, value }));
}

/** A HAR entry for the resent request as the client saw it (no upstream phases: only wait and receive). */
function clientEntry(e: HarEntry, sent: Sent, decoded: Buffer, index: number): HarEntry {
  const mimeType = header(sent.headers, 'content-type') ?? 'x-unknown';
  const text = bodyText(decoded, mimeType, false);
  const wait = Math.round(sent.ttfb * 1000) / 1000;
  const receive = Math.round((sent.total - sent.ttfb) * 1000) / 1000;
  return {
    startedDateTime: sent.startedDateTime,
    time: Math.round((wait + receive) * 1000) / 1000,
    request: { ...e.request, httpVersion: 'HTTP/1.1', headersSize: -1 },
    response: {
      status: sent.status,
      statusText: sent.statusText,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: nameValues(sent.headers),
      content: {
        size: decoded.length,
        mimeType,
        ...(decoded.length ? { text: text.text } : {}),
        ...(text.encoding ? { encoding: text.encoding } : {}),
      },
      redirectURL: header(sent.headers, 'location') ?? '',
      headersSize: -1,
      bodySize: sent.wire.length,
    },
    cache: {},
    timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait, receive },
    _resentFrom: index,
  };
}

function failedEntry(e: HarEntry, error: { code: string; message: string }, index: number): HarEntry {
  return {
    startedDateTime: new Date().toISOString(),
    time: 0,
    request: e.request,
    response: {
      status: 0,
      statusText: '',
      httpVersion: '',
      cookies: [],
      headers: [],
      content: { size: 0, mimeType: 'x-unknown' },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: 0, receive: 0 },
    _error: error.message,
    _errorCode: error.code,
    _resentFrom: index,
  };
}

/** The Netlens proxy's answer for a request it could not forward (502 + X-Netlens-Error: code, one-line body). */
class ProxyFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Through a Netlens proxy, a failed upstream is a 502 naming the cause: that is a failed request, not a changed status. */
function proxyFailure(sent: Sent, opts: ResendOptions): ProxyFailure | undefined {
  const code = opts.proxyUrl && sent.status === 502 ? header(sent.headers, 'x-netlens-error') : undefined;
  // Only a code of the registry says the 502 is the proxy's own answer, not the origin's.
  if (!isErrorCode(code)) return undefined;
  const line = sent.wire.subarray(0, 1000).toString('utf8').split('\n')[0].trim();
  return new ProxyFailure(code, line || `the proxy could not forward the request (${code})`);
}

/** Resends `entries` and compares; results come back in recorded order whatever the concurrency. */
export async function resend(entries: ReplayEntry[], opts: ResendOptions = {}): Promise<ResendResult> {
  const rows: ResendRow[] = new Array(entries.length);
  const out: HarEntry[] = new Array(entries.length);
  let next = 0;
  const worker = async () => {
    while (next < entries.length && !opts.signal?.aborted) {
      const i = next++;
      const { entry: e, index } = entries[i];
      const before: ResendSide = { status: e.response.status, size: e.response.content?.size ?? 0, time: e.time };
      try {
        const sent = await sendOne(e, opts);
        const refused = proxyFailure(sent, opts);
        if (refused) throw refused;
        const c = compare(e, sent);
        rows[i] = { index, method: e.request.method, url: e.request.url, before, after: c.after, changes: c.changes, slower: c.slower };
        out[i] = clientEntry(e, sent, c.decoded, index);
      } catch (err) {
        const { code, message } = err instanceof ProxyFailure ? err : classifyUpstreamError(err, new URL(e.request.url).host);
        const error = { code: (err as Error)?.name === 'AbortError' ? ErrorCodes.CLIENT_ABORTED : code, message };
        rows[i] = { index, method: e.request.method, url: e.request.url, before, error, changes: ['failed'], slower: false };
        out[i] = failedEntry(e, error, index);
      }
      opts.onResult?.(rows[i]);
    }
  };
  const n = Math.max(1, Math.min(opts.concurrency ?? 1, entries.length));
  await Promise.all(Array.from({ length: n }, worker));
  const done = rows.map((r, i) => (r ? i : -1)).filter((i) => i >= 0);
  return { rows: done.map((i) => rows[i]), entries: done.map((i) => out[i]) };
}
