/**
 * Exchange → the journal line of its HAR entry, written as JSON text directly:
 * exactly `JSON.stringify(entryRecord(exchangeToEntry(x, { pageref })))`, with
 * ~30% less CPU (~7 µs against ~10 µs for a small intercepted GET, bundled, Node 20).
 *
 * Why: building the entry object and then `JSON.stringify`-ing it was most of
 * what recording cost the proxy's event loop (~10 µs of ~15 µs per small
 * exchange; bench/recording-cost.ts --breakdown). Much of that is the many small
 * objects (one per header, timings, `_clientTimings`) that are made only to be
 * serialized once. Here the entry's skeleton, headers and timings are written as
 * text; the parts whose rules are involved (body text, postData, cookies, query
 * string, rules, errors) still come from entry.ts's builders and are stringified
 * on their own, so entry.ts stays the one definition of what an entry holds.
 *
 * The text must stay identical to the slow path, key order included: the test
 * (proxy/test/har/entry-line.test.ts) compares both on many shapes of exchange.
 * A field added to exchangeToEntry must be added here too; the test fails until it is.
 */
import type { Exchange, RawHeaders } from '../model.js';
import { requestCookies, responseCookies } from './cookies.js';
import {
  exchangeToEntry,
  harContent,
  harHttpVersion,
  harPostData,
  harResponse,
  harTimings,
  header,
  headSize,
  queryString,
  requestTarget,
  timeOf,
} from './entry.js';
import { entryRecord } from './journal.js';

const q = JSON.stringify;

/** Printable ASCII without `"` and `\`: JSON text is the string in quotes. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
/** A string as JSON text; most header names and values need no escaping, and the regex is twice as fast as JSON.stringify. */
const str = (s: string): string => (PLAIN.test(s) ? `"${s}"` : q(s));

/** A JSON value as JSON.stringify writes it inside an object: '' when the key is left out (undefined). */
function field(key: string, value: string | number | boolean | undefined): string {
  return value === undefined ? '' : `,"${key}":${typeof value === 'string' ? str(value) : q(value)}`;
}

/** A finite number as JSON text (JSON.stringify writes NaN and ±Infinity as null). */
const num = (n: number): string => (Number.isFinite(n) ? String(n) : 'null');

/** HAR name/value pairs of raw headers (the bulk of an entry's objects). */
function headersJson(headers: RawHeaders): string {
  let s = '[';
  for (let i = 0; i < headers.length; i++) {
    const [name, value] = headers[i];
    if (typeof name !== 'string' || typeof value !== 'string') return q(headers.map(([n, v]) => ({ name: n, value: v })));
    s += `${i ? ',' : ''}{"name":${str(name)},"value":${str(value)}}`;
  }
  return s + ']';
}

const list = (items: readonly unknown[]): string => (items.length ? q(items) : '[]');

function requestJson(x: Exchange): string {
  const r = x.request;
  const version = harHttpVersion(r.httpVersion);
  // The request target (a URL parse) matters only for HTTP/1.x head sizes.
  const h1 = r.httpVersion === 'http/1.1' || r.httpVersion === 'http/1.0';
  const headersSize = h1 ? headSize(r.httpVersion, `${r.method} ${requestTarget(x)} ${version}`, r.headers) : -1;
  let s =
    `{"method":${str(r.method)},"url":${str(r.url)},"httpVersion":${str(version)},"cookies":${list(requestCookies(r.headers))}` +
    `,"headers":${headersJson(r.headers)},"queryString":${list(queryString(r.url))},"headersSize":${num(headersSize)}` +
    `,"bodySize":${num(r.body.size)}`;
  if (r.body.size > 0) s += `,"postData":${q(harPostData(x))}`;
  return s + '}';
}

function responseJson(x: Exchange): string {
  const r = x.response;
  if (!r) return q(harResponse(x));
  const version = harHttpVersion(r.httpVersion);
  const headersSize = headSize(r.httpVersion, `${version} ${r.status} ${r.statusText}`, r.headers);
  return (
    `{"status":${num(r.status)},"statusText":${str(r.statusText)},"httpVersion":${str(version)}` +
    `,"cookies":${list(responseCookies(r.headers, x.startedDateTime))},"headers":${headersJson(r.headers)}` +
    `,"content":${q(harContent(x))},"redirectURL":${str(header(r.headers, 'location') ?? '')},"headersSize":${num(headersSize)}` +
    `,"bodySize":${num(r.body.size)},"_transferSize":${num((headersSize > 0 ? headersSize : 0) + r.body.size)}}`
  );
}

/** The fields written as text here have the types model.ts promises (anything else takes the slow path). */
function wellTyped(x: Exchange): boolean {
  const r = x.request;
  const s = x.response;
  return (
    typeof x.startedDateTime === 'string' &&
    typeof x.id === 'string' &&
    typeof x.clientConnectionId === 'string' &&
    typeof r?.method === 'string' &&
    typeof r.url === 'string' &&
    typeof r.body?.size === 'number' &&
    (!s || (typeof s.statusText === 'string' && typeof s.status === 'number' && typeof s.body?.size === 'number'))
  );
}

/**
 * The journal line (no newline) of the exchange's HAR entry. Shapes this writer
 * does not know (a value of an unexpected type) go through the slow path, so the
 * line is always what exchangeToEntry + JSON.stringify would give.
 */
export function entryLine(x: Exchange, pageref?: string): string {
  if (!wellTyped(x)) return q(entryRecord(exchangeToEntry(x, { pageref })));
  const t = harTimings(x);
  const started = Date.parse(x.startedDateTime);
  let s =
    `{"t":"entry","s":${Number.isNaN(started) ? 0 : started},"entry":{` +
    (pageref ? `"pageref":${str(pageref)},` : '') +
    `"startedDateTime":${str(x.startedDateTime)},"time":${num(timeOf(t))},"request":${requestJson(x)},"response":${responseJson(x)}` +
    `,"cache":{},"timings":{"blocked":${num(t.blocked!)},"dns":${num(t.dns!)},"connect":${num(t.connect!)},"ssl":${num(t.ssl!)}` +
    `,"send":${num(t.send)},"wait":${num(t.wait)},"receive":${num(t.receive)}}`;
  const ip = x.serverIPAddress;
  if (ip) s += `,"serverIPAddress":${str(ip[0] === '[' || ip.endsWith(']') ? ip.replace(/^\[|\]$/g, '') : ip)}`;
  if (x.upstreamConnectionId) s += `,"connection":${str(x.upstreamConnectionId)}`;
  s +=
    `,"_exchangeId":${str(x.id)},"_clientConnection":${str(x.clientConnectionId)},"_connectionId":${str(x.clientConnectionId)}` +
    `${field('_transport', x.transport)},"_interception":${x.transport === 'intercepted'}${field('_clientProtocol', x.clientProtocol)}`;
  if (x.upstreamProtocol) s += `,"_upstreamProtocol":${str(x.upstreamProtocol)}`;
  s += `,"_clientTimings":${x.clientTimings ? q(x.clientTimings) : '{}'}${field('_nagle', x.nagle)}${field('_retries', x.retries)}`;
  if (x.upstreamConnectionNew !== undefined) s += `,"_upstreamConnectionNew":${q(x.upstreamConnectionNew)}`;
  if (x.tunnelBytes) s += `,"_tunnelBytes":${q(x.tunnelBytes)}`;
  if (x.websocket) s += ',"_websocket":true';
  if (x.replayed !== undefined) s += `,"_replayed":${q(x.replayed)}`;
  if (x.rules?.length) s += `,"_rules":${q(x.rules.map((r) => ({ ...r, actions: [...r.actions] })))}`;
  if (x.mocked) s += ',"_mocked":true';
  if (x.breakpoint) s += `,"_breakpoint":${q(x.breakpoint)}`;
  if (x.error) s += `${field('_error', x.error.message)}${field('_errorCode', x.error.code)}${field('_errorSide', x.error.side)}`;
  return s + '}}';
}
