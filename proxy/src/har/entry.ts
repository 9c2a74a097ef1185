/**
 * Exchange → HAR 1.2 entry: a pure function (no I/O), so every rule below is
 * tested without a network.
 *
 * Rules worth knowing:
 *  - request.httpVersion is the client leg's protocol, response.httpVersion the
 *    upstream leg's (they differ when the proxy bridges h2 ↔ HTTP/1.1).
 *  - Timings are the upstream leg's (what the origin cost), -1 where a phase did
 *    not happen; `ssl` is inside `connect`; send/wait/receive are never -1
 *    (HAR 1.2 requires them) and `time` is exactly the sum of the non-negative
 *    phases other than `ssl`.
 *  - `content.text` is the decoded body; `bodySize` and `_transferSize` are what
 *    crossed the wire.
 *  - Netlens-only facts go in `_` fields (HAR 1.2 allows custom fields that start with `_`).
 */
import type { BodyCapture, Exchange, HttpProtocol, RawHeaders, RequestRecord } from '../model.js';
import type { HarContent, HarEntry, HarNameValue, HarPostData, HarRequest, HarResponse, HarTimings, Loose } from './types.js';
import { bodyText, decodeContent, type DecodedBody } from './body.js';
import { requestCookies, responseCookies } from './cookies.js';
import { postData } from './post-data.js';
import { originForm } from './request-target.js';
import { isHeaderName } from './header-name.js';

export interface EntryOptions {
  /** Id of the page this exchange belongs to, when known. */
  pageref?: string;
  /**
   * The response's HAR content and the request's postData, made when the exchange was recorded
   * (exchange-line.ts keeps them instead of the body bytes): used instead of the bodies when given.
   */
  content?: HarContent;
  postData?: HarPostData;
}

/** Millisecond values keep microseconds: enough for loopback timings, short in JSON. */
export const roundMs = (n: number): number => Math.round(n * 1000) / 1000;

export function harHttpVersion(p: HttpProtocol | undefined): string {
  switch (p) {
    case 'http/1.0':
      return 'HTTP/1.0';
    case 'http/1.1':
      return 'HTTP/1.1';
    case 'h2':
      return 'HTTP/2.0';
    default:
      return '';
  }
}

/**
 * The recorder's journal keeps the exchange (exchange-line.ts) and its entry is made here when the
 * journal is read: a field of the Exchange that this function starts to read must be kept there too
 * (exchange-line.test.ts compares the entry read back with this one on exchanges that set every field).
 */
export function exchangeToEntry(x: Exchange, options: EntryOptions = {}): HarEntry {
  const timings = harTimings(x);
  const entry: HarEntry = {
    ...(options.pageref ? { pageref: options.pageref } : {}),
    startedDateTime: x.startedDateTime,
    time: timeOf(timings),
    request: harRequest(x, options.postData),
    response: harResponse(x, options.content),
    cache: {},
    timings,
  };
  if (x.serverIPAddress) entry.serverIPAddress = x.serverIPAddress.replace(/^\[|\]$/g, '');
  if (x.upstreamConnectionId) entry.connection = x.upstreamConnectionId;
  entry._exchangeId = x.id;
  entry._clientConnection = x.clientConnectionId;
  // The client leg's connection in log._connections (the upstream one is `connection`).
  entry._connectionId = x.clientConnectionId;
  entry._transport = x.transport;
  entry._interception = x.transport === 'intercepted';
  entry._clientProtocol = x.clientProtocol;
  if (x.upstreamProtocol) entry._upstreamProtocol = x.upstreamProtocol;
  entry._clientTimings = { ...x.clientTimings };
  entry._nagle = x.nagle;
  entry._retries = x.retries;
  if (x.upstreamConnectionNew !== undefined) entry._upstreamConnectionNew = x.upstreamConnectionNew;
  if (x.tunnelBytes) entry._tunnelBytes = { ...x.tunnelBytes };
  if (x.websocket) entry._websocket = true;
  if (x.replayed !== undefined) entry._replayed = x.replayed;
  if (x.rules?.length) entry._rules = x.rules.map((r) => ({ ...r, actions: [...r.actions] }));
  if (x.mocked) entry._mocked = true;
  if (x.breakpoint) entry._breakpoint = { ...x.breakpoint };
  if (x.error) {
    // `_error` is a string as in Chrome's HARs, so DevTools shows it; code and side alongside.
    entry._error = x.error.message;
    entry._errorCode = x.error.code;
    entry._errorSide = x.error.side;
  }
  return entry;
}

/** HAR 1.2 `time`: the sum of the phases that apply (`ssl` is inside `connect`); missing ones count 0. */
export function timeOf(t: Loose<HarTimings>): number {
  // Summed in this order from 0 (the result is rounded, but a double sum depends on its order): no array, no closure
  // per recorded exchange.
  return roundMs(0 + phase(t.blocked) + phase(t.dns) + phase(t.connect) + phase(t.send) + phase(t.wait) + phase(t.receive));
}

const phase = (n: number | undefined): number => (n !== undefined && n > 0 ? n : 0);

export function harTimings(x: Exchange): HarTimings {
  const t = x.timings;
  const connect = opt(t.connect);
  let ssl = opt(t.ssl);
  // ssl is a part of connect: it cannot exceed it (clock granularity aside).
  if (ssl > 0 && connect >= 0 && ssl > connect) ssl = connect;
  return {
    blocked: opt(t.blocked),
    dns: opt(t.dns),
    connect,
    ssl,
    send: Math.max(0, opt(t.send)),
    wait: Math.max(0, opt(t.wait)),
    receive: Math.max(0, opt(t.receive)),
  };
}

/** A phase in milliseconds, or -1 when it did not happen; a value that is not a finite number was not measured. */
const opt = (n: number): number => (n >= 0 && n < Infinity ? roundMs(n) : -1);

const nameValues = (headers: RawHeaders): HarNameValue[] => headers.map(([name, value]) => ({ name, value }));

export function header(headers: RawHeaders, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [k, v] of headers) if (isHeaderName(k, lower)) return v;
  return undefined;
}

/** Whether a leg's head has a size in bytes (HTTP/1.x; an h2 head is HPACK-compressed). */
export const hasHead = (protocol: HttpProtocol | undefined): boolean => protocol === 'http/1.1' || protocol === 'http/1.0';

/** Bytes of an HTTP/1.x head: start line, header lines, blank line. -1 for h2 (HPACK-compressed). */
export function headSize(protocol: HttpProtocol | undefined, startLine: string, headers: RawHeaders): number {
  if (!hasHead(protocol)) return -1;
  let size = Buffer.byteLength(startLine) + 2 + 2;
  for (const [k, v] of headers) size += Buffer.byteLength(k) + 2 + Buffer.byteLength(v) + 2;
  return size;
}

export function queryString(url: string): HarNameValue[] {
  const q = url.indexOf('?');
  if (q < 0) return [];
  const hash = url.indexOf('#', q);
  const search = url.slice(q + 1, hash < 0 ? undefined : hash);
  return [...new URLSearchParams(search)].map(([name, value]) => ({ name, value }));
}

export function requestTarget(x: Exchange): string {
  // A plain proxy request arrives in absolute-form; inside CONNECT it is origin-form.
  if (x.transport === 'plain' || x.request.method === 'CONNECT') return x.request.url.replace(/^https?:\/\/(?=[^/]*:\d+$)/, '');
  return originForm(x.request.url);
}

function harRequest(x: Exchange, recordedPostData?: HarPostData): HarRequest {
  const r = x.request;
  const headersSize = headSize(r.httpVersion, `${r.method} ${requestTarget(x)} ${harHttpVersion(r.httpVersion)}`, r.headers);
  const req: HarRequest = {
    method: r.method,
    url: r.url,
    httpVersion: harHttpVersion(r.httpVersion),
    cookies: requestCookies(r.headers),
    headers: nameValues(r.headers),
    queryString: queryString(r.url),
    headersSize,
    bodySize: r.body.size,
  };
  const post = recordedPostData ?? harPostData(r);
  if (post) req.postData = post;
  return req;
}

/** HAR `postData` of a request with a body (undefined without one). */
export function harPostData(r: RequestRecord): HarPostData | undefined {
  if (!(r.body.size > 0)) return undefined;
  return postDataOf(r, decodeContent(r.body.bytes, header(r.headers, 'content-encoding'), r.body.truncated));
}

/** harPostData of a request whose body was decoded already (content-job.ts decodes off the event loop). */
export function postDataOf(r: RequestRecord, decoded: DecodedBody): HarPostData {
  return Object.assign(postData(decoded.bytes, header(r.headers, 'content-type') ?? '', decoded.partial), captureNotes(r.body, decoded));
}

function harResponse(x: Exchange, recordedContent?: HarContent): HarResponse {
  const r = x.response;
  if (!r) {
    // No response arrived (see `_error`): status 0 as Chrome writes for failed requests.
    return {
      status: 0,
      statusText: '',
      httpVersion: '',
      cookies: [],
      headers: [],
      content: { size: 0, mimeType: 'x-unknown' },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
      _transferSize: 0,
    };
  }
  const headersSize = headSize(r.httpVersion, `${harHttpVersion(r.httpVersion)} ${r.status} ${r.statusText}`, r.headers);
  return {
    status: r.status,
    statusText: r.statusText,
    httpVersion: harHttpVersion(r.httpVersion),
    cookies: responseCookies(r.headers, x.startedDateTime),
    headers: nameValues(r.headers),
    content: recordedContent ?? harContent(x),
    redirectURL: header(r.headers, 'location') ?? '',
    headersSize,
    bodySize: r.body.size,
    _transferSize: (headersSize > 0 ? headersSize : 0) + r.body.size,
  };
}

export function harContent(x: Exchange): HarContent {
  const body = x.response!.body;
  const headers = x.response!.headers;
  return contentOf(body, headers, decodeContent(body.bytes, header(headers, 'content-encoding'), body.truncated));
}

/** harContent of a response body decoded already (entry-async.ts decodes off the event loop). */
export function contentOf(body: BodyCapture, headers: RawHeaders, decoded: DecodedBody): HarContent {
  const content: HarContent = contentHead(body, headers, decoded);
  if (body.bytes.length > 0) {
    // A body that failed to decode goes as its wire bytes in base64, whatever its type.
    const text = decoded.error
      ? { text: decoded.bytes.toString('base64'), encoding: 'base64' as const }
      : bodyText(decoded.bytes, content.mimeType, decoded.partial);
    content.text = text.text;
    if (text.encoding) content.encoding = text.encoding;
  }
  return Object.assign(content, captureNotes(body, decoded));
}

/**
 * HAR `content`'s fields before its text: size (decoded when it was), MIME type, compression. With
 * captureNotes, what harContent holds besides the text; content-job.ts writes the same around a text it makes
 * in slices.
 */
export function contentHead(body: BodyCapture, headers: RawHeaders, decoded: DecodedBody): HarContent {
  const head: HarContent = { size: body.size, mimeType: header(headers, 'content-type') ?? 'x-unknown' };
  if (decoded.decoded.length > 0) {
    // Sizes of a truncated, compressed body are unknown past the capture limit: report what was decoded.
    head.size = decoded.bytes.length;
    if (!decoded.partial) head.compression = decoded.bytes.length - body.size;
  }
  return head;
}

/** The fields after a body's text in `content` and `postData`: cut by the capture limit, not decodable. */
export function captureNotes(body: BodyCapture, decoded: DecodedBody): Pick<HarContent, '_truncated' | '_capturedSize' | '_decodingError'> {
  const notes: Pick<HarContent, '_truncated' | '_capturedSize' | '_decodingError'> = {};
  if (body.truncated) {
    notes._truncated = true;
    notes._capturedSize = body.bytes.length;
  }
  if (decoded.error) notes._decodingError = decoded.error;
  return notes;
}
