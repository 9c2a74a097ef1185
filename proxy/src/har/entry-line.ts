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
  headSize,
  queryString,
  requestTarget,
  timeOf,
} from './entry.js';
import { entryRecord } from './journal.js';

/** Thrown when a value is not of the type the fast path expects: the caller serializes the generic way. */
class NotPlain extends Error {}
const NOT_PLAIN = new NotPlain('not a plain value');

/** Characters JSON.stringify escapes in a string (lone surrogates included: any surrogate goes the slow way). */
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;
/** Longer strings go to JSON.stringify directly: its scan runs in C++ and wins on long text. */
const SHORT = 128;

/** A JSON string literal, as JSON.stringify writes it. */
function str(s: unknown): string {
  if (typeof s !== 'string') throw NOT_PLAIN;
  return s.length > SHORT || NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : '"' + s + '"';
}

/** A JSON number, as JSON.stringify writes it (non-finite → null). */
function num(n: unknown): string {
  if (typeof n !== 'number') throw NOT_PLAIN;
  return Number.isFinite(n) ? '' + n : 'null';
}

function bool(b: unknown): string {
  if (typeof b !== 'boolean') throw NOT_PLAIN;
  return b ? 'true' : 'false';
}

/** `,"key":value` for a property that JSON.stringify writes when defined (any JSON value, the generic way). */
function opt(key: string, value: unknown): string {
  if (value === undefined) return '';
  const json = JSON.stringify(value);
  return json === undefined ? '' : ',"' + key + '":' + json;
}

/** Raw headers as HAR's `[{"name":…,"value":…},…]`. */
function headersJson(headers: RawHeaders): string {
  let out = '[';
  for (let i = 0; i < headers.length; i++) {
    const h = headers[i];
    out += (i === 0 ? '{"name":' : ',{"name":') + str(h[0]) + ',"value":' + str(h[1]) + '}';
  }
  return out + ']';
}

function nameValuesJson(list: HarNameValue[]): string {
  let out = '[';
  for (let i = 0; i < list.length; i++)
    out += (i === 0 ? '{"name":' : ',{"name":') + str(list[i].name) + ',"value":' + str(list[i].value) + '}';
  return out + ']';
}

const arrayJson = (a: unknown[]): string => (a.length === 0 ? '[]' : JSON.stringify(a));

function timingsJson(t: HarTimings): string {
  return (
    '{"blocked":' +
    num(t.blocked) +
    ',"dns":' +
    num(t.dns) +
    ',"connect":' +
    num(t.connect) +
    ',"ssl":' +
    num(t.ssl) +
    ',"send":' +
    num(t.send) +
    ',"wait":' +
    num(t.wait) +
    ',"receive":' +
    num(t.receive) +
    '}'
  );
}

function requestJson(x: Exchange): string {
  const r = x.request;
  const version = harHttpVersion(r.httpVersion);
  const headersSize = headSize(r.httpVersion, `${r.method} ${requestTarget(x)} ${version}`, r.headers);
  return (
    '{"method":' +
    str(r.method) +
    ',"url":' +
    str(r.url) +
    ',"httpVersion":' +
    str(version) +
    ',"cookies":' +
    arrayJson(requestCookies(r.headers)) +
    ',"headers":' +
    headersJson(r.headers) +
    ',"queryString":' +
    nameValuesJson(queryString(r.url)) +
    ',"headersSize":' +
    num(headersSize) +
    ',"bodySize":' +
    num(r.body.size) +
    opt('postData', harPostData(r)) +
    '}'
  );
}

/** harContent's object, keys in the order harContent sets them. */
function contentJson(c: HarContent): string {
  let out = '{"size":' + num(c.size) + ',"mimeType":' + str(c.mimeType);
  if (c.compression !== undefined) out += ',"compression":' + num(c.compression);
  if (c.text !== undefined) out += ',"text":' + str(c.text);
  if (c.encoding !== undefined) out += ',"encoding":' + str(c.encoding);
  return out + opt('_truncated', c._truncated) + opt('_capturedSize', c._capturedSize) + opt('_decodingError', c._decodingError) + '}';
}

/** exchangeToEntry's response when none arrived. */
const NO_RESPONSE =
  '{"status":0,"statusText":"","httpVersion":"","cookies":[],"headers":[],"content":{"size":0,"mimeType":"x-unknown"},' +
  '"redirectURL":"","headersSize":-1,"bodySize":-1,"_transferSize":0}';

function responseJson(x: Exchange): string {
  const r = x.response;
  if (!r) return NO_RESPONSE;
  const version = harHttpVersion(r.httpVersion);
  const headersSize = headSize(r.httpVersion, `${version} ${r.status} ${r.statusText}`, r.headers);
  return (
    '{"status":' +
    num(r.status) +
    ',"statusText":' +
    str(r.statusText) +
    ',"httpVersion":' +
    str(version) +
    ',"cookies":' +
    arrayJson(responseCookies(r.headers, x.startedDateTime)) +
    ',"headers":' +
    headersJson(r.headers) +
    ',"content":' +
    contentJson(harContent(x)) +
    ',"redirectURL":' +
    str(header(r.headers, 'location') ?? '') +
    ',"headersSize":' +
    num(headersSize) +
    ',"bodySize":' +
    num(r.body.size) +
    ',"_transferSize":' +
    num((headersSize > 0 ? headersSize : 0) + r.body.size) +
    '}'
  );
}

/** The journal line of an exchange (no newline): `{"t":"entry","s":…,"entry":{…}}`. */
export function entryLine(x: Exchange, pageref?: string): string {
  try {
    return fastEntryLine(x, pageref);
  } catch (err) {
    if (err !== NOT_PLAIN) throw err;
    return JSON.stringify(entryRecord(exchangeToEntry(x, { pageref })));
  }
}

/** The line the fast way; throws NOT_PLAIN on a value of an unexpected type. Key order is exchangeToEntry's. */
function fastEntryLine(x: Exchange, pageref: string | undefined): string {
  const timings = harTimings(x);
  const started = Date.parse(x.startedDateTime);
  let out =
    '{"t":"entry","s":' +
    num(Number.isNaN(started) ? 0 : started) +
    ',"entry":{' +
    (pageref ? '"pageref":' + str(pageref) + ',' : '') +
    '"startedDateTime":' +
    str(x.startedDateTime) +
    ',"time":' +
    num(timeOf(timings)) +
    ',"request":' +
    requestJson(x) +
    ',"response":' +
    responseJson(x) +
    ',"cache":{},"timings":' +
    timingsJson(timings);
  if (x.serverIPAddress) out += ',"serverIPAddress":' + str(x.serverIPAddress.replace(/^\[|\]$/g, ''));
  if (x.upstreamConnectionId) out += ',"connection":' + str(x.upstreamConnectionId);
  const client = str(x.clientConnectionId);
  out +=
    ',"_exchangeId":' +
    str(x.id) +
    ',"_clientConnection":' +
    client +
    ',"_connectionId":' +
    client +
    ',"_transport":' +
    str(x.transport) +
    ',"_interception":' +
    (x.transport === 'intercepted' ? 'true' : 'false') +
    ',"_clientProtocol":' +
    str(x.clientProtocol);
  if (x.upstreamProtocol) out += ',"_upstreamProtocol":' + str(x.upstreamProtocol);
  out += opt('_clientTimings', { ...x.clientTimings }) + ',"_nagle":' + bool(x.nagle) + ',"_retries":' + num(x.retries);
  if (x.upstreamConnectionNew !== undefined) out += ',"_upstreamConnectionNew":' + bool(x.upstreamConnectionNew);
  if (x.tunnelBytes) out += opt('_tunnelBytes', { ...x.tunnelBytes });
  if (x.websocket) out += ',"_websocket":true';
  if (x.replayed !== undefined) out += opt('_replayed', x.replayed);
  if (x.rules?.length)
    out += opt(
      '_rules',
      x.rules.map((r) => ({ ...r, actions: [...r.actions] })),
    );
  if (x.mocked) out += ',"_mocked":true';
  if (x.breakpoint) out += opt('_breakpoint', { ...x.breakpoint });
  if (x.error) out += opt('_error', x.error.message) + opt('_errorCode', x.error.code) + opt('_errorSide', x.error.side);
  return out + '}}';
}
