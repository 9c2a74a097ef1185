/**
 * An exchange's journal line, serialized straight from the Exchange: the text
 * `JSON.stringify(entryRecord(exchangeToEntry(x, { pageref })))` gives, byte for
 * byte, without building the entry's objects first.
 *
 * Why: on Node 20 JSON.stringify of an entry cost ~6 µs and building it ~2.5 µs,
 * most of it spent on the ~20–60 small `{name, value}` header objects, and the
 * recorder runs this on the event loop for every exchange (issue 17: recording
 * ≤ 10 µs per exchange). Writing the known shape as UTF-8 bytes into the
 * recorder's batch buffer (json-bytes.ts: keys pre-encoded, short plain strings
 * copied as they are checked, JSON.stringify only for long or escaped strings and
 * rare parts such as cookies, postData, rules) measured 6.2 µs against 9.9 µs for
 * building, stringifying and joining (bench/recording-cost.ts --breakdown, 2026-11-26).
 *
 * Staying identical to exchangeToEntry: the computations are entry.ts's own
 * (harTimings, harContent, harPostData…; header byte counts as headSize's); only the key order is repeated here, and
 * entry-line.test.ts compares the two on exchanges that set every optional field.
 * A value of a type the fast path does not expect (a missing string, say) throws
 * NotPlain and the line is made the generic way, so odd input never changes the output.
 */
import { isUtf8 } from 'node:buffer';
import type { Exchange, RawHeaders } from '../model.js';
import type { HarContent, HarNameValue, HarTimings } from './types.js';
import { requestCookies, responseCookies } from './cookies.js';
import {
  exchangeToEntry,
  harContent,
  harHttpVersion,
  harPostData,
  harTimings,
  header,
  hasHead,
  queryString,
  requestTarget,
  timeOf,
} from './entry.js';
import { entryRecord } from './journal.js';
import { JsonBytes, NOT_PLAIN } from './json-bytes.js';
import { isTextMime } from './body.js';

/** JSON punctuation and keys, encoded once (copied with one TypedArray.set, not char by char). */
const bytes = (s: string): Buffer => Buffer.from(s, 'latin1');
const K_NAME_FIRST = bytes('{"name":');
const K_NAME = bytes(',{"name":');
const K_INTERCEPTION_TRUE = bytes(',"_interception":true');
const K_INTERCEPTION_FALSE = bytes(',"_interception":false');
const K_VALUE = bytes(',"value":');
const EMPTY_ARRAY = bytes('[]');
const K_BLOCKED_FIRST = bytes('{"blocked":');
const K_DNS = bytes(',"dns":');
const K_CONNECT = bytes(',"connect":');
const K_SSL = bytes(',"ssl":');
const K_SEND = bytes(',"send":');
const K_WAIT = bytes(',"wait":');
const K_RECEIVE = bytes(',"receive":');
const K_METHOD_FIRST = bytes('{"method":');
const K_URL = bytes(',"url":');
const K_HTTPVERSION = bytes(',"httpVersion":');
const K_COOKIES = bytes(',"cookies":');
const K_HEADERS = bytes(',"headers":');
const K_QUERYSTRING = bytes(',"queryString":');
const K_HEADERSSIZE = bytes(',"headersSize":');
const K_BODYSIZE = bytes(',"bodySize":');
const K_SIZE_FIRST = bytes('{"size":');
const K_MIMETYPE = bytes(',"mimeType":');
const K_COMPRESSION = bytes(',"compression":');
const K_TEXT = bytes(',"text":');
const K_ENCODING = bytes(',"encoding":');
const K_CLIENTTIMINGS_RECEIVEREQUEST = bytes(',"_clientTimings":{"receiveRequest":');
const K_PROXYOVERHEAD = bytes(',"proxyOverhead":');
const K_RESPOND = bytes(',"respond":');
const K_TOTAL = bytes(',"total":');
const K_STATUS_FIRST = bytes('{"status":');
const K_STATUSTEXT = bytes(',"statusText":');
const K_CONTENT = bytes(',"content":');
const K_REDIRECTURL = bytes(',"redirectURL":');
const K_TRANSFERSIZE = bytes(',"_transferSize":');
const K_T_ENTRY_S_FIRST = bytes('{"t":"entry","s":');
const K_ENTRY = bytes(',"entry":{');
const K_PAGEREF = bytes('"pageref":');
const K_STARTEDDATETIME = bytes('"startedDateTime":');
const K_TIME = bytes(',"time":');
const K_REQUEST = bytes(',"request":');
const K_RESPONSE = bytes(',"response":');
const K_CACHE_TIMINGS = bytes(',"cache":{},"timings":');
const K_SERVERIPADDRESS = bytes(',"serverIPAddress":');
const K_CONNECTION = bytes(',"connection":');
const K_EXCHANGEID = bytes(',"_exchangeId":');
const K_CLIENTCONNECTION = bytes(',"_clientConnection":');
const K_CONNECTIONID = bytes(',"_connectionId":');
const K_TRANSPORT = bytes(',"_transport":');
const K_CLIENTPROTOCOL = bytes(',"_clientProtocol":');
const K_UPSTREAMPROTOCOL = bytes(',"_upstreamProtocol":');
const K_NAGLE = bytes(',"_nagle":');
const K_RETRIES = bytes(',"_retries":');
const K_UPSTREAMCONNECTIONNEW = bytes(',"_upstreamConnectionNew":');
const K_WEBSOCKET_TRUE = bytes(',"_websocket":true');
const K_MOCKED_TRUE = bytes(',"_mocked":true');
const CLOSE_LINE = bytes('}}');

/**
 * Plain-ASCII header names seen → their `{"name":"…","value":` bytes: names repeat from
 * exchange to exchange, and one lookup replaces copying the name char by char. Bounded.
 */
const NAME_KEYS = new Map<string, Buffer>();
const MAX_NAME_KEYS = 1024;
/** What a NAME_KEYS entry holds besides the name itself. */
const NAME_KEY_FRAME = '{"name":"","value":'.length;

/**
 * Raw headers as HAR's `[{"name":…,"value":…},…]`. Returns what the header lines
 * take in an HTTP/1.x head (name, ": ", value, CRLF), as entry.ts headSize counts them.
 */
function headersJson(o: JsonBytes, headers: RawHeaders): number {
  let size = 0;
  o.byte(91);
  for (let i = 0; i < headers.length; i++) {
    const h = headers[i];
    if (i > 0) o.byte(44);
    const name = h[0];
    const key = typeof name === 'string' ? NAME_KEYS.get(name) : undefined;
    if (key === undefined) {
      const start = o.pos;
      o.lit(K_NAME_FIRST);
      const n = o.str(name);
      o.lit(K_VALUE);
      if (n < 0) size += Buffer.byteLength(name as string);
      else {
        size += n;
        if (NAME_KEYS.size < MAX_NAME_KEYS) NAME_KEYS.set(name as string, Buffer.from(o.buf.subarray(start, o.pos)));
      }
    } else {
      o.lit(key);
      size += key.length - NAME_KEY_FRAME;
    }
    const value = o.str(h[1]);
    o.byte(125);
    // -1: escaped or non-ASCII, so its length is not its byte count.
    size += (value < 0 ? Buffer.byteLength(h[1]) : value) + 4;
  }
  o.byte(93);
  return size;
}

function nameValuesJson(o: JsonBytes, list: HarNameValue[]): void {
  o.byte(91);
  for (let i = 0; i < list.length; i++) {
    o.lit(i === 0 ? K_NAME_FIRST : K_NAME);
    o.str(list[i].name);
    o.lit(K_VALUE);
    o.str(list[i].value);
    o.byte(125);
  }
  o.byte(93);
}

function arrayJson(o: JsonBytes, a: unknown[]): void {
  if (a.length === 0) o.lit(EMPTY_ARRAY);
  else o.text(JSON.stringify(a));
}

function timingsJson(o: JsonBytes, t: HarTimings): void {
  o.lit(K_BLOCKED_FIRST);
  o.num(t.blocked);
  o.lit(K_DNS);
  o.num(t.dns);
  o.lit(K_CONNECT);
  o.num(t.connect);
  o.lit(K_SSL);
  o.num(t.ssl);
  o.lit(K_SEND);
  o.num(t.send);
  o.lit(K_WAIT);
  o.num(t.wait);
  o.lit(K_RECEIVE);
  o.num(t.receive);
  o.byte(125);
}

function requestJson(o: JsonBytes, x: Exchange): void {
  const r = x.request;
  const version = harHttpVersion(r.httpVersion);
  o.lit(K_METHOD_FIRST);
  o.str(r.method);
  o.lit(K_URL);
  o.str(r.url);
  o.lit(K_HTTPVERSION);
  o.str(version);
  o.lit(K_COOKIES);
  arrayJson(o, requestCookies(r.headers));
  o.lit(K_HEADERS);
  const headerBytes = headersJson(o, r.headers);
  // As entry.ts headSize (its start line only built for HTTP/1.x: requestTarget parses the URL).
  // The start line's bytes part by part (the spaces keep UTF-8 lengths additive): no joined string per exchange.
  const headersSize = hasHead(r.httpVersion)
    ? Buffer.byteLength(r.method) + Buffer.byteLength(requestTarget(x)) + version.length + 2 + 4 + headerBytes
    : -1;
  o.lit(K_QUERYSTRING);
  nameValuesJson(o, queryString(r.url));
  o.lit(K_HEADERSSIZE);
  o.num(headersSize);
  o.lit(K_BODYSIZE);
  o.num(r.body.size);
  o.opt('postData', harPostData(r));
  o.byte(125);
}

/** harContent's object, keys in the order harContent sets them. */
function contentJson(o: JsonBytes, c: HarContent): void {
  o.lit(K_SIZE_FIRST);
  o.num(c.size);
  o.lit(K_MIMETYPE);
  o.str(c.mimeType);
  if (c.compression !== undefined) {
    o.lit(K_COMPRESSION);
    o.num(c.compression);
  }
  if (c.text !== undefined) {
    o.lit(K_TEXT);
    o.str(c.text);
  }
  if (c.encoding !== undefined) {
    o.lit(K_ENCODING);
    o.str(c.encoding);
  }
  o.opt('_truncated', c._truncated);
  o.opt('_capturedSize', c._capturedSize);
  o.opt('_decodingError', c._decodingError);
  o.byte(125);
}

/**
 * `_clientTimings`, keys in the order computeClientTimings and newExchangeRecord set them
 * (a missing one throws NOT_PLAIN: the generic path then writes whatever the object has).
 */
function clientTimingsJson(o: JsonBytes, t: Exchange['clientTimings']): void {
  if (!t) throw NOT_PLAIN;
  o.lit(K_CLIENTTIMINGS_RECEIVEREQUEST);
  o.num(t.receiveRequest);
  o.lit(K_PROXYOVERHEAD);
  o.num(t.proxyOverhead);
  o.lit(K_RESPOND);
  o.num(t.respond);
  o.lit(K_TOTAL);
  o.num(t.total);
  o.byte(125);
}

/**
 * harContent's object for the common case, written from the body's bytes: a whole (not truncated), not
 * content-encoded body of a text MIME type that is valid UTF-8 without binary control characters gives
 * `{size, mimeType, text}` with `text` the body decoded (body.ts bodyText). Returns false, having written
 * nothing, for every other body: the caller then writes harContent's object.
 */
function textContentJson(o: JsonBytes, x: Exchange): boolean {
  const r = x.response!;
  const body = r.body;
  const bytes = body.bytes;
  if (body.truncated || !(bytes.length > 0) || header(r.headers, 'content-encoding') !== undefined) return false;
  const mimeType = header(r.headers, 'content-type') ?? 'x-unknown';
  if (!isTextMime(mimeType) || !isUtf8(bytes)) return false;
  const start = o.pos;
  o.lit(K_SIZE_FIRST);
  o.num(body.size);
  o.lit(K_MIMETYPE);
  o.str(mimeType);
  o.lit(K_TEXT);
  if (!o.utf8(bytes)) {
    o.pos = start;
    return false;
  }
  o.byte(125);
  return true;
}

/** exchangeToEntry's response when none arrived. */
const NO_RESPONSE = bytes(
  '{"status":0,"statusText":"","httpVersion":"","cookies":[],"headers":[],"content":{"size":0,"mimeType":"x-unknown"},' +
    '"redirectURL":"","headersSize":-1,"bodySize":-1,"_transferSize":0}',
);

function responseJson(o: JsonBytes, x: Exchange): void {
  const r = x.response;
  if (!r) return o.lit(NO_RESPONSE);
  const version = harHttpVersion(r.httpVersion);
  o.lit(K_STATUS_FIRST);
  o.num(r.status);
  o.lit(K_STATUSTEXT);
  o.str(r.statusText);
  o.lit(K_HTTPVERSION);
  o.str(version);
  o.lit(K_COOKIES);
  arrayJson(o, responseCookies(r.headers, x.startedDateTime));
  o.lit(K_HEADERS);
  const headerBytes = headersJson(o, r.headers);
  const headersSize = hasHead(r.httpVersion)
    ? version.length + String(r.status).length + Buffer.byteLength(r.statusText) + 2 + 4 + headerBytes
    : -1;
  o.lit(K_CONTENT);
  if (!textContentJson(o, x)) contentJson(o, harContent(x));
  o.lit(K_REDIRECTURL);
  o.str(header(r.headers, 'location') ?? '');
  o.lit(K_HEADERSSIZE);
  o.num(headersSize);
  o.lit(K_BODYSIZE);
  o.num(r.body.size);
  o.lit(K_TRANSFERSIZE);
  o.num((headersSize > 0 ? headersSize : 0) + r.body.size);
  o.byte(125);
}

/**
 * Appends the journal line of an exchange (no newline) to `o`: `{"t":"entry","s":…,"entry":{…}}`.
 * On an error nothing is appended and the error is thrown.
 */
export function writeEntryLine(o: JsonBytes, x: Exchange, pageref?: string): void {
  const start = o.pos;
  try {
    fastEntryLine(o, x, pageref);
  } catch (err) {
    o.pos = start;
    if (err !== NOT_PLAIN) throw err;
    o.text(JSON.stringify(entryRecord(exchangeToEntry(x, { pageref }))));
  }
}

const scratch = new JsonBytes();

/** The journal line of an exchange as a string (no newline); the recorder writes bytes with writeEntryLine. */
export function entryLine(x: Exchange, pageref?: string): string {
  scratch.reset();
  writeEntryLine(scratch, x, pageref);
  return scratch.bytes().toString('utf8');
}

/** The minute `isoMs` saw last ('2026-11-26T06:55') and its epoch milliseconds. */
let minute = '';
let minuteMs = NaN;

/**
 * Date.parse of a startedDateTime, for the line's "s": an instant as toISOString writes it
 * ('2026-11-26T06:55:10.123Z') is its minute's epoch milliseconds (cached: exchanges come minutes
 * apart at most) plus its seconds and milliseconds. Anything else is Date.parse's.
 */
export function isoMs(iso: string): number {
  if (
    iso.length === 24 &&
    iso.charCodeAt(4) === 45 &&
    iso.charCodeAt(7) === 45 &&
    iso.charCodeAt(10) === 84 &&
    iso.charCodeAt(13) === 58 &&
    iso.charCodeAt(16) === 58 &&
    iso.charCodeAt(19) === 46 &&
    iso.charCodeAt(23) === 90
  ) {
    const s1 = iso.charCodeAt(17) - 48;
    const s2 = iso.charCodeAt(18) - 48;
    const m1 = iso.charCodeAt(20) - 48;
    const m2 = iso.charCodeAt(21) - 48;
    const m3 = iso.charCodeAt(22) - 48;
    if (s1 >= 0 && s1 <= 5 && s2 >= 0 && s2 <= 9 && m1 >= 0 && m1 <= 9 && m2 >= 0 && m2 <= 9 && m3 >= 0 && m3 <= 9) {
      if (!iso.startsWith(minute) || minute.length !== 16) {
        minute = iso.slice(0, 16);
        minuteMs = Date.parse(`${minute}:00.000Z`);
      }
      if (!Number.isNaN(minuteMs)) return minuteMs + (s1 * 10 + s2) * 1000 + m1 * 100 + m2 * 10 + m3;
    }
  }
  return Date.parse(iso);
}

/** The line the fast way; throws NOT_PLAIN on a value of an unexpected type. Key order is exchangeToEntry's. */
function fastEntryLine(o: JsonBytes, x: Exchange, pageref: string | undefined): void {
  const timings = harTimings(x);
  const started = isoMs(x.startedDateTime);
  o.lit(K_T_ENTRY_S_FIRST);
  o.num(Number.isNaN(started) ? 0 : started);
  o.lit(K_ENTRY);
  if (pageref) {
    o.lit(K_PAGEREF);
    o.str(pageref);
    o.byte(44);
  }
  o.lit(K_STARTEDDATETIME);
  o.str(x.startedDateTime);
  o.lit(K_TIME);
  o.num(timeOf(timings));
  o.lit(K_REQUEST);
  requestJson(o, x);
  o.lit(K_RESPONSE);
  responseJson(o, x);
  o.lit(K_CACHE_TIMINGS);
  timingsJson(o, timings);
  if (x.serverIPAddress) {
    o.lit(K_SERVERIPADDRESS);
    const ip = x.serverIPAddress;
    // The brackets of an IPv6 literal go (as exchangeToEntry's replace does); most addresses have none.
    o.str(ip.charCodeAt(0) === 91 || ip.charCodeAt(ip.length - 1) === 93 ? ip.replace(/^\[|\]$/g, '') : ip);
  }
  if (x.upstreamConnectionId) {
    o.lit(K_CONNECTION);
    o.str(x.upstreamConnectionId);
  }
  o.lit(K_EXCHANGEID);
  o.str(x.id);
  o.lit(K_CLIENTCONNECTION);
  o.str(x.clientConnectionId);
  o.lit(K_CONNECTIONID);
  o.str(x.clientConnectionId);
  o.lit(K_TRANSPORT);
  o.str(x.transport);
  o.lit(x.transport === 'intercepted' ? K_INTERCEPTION_TRUE : K_INTERCEPTION_FALSE);
  o.lit(K_CLIENTPROTOCOL);
  o.str(x.clientProtocol);
  if (x.upstreamProtocol) {
    o.lit(K_UPSTREAMPROTOCOL);
    o.str(x.upstreamProtocol);
  }
  clientTimingsJson(o, x.clientTimings);
  o.lit(K_NAGLE);
  o.bool(x.nagle);
  o.lit(K_RETRIES);
  o.num(x.retries);
  if (x.upstreamConnectionNew !== undefined) {
    o.lit(K_UPSTREAMCONNECTIONNEW);
    o.bool(x.upstreamConnectionNew);
  }
  if (x.tunnelBytes) o.opt('_tunnelBytes', { ...x.tunnelBytes });
  if (x.websocket) o.lit(K_WEBSOCKET_TRUE);
  if (x.replayed !== undefined) o.opt('_replayed', x.replayed);
  if (x.rules?.length)
    o.opt(
      '_rules',
      x.rules.map((r) => ({ ...r, actions: [...r.actions] })),
    );
  if (x.mocked) o.lit(K_MOCKED_TRUE);
  if (x.breakpoint) o.opt('_breakpoint', { ...x.breakpoint });
  if (x.error) {
    o.opt('_error', x.error.message);
    o.opt('_errorCode', x.error.code);
    o.opt('_errorSide', x.error.side);
  }
  o.lit(CLOSE_LINE);
}
