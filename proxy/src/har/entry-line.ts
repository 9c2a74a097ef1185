/**
 * An exchange's journal line, serialized straight from the Exchange: the text
 * `JSON.stringify(entryRecord(exchangeToEntry(x, { pageref })))` gives, byte for
 * byte, without building the entry's objects first.
 *
 * Why: on Node 20 JSON.stringify of an entry cost ~6 µs and building it ~2.5 µs,
 * most of it spent on the ~20–60 small `{name, value}` header objects, and the
 * recorder runs this on the event loop for every exchange (issue 17: recording
 * ≤ 10 µs per exchange). Concatenating strings of a known shape, with
 * JSON.stringify only for strings that need escaping and for rare parts (cookies,
 * postData, rules…), costs a fraction of that (bench/recording-cost.ts --breakdown).
 *
 * Staying identical to exchangeToEntry: the computations are entry.ts's own
 * (harTimings, headSize, harContent…); only the key order is repeated here, and
 * entry-line.test.ts compares the two on exchanges that set every optional field.
 * A value of a type the fast path does not expect (a missing string, say) throws
 * NotPlain and the line is made the generic way, so odd input never changes the output.
 */
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

/**
 * Raw headers as HAR's `[{"name":…,"value":…},…]`. Returns what the header lines
 * take in an HTTP/1.x head (name, ": ", value, CRLF), as entry.ts headSize counts them.
 */
function headersJson(o: JsonBytes, headers: RawHeaders): number {
  let size = 0;
  o.ascii('[');
  for (let i = 0; i < headers.length; i++) {
    const h = headers[i];
    o.ascii(i === 0 ? '{"name":' : ',{"name":');
    const name = o.str(h[0]);
    o.ascii(',"value":');
    const value = o.str(h[1]);
    o.ascii('}');
    // -1: escaped or non-ASCII, so its length is not its byte count.
    size += (name < 0 ? Buffer.byteLength(h[0]) : name) + (value < 0 ? Buffer.byteLength(h[1]) : value) + 4;
  }
  o.ascii(']');
  return size;
}

function nameValuesJson(o: JsonBytes, list: HarNameValue[]): void {
  o.ascii('[');
  for (let i = 0; i < list.length; i++) {
    o.ascii(i === 0 ? '{"name":' : ',{"name":');
    o.str(list[i].name);
    o.ascii(',"value":');
    o.str(list[i].value);
    o.ascii('}');
  }
  o.ascii(']');
}

function arrayJson(o: JsonBytes, a: unknown[]): void {
  if (a.length === 0) o.ascii('[]');
  else o.text(JSON.stringify(a));
}

function timingsJson(o: JsonBytes, t: HarTimings): void {
  o.ascii('{"blocked":');
  o.num(t.blocked);
  o.ascii(',"dns":');
  o.num(t.dns);
  o.ascii(',"connect":');
  o.num(t.connect);
  o.ascii(',"ssl":');
  o.num(t.ssl);
  o.ascii(',"send":');
  o.num(t.send);
  o.ascii(',"wait":');
  o.num(t.wait);
  o.ascii(',"receive":');
  o.num(t.receive);
  o.ascii('}');
}

function requestJson(o: JsonBytes, x: Exchange): void {
  const r = x.request;
  const version = harHttpVersion(r.httpVersion);
  o.ascii('{"method":');
  o.str(r.method);
  o.ascii(',"url":');
  o.str(r.url);
  o.ascii(',"httpVersion":');
  o.str(version);
  o.ascii(',"cookies":');
  arrayJson(o, requestCookies(r.headers));
  o.ascii(',"headers":');
  const headerBytes = headersJson(o, r.headers);
  // As entry.ts headSize (its start line only built for HTTP/1.x: requestTarget parses the URL).
  const headersSize = hasHead(r.httpVersion) ? Buffer.byteLength(`${r.method} ${requestTarget(x)} ${version}`) + 4 + headerBytes : -1;
  o.ascii(',"queryString":');
  nameValuesJson(o, queryString(r.url));
  o.ascii(',"headersSize":');
  o.num(headersSize);
  o.ascii(',"bodySize":');
  o.num(r.body.size);
  o.opt('postData', harPostData(r));
  o.ascii('}');
}

/** harContent's object, keys in the order harContent sets them. */
function contentJson(o: JsonBytes, c: HarContent): void {
  o.ascii('{"size":');
  o.num(c.size);
  o.ascii(',"mimeType":');
  o.str(c.mimeType);
  if (c.compression !== undefined) {
    o.ascii(',"compression":');
    o.num(c.compression);
  }
  if (c.text !== undefined) {
    o.ascii(',"text":');
    o.str(c.text);
  }
  if (c.encoding !== undefined) {
    o.ascii(',"encoding":');
    o.str(c.encoding);
  }
  o.opt('_truncated', c._truncated);
  o.opt('_capturedSize', c._capturedSize);
  o.opt('_decodingError', c._decodingError);
  o.ascii('}');
}

/**
 * `_clientTimings`, keys in the order computeClientTimings and newExchangeRecord set them
 * (a missing one throws NOT_PLAIN: the generic path then writes whatever the object has).
 */
function clientTimingsJson(o: JsonBytes, t: Exchange['clientTimings']): void {
  if (!t) throw NOT_PLAIN;
  o.ascii(',"_clientTimings":{"receiveRequest":');
  o.num(t.receiveRequest);
  o.ascii(',"proxyOverhead":');
  o.num(t.proxyOverhead);
  o.ascii(',"respond":');
  o.num(t.respond);
  o.ascii(',"total":');
  o.num(t.total);
  o.ascii('}');
}

/** exchangeToEntry's response when none arrived. */
const NO_RESPONSE =
  '{"status":0,"statusText":"","httpVersion":"","cookies":[],"headers":[],"content":{"size":0,"mimeType":"x-unknown"},' +
  '"redirectURL":"","headersSize":-1,"bodySize":-1,"_transferSize":0}';

function responseJson(o: JsonBytes, x: Exchange): void {
  const r = x.response;
  if (!r) return o.ascii(NO_RESPONSE);
  const version = harHttpVersion(r.httpVersion);
  o.ascii('{"status":');
  o.num(r.status);
  o.ascii(',"statusText":');
  o.str(r.statusText);
  o.ascii(',"httpVersion":');
  o.str(version);
  o.ascii(',"cookies":');
  arrayJson(o, responseCookies(r.headers, x.startedDateTime));
  o.ascii(',"headers":');
  const headerBytes = headersJson(o, r.headers);
  const headersSize = hasHead(r.httpVersion) ? Buffer.byteLength(`${version} ${r.status} ${r.statusText}`) + 4 + headerBytes : -1;
  o.ascii(',"content":');
  contentJson(o, harContent(x));
  o.ascii(',"redirectURL":');
  o.str(header(r.headers, 'location') ?? '');
  o.ascii(',"headersSize":');
  o.num(headersSize);
  o.ascii(',"bodySize":');
  o.num(r.body.size);
  o.ascii(',"_transferSize":');
  o.num((headersSize > 0 ? headersSize : 0) + r.body.size);
  o.ascii('}');
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

/** The line the fast way; throws NOT_PLAIN on a value of an unexpected type. Key order is exchangeToEntry's. */
function fastEntryLine(o: JsonBytes, x: Exchange, pageref: string | undefined): void {
  const timings = harTimings(x);
  const started = Date.parse(x.startedDateTime);
  o.ascii('{"t":"entry","s":');
  o.num(Number.isNaN(started) ? 0 : started);
  o.ascii(',"entry":{');
  if (pageref) {
    o.ascii('"pageref":');
    o.str(pageref);
    o.ascii(',');
  }
  o.ascii('"startedDateTime":');
  o.str(x.startedDateTime);
  o.ascii(',"time":');
  o.num(timeOf(timings));
  o.ascii(',"request":');
  requestJson(o, x);
  o.ascii(',"response":');
  responseJson(o, x);
  o.ascii(',"cache":{},"timings":');
  timingsJson(o, timings);
  if (x.serverIPAddress) {
    o.ascii(',"serverIPAddress":');
    o.str(x.serverIPAddress.replace(/^\[|\]$/g, ''));
  }
  if (x.upstreamConnectionId) {
    o.ascii(',"connection":');
    o.str(x.upstreamConnectionId);
  }
  o.ascii(',"_exchangeId":');
  o.str(x.id);
  o.ascii(',"_clientConnection":');
  o.str(x.clientConnectionId);
  o.ascii(',"_connectionId":');
  o.str(x.clientConnectionId);
  o.ascii(',"_transport":');
  o.str(x.transport);
  o.ascii(x.transport === 'intercepted' ? ',"_interception":true' : ',"_interception":false');
  o.ascii(',"_clientProtocol":');
  o.str(x.clientProtocol);
  if (x.upstreamProtocol) {
    o.ascii(',"_upstreamProtocol":');
    o.str(x.upstreamProtocol);
  }
  clientTimingsJson(o, x.clientTimings);
  o.ascii(',"_nagle":');
  o.bool(x.nagle);
  o.ascii(',"_retries":');
  o.num(x.retries);
  if (x.upstreamConnectionNew !== undefined) {
    o.ascii(',"_upstreamConnectionNew":');
    o.bool(x.upstreamConnectionNew);
  }
  if (x.tunnelBytes) o.opt('_tunnelBytes', { ...x.tunnelBytes });
  if (x.websocket) o.ascii(',"_websocket":true');
  if (x.replayed !== undefined) o.opt('_replayed', x.replayed);
  if (x.rules?.length)
    o.opt(
      '_rules',
      x.rules.map((r) => ({ ...r, actions: [...r.actions] })),
    );
  if (x.mocked) o.ascii(',"_mocked":true');
  if (x.breakpoint) o.opt('_breakpoint', { ...x.breakpoint });
  if (x.error) {
    o.opt('_error', x.error.message);
    o.opt('_errorCode', x.error.code);
    o.opt('_errorSide', x.error.side);
  }
  o.ascii('}}');
}
