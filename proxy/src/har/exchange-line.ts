/**
 * An exchange's journal line: the exchange itself in a compact positional form,
 * `{"t":"x","d":"<startedDateTime>","x":[…]}`, written by the recorder on the event loop.
 * `d` comes first so a scan can index the line without parsing it (journal.ts); an entry
 * line's `s` is the start in epoch milliseconds, which here is left for the reader to
 * compute from `d` (0.4 µs per exchange on the event loop, in situ).
 * The HAR entry is made from it when the journal is read (entryFromExchangeRecord,
 * with entry.ts's exchangeToEntry: one place decides what an entry holds).
 *
 * Why not the HAR entry itself: writing the entry's JSON cost ~5.5 µs per
 * exchange even as hand-written bytes (entry-line.ts until 2026-11-26): ~45 keys,
 * `{"name":…,"value":…}` per header, cookies and query string parsed, head sizes
 * counted. Issue 17 asks recording on vs off to stay within 5% of the proxy's CPU
 * per request (~150 µs under load), and recording cost ~11 µs in situ. The compact
 * line is the exchange's own strings and numbers (~40% of the entry's bytes);
 * everything derived (cookies, query string, head sizes, HAR timings, IPv6
 * brackets) is computed on read, where stopping a recording pays it once.
 *
 * What is still done here: the response body becomes HAR `content` (and a request
 * body `postData`) at once, so a journal line never holds body bytes that need
 * more than JSON to read back (the session view reads lines with long strings cut,
 * see sessions/capped-json.ts, which works on the content's text as written).
 *
 * Layout of `x` (version 1; the reader refuses any other):
 *   [1, pageref|null, id, clientConnectionId, upstreamConnectionId|null,
 *    transport, clientProtocol, upstreamProtocol|null, nagle, retries, upstreamConnectionNew|null,
 *    serverIPAddress|null,
 *    [blocked, dns, connect, ssl, send, wait, receive, total],          the exchange's timings, as measured
 *    [receiveRequest, proxyOverhead, respond, total],                   its client timings
 *    method, url, request httpVersion, [name, value, name, value, …], request body size, postData|null,
 *    [status, statusText, httpVersion, [name, value, …], body size, content] | null,
 *    {tunnelBytes, websocket, replayed, rules, mocked, breakpoint, error} | null]   the rare fields, when set
 *
 * exchangeRecord builds that array; writeExchangeLine writes the same bytes as
 * JSON.stringify of it without building it (json-bytes.ts: keys pre-encoded, short
 * plain strings copied as they are checked; header pairs the same as in the last list
 * on their connection copied as the bytes written for them, see headersJson). A value of a type the fast path does
 * not expect throws NotPlain and the line is made the generic way, so odd input
 * never changes the output. exchange-line.test.ts holds both to that, and the
 * entry read back to exchangeToEntry of the exchange.
 */
import type { ClientTimings, Exchange, RawHeaders, Timings } from '../model.js';
import type { HarContent, HarEntry, HarPostData } from './types.js';
import { exchangeToEntry, harContent, harPostData } from './entry.js';
import { isHeaderName } from './header-name.js';
import { JsonBytes, NOT_PLAIN } from './json-bytes.js';
import { isTextMime } from './body.js';
import type { BodiesJson } from './content-job.js';

/** The layout version, first in every `x` array. */
export const EXCHANGE_LINE_VERSION = 1;

const bytes = (s: string): Buffer => Buffer.from(s, 'latin1');
const K_LINE_FIRST = bytes('{"t":"x","d":');
const K_X_VERSION = bytes(`,"x":[${EXCHANGE_LINE_VERSION},`);
const NULL_COMMA = bytes('null,');
const K_SIZE_FIRST = bytes('{"size":');
const K_MIMETYPE = bytes(',"mimeType":');
const K_COMPRESSION = bytes(',"compression":');
const K_TEXT = bytes(',"text":');
const K_ENCODING = bytes(',"encoding":');
const K_ENCODING_BASE64 = bytes(',"encoding":"base64"');
const CLOSE_LINE = bytes(']}');
const TRUE_COMMA = bytes('true,');
const FALSE_COMMA = bytes('false,');

/**
 * Plain-ASCII header names seen → their `"name",` bytes: names repeat from exchange
 * to exchange, and one lookup replaces copying the name char by char. Bounded.
 */
const NAME_KEYS = new Map<string, Buffer>();
const MAX_NAME_KEYS = 1024;

/** What bodyContentJson needs of a response's headers, noted while they are written (first of each, as header() finds). */
let contentType: string | undefined;
let contentEncoding: string | undefined;

/**
 * The last header list written for one connection (see REQUEST_MEMOS): its names and values, the bytes
 * written for them (what is between the list's brackets, `"name","value","name","value"`), and where each
 * pair ends in those bytes. The strings are copied out (they are immutable), never the list, so a list
 * changed after it was written cannot make a later one match bytes it no longer has.
 */
interface HeaderMemo {
  /** [name, value, name, value, …] of the list. */
  flat: string[];
  bytes: Buffer;
  /**
   * The list's bytes exactly (a view of `bytes`), made at its first whole-list match: copied with one TypedArray set,
   * where Buffer.copy of a part of `bytes` makes a view each time and checks its arguments in JavaScript.
   */
  whole: Uint8Array | undefined;
  /** ends[i]: the offset in `bytes` just past pair i's value; the comma before pair i + 1 is at ends[i]. */
  ends: number[];
  /** What noteContentHeaders noted of the list (a request's lists are not looked at: undefined). */
  contentType: string | undefined;
  contentEncoding: string | undefined;
}

/**
 * Per connection, the last request and the last response header list and their bytes. A connection's
 * exchanges mostly carry the same headers in the same places: a client's fixed set, where on HTTP/2 only
 * `:path` changes from request to request; a server's, where Content-Length, ETag or Date change. Each
 * pair equal to the pair in the same place of the last list is copied as the bytes written for it, a run
 * of such pairs in one native call; comparing strings and copying bytes costs a fraction of checking and
 * copying each string char by char (the headers were the largest item of an exchange line: 1.4–1.7 µs in
 * situ on HTTP/1.1, ~8 µs per HTTP/2 request, whose `:path` differed from the last list's every time and
 * so missed a memo of whole lists). A pair that differs is written as without a memo, so the bytes never
 * depend on the memo. Bounded: cleared when it holds MAX_HEADER_MEMOS connections.
 */
const REQUEST_MEMOS = new Map<string, HeaderMemo>();
const RESPONSE_MEMOS = new Map<string, HeaderMemo>();
const MAX_HEADER_MEMOS = 128;
/**
 * Lists longer than this (bytes) are not remembered: at most ~1.5 MiB held in all (two maps, 128 connections, the
 * bytes and the strings), whatever a client sends, for an app whose idle memory is held to 60 MB.
 */
const MAX_MEMO_BYTES = 2048;
/** Where each pair of the list being written ends (relative to its first pair), for the memo. */
const listEnds: number[] = [];

/**
 * Raw headers as `[name, value, name, value, …]`, pairs copied from the connection's memo in `memos` where
 * they are the same as there (undefined key: no memo). With `noteContent`, also notes the first Content-Type
 * and Content-Encoding (contentType, contentEncoding): one pass instead of two more.
 */
function headersJson(o: JsonBytes, headers: RawHeaders, noteContent: boolean, memos: Map<string, HeaderMemo>, key: unknown): void {
  const memo = typeof key === 'string' ? memos.get(key) : undefined;
  o.byte(91);
  const listStart = o.pos;
  const n = headers.length;
  const flat = memo?.flat;
  // Pairs the memo can match by place; the rest are written.
  const known = memo === undefined ? 0 : Math.min(n, memo.ends.length);
  // The pairs before the first that differs from the memo's are copied in one go; the same list, with what it noted.
  let i = 0;
  if (memo !== undefined) {
    while (i < known && headers[i][0] === flat![2 * i] && headers[i][1] === flat![2 * i + 1]) i++;
    if (i === n && n === memo.ends.length) {
      const whole = (memo.whole ??= memo.bytes.subarray(0, n === 0 ? 0 : memo.ends[n - 1]));
      o.room(whole.length + 1);
      o.buf.set(whole, o.pos);
      o.pos += whole.length;
      o.byte(93);
      if (noteContent) {
        contentType = memo.contentType;
        contentEncoding = memo.contentEncoding;
      }
      return;
    }
    if (i > 0) copyRun(o, memo, 0, i, listStart);
  }
  // From there on, each pair the same as the memo's in its place is copied, a run at a time; the others are written.
  // The first pair of the current run of pairs equal to the memo's (-1: none).
  let run = -1;
  for (; i < n; i++) {
    const h = headers[i];
    const name = h[0];
    const value = h[1];
    if (i < known && name === flat![2 * i] && value === flat![2 * i + 1]) {
      if (run < 0) run = i;
      continue;
    }
    if (run >= 0) {
      copyRun(o, memo!, run, i, listStart);
      run = -1;
    }
    if (i > 0) o.byte(44);
    pairJson(o, name, value);
    listEnds[i] = o.pos - listStart;
  }
  if (run >= 0) copyRun(o, memo!, run, n, listStart);
  const length = o.pos - listStart;
  o.byte(93);
  if (noteContent) noteContentHeaders(headers);
  if (typeof key !== 'string' || length > MAX_MEMO_BYTES) return;
  remember(memos, key, memo, headers, o.buf, listStart, length, noteContent);
}

/** Notes the first Content-Type and Content-Encoding of `headers` (contentType, contentEncoding), as header() finds them. */
function noteContentHeaders(headers: RawHeaders): void {
  contentType = contentEncoding = undefined;
  for (let i = 0; i < headers.length; i++) {
    const name = headers[i][0];
    // Lengths first: most names are neither (isHeaderName checks the length too, but this skips the call).
    if (name.length === 12 && contentType === undefined && isHeaderName(name, 'content-type')) contentType = headers[i][1];
    else if (name.length === 16 && contentEncoding === undefined && isHeaderName(name, 'content-encoding')) contentEncoding = headers[i][1];
  }
}

/** Copies pairs `from` to `to` - 1 of the memo (with the comma before `from` unless it is the first), noting where each ends. */
function copyRun(o: JsonBytes, memo: HeaderMemo, from: number, to: number, listStart: number): void {
  const start = from === 0 ? 0 : memo.ends[from - 1];
  const end = memo.ends[to - 1];
  o.room(end - start);
  const shift = o.pos - listStart - start;
  o.pos += memo.bytes.copy(o.buf, o.pos, start, end);
  for (let j = from; j < to; j++) listEnds[j] = memo.ends[j] + shift;
}

/** `"name","value"`: a name seen before as the bytes written for it then. */
function pairJson(o: JsonBytes, name: string, value: string): void {
  const key = typeof name === 'string' ? NAME_KEYS.get(name) : undefined;
  if (key === undefined) {
    const start = o.pos;
    const n = o.str(name);
    o.byte(44);
    if (n >= 0 && NAME_KEYS.size < MAX_NAME_KEYS) NAME_KEYS.set(name, Buffer.from(o.buf.subarray(start, o.pos)));
  } else o.lit(key);
  o.str(value);
}

/** Makes the list just written (`length` bytes of `buf` from `start`, pairs ending at listEnds) the connection's memo. */
function remember(
  memos: Map<string, HeaderMemo>,
  key: string,
  memo: HeaderMemo | undefined,
  headers: RawHeaders,
  buf: Buffer,
  start: number,
  length: number,
  noted: boolean,
): void {
  // allocUnsafeSlow: a memo's bytes of its own, not a slice of Node's shared 8 KiB pool that would keep the whole pool alive.
  if (memo === undefined) {
    if (memos.size >= MAX_HEADER_MEMOS) memos.clear();
    memo = {
      flat: [],
      bytes: Buffer.allocUnsafeSlow(Math.max(length, 256)),
      whole: undefined,
      ends: [],
      contentType: undefined,
      contentEncoding: undefined,
    };
    memos.set(key, memo);
  } else if (memo.bytes.length < length) memo.bytes = Buffer.allocUnsafeSlow(Math.max(length, memo.bytes.length * 2));
  buf.copy(memo.bytes, 0, start, start + length);
  memo.whole = undefined;
  memo.contentType = noted ? contentType : undefined;
  memo.contentEncoding = noted ? contentEncoding : undefined;
  const n = headers.length;
  const flat = memo.flat;
  const ends = memo.ends;
  flat.length = 2 * n;
  ends.length = n;
  for (let i = 0; i < n; i++) {
    flat[2 * i] = headers[i][0];
    flat[2 * i + 1] = headers[i][1];
    ends[i] = listEnds[i];
  }
}

/** A string, or null for undefined (the fields the layout allows to be absent); then a comma. */
function optStr(o: JsonBytes, s: string | undefined): void {
  if (s === undefined) o.lit(NULL_COMMA);
  else {
    o.str(s);
    o.byte(44);
  }
}

function strComma(o: JsonBytes, s: unknown): void {
  o.str(s);
  o.byte(44);
}

/** What a request and a response share after their first field: `text,version,[headers],size,`. */
function messageTailJson(
  o: JsonBytes,
  text: unknown,
  version: unknown,
  headers: RawHeaders,
  noteContent: boolean,
  size: number,
  memos: Map<string, HeaderMemo>,
  connection: unknown,
): void {
  strComma(o, text);
  strComma(o, version);
  headersJson(o, headers, noteContent, memos, connection);
  o.byte(44);
  numComma(o, size);
}

function numComma(o: JsonBytes, n: number): void {
  o.num(n);
  o.byte(44);
}

/**
 * `[blocked,dns,connect,ssl,send,wait,receive,total],`: TIMING_KEYS's order. Each property read by name: a loop over
 * the keys made one keyed load site see eight names, a generic lookup each time (~5% of the line in a profile).
 */
function timingsJson(o: JsonBytes, t: Timings): void {
  o.byte(91);
  numComma(o, t.blocked);
  numComma(o, t.dns);
  numComma(o, t.connect);
  numComma(o, t.ssl);
  lastFourJson(o, t.send, t.wait, t.receive, t.total);
}

/** `[receiveRequest,proxyOverhead,respond,total],`: CLIENT_TIMING_KEYS's order (see timingsJson). */
function clientTimingsJson(o: JsonBytes, t: ClientTimings): void {
  o.byte(91);
  lastFourJson(o, t.receiveRequest, t.proxyOverhead, t.respond, t.total);
}

/** `a,b,c,d],`: the last four numbers of a list and its end. */
function lastFourJson(o: JsonBytes, a: number, b: number, c: number, d: number): void {
  numComma(o, a);
  numComma(o, b);
  numComma(o, c);
  o.num(d);
  o.byte(93);
  o.byte(44);
}

function boolComma(o: JsonBytes, b: unknown): void {
  if (b === true) o.lit(TRUE_COMMA);
  else if (b === false) o.lit(FALSE_COMMA);
  else throw NOT_PLAIN;
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
 * harContent's object for the common case, written from the body's bytes: a whole (not truncated), not
 * content-encoded body gives `{size, mimeType, text}` with `text` the body decoded when its MIME type is
 * text and it is valid UTF-8 without binary control characters, else `{size, mimeType, text, encoding}`
 * with the body in base64 (body.ts bodyText). Returns false, having written nothing, for every other body
 * (and for a blank MIME type, where bodyText looks at the bytes): the caller then writes harContent's
 * object. Call right after headersJson wrote the response's headers (it reads what that noted).
 *
 * Why base64 here too: a page's images are most of its requests, and harContent's way (the header looked
 * up twice more, a decoded-body object, a content object, the base64 string checked char by char for
 * escapes it cannot hold) cost more than the base64 itself.
 */
function bodyContentJson(o: JsonBytes, x: Exchange): boolean {
  const body = x.response!.body;
  const data = body.bytes;
  // The response's Content-Type and Content-Encoding, as headersJson noted them just before.
  if (body.truncated || !(data.length > 0) || contentEncoding !== undefined) return false;
  const mimeType = contentType ?? 'x-unknown';
  const text = isTextMime(mimeType);
  if (!text && mimeType.trim() === '') return false;
  o.lit(K_SIZE_FIRST);
  o.num(body.size);
  o.lit(K_MIMETYPE);
  o.str(mimeType);
  o.lit(K_TEXT);
  // o.utf8 writes nothing for bytes that are not UTF-8 or hold a binary control character: the body then goes as
  // base64, as in bodyText.
  if (!(text && o.utf8(data))) {
    const b64 = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
    // The base64 alphabet is plain ASCII with nothing JSON escapes: no check needed.
    o.room(b64.length + 2);
    o.byte(34);
    o.pos += o.buf.write(b64, o.pos, 'latin1');
    o.byte(34);
    o.lit(K_ENCODING_BASE64);
  }
  o.byte(125);
  return true;
}

/** The rare fields, as the layout's last element (undefined when none is set: the line has null). */
function extras(x: Exchange): Record<string, unknown> | undefined {
  if (!x.tunnelBytes && !x.websocket && x.replayed === undefined && !x.rules?.length && !x.mocked && !x.breakpoint && !x.error)
    return undefined;
  const e: Record<string, unknown> = {};
  if (x.tunnelBytes) e.tunnelBytes = { up: x.tunnelBytes.up, down: x.tunnelBytes.down };
  if (x.websocket) e.websocket = true;
  if (x.replayed !== undefined) e.replayed = x.replayed;
  if (x.rules?.length) e.rules = x.rules.map((r) => ({ ...r, actions: [...r.actions] }));
  if (x.mocked) e.mocked = true;
  if (x.breakpoint) e.breakpoint = { ...x.breakpoint };
  if (x.error) e.error = { code: x.error.code, message: x.error.message, side: x.error.side };
  return e;
}

const TIMING_KEYS = ['blocked', 'dns', 'connect', 'ssl', 'send', 'wait', 'receive', 'total'] as const;
const CLIENT_TIMING_KEYS = ['receiveRequest', 'proxyOverhead', 'respond', 'total'] as const;

const flat = (headers: RawHeaders): string[] => headers.flatMap(([name, value]) => [name, value]);

/** The `x` array of an exchange's line, built (the generic path; writeExchangeLine writes its JSON directly). */
export function exchangeRecord(x: Exchange, pageref?: string, bodies?: BodiesJson): unknown[] {
  const r = x.request;
  const s = x.response;
  return [
    EXCHANGE_LINE_VERSION,
    pageref ?? null,
    x.id,
    x.clientConnectionId,
    x.upstreamConnectionId ?? null,
    x.transport,
    x.clientProtocol,
    x.upstreamProtocol ?? null,
    x.nagle,
    x.retries,
    x.upstreamConnectionNew ?? null,
    x.serverIPAddress ?? null,
    TIMING_KEYS.map((k) => x.timings[k]),
    CLIENT_TIMING_KEYS.map((k) => x.clientTimings?.[k]),
    r.method,
    r.url,
    r.httpVersion,
    flat(r.headers),
    r.body.size,
    bodies?.postData ? parsed(bodies.postData) : (harPostData(r) ?? null),
    s
      ? [s.status, s.statusText, s.httpVersion, flat(s.headers), s.body.size, bodies?.content ? parsed(bodies.content) : harContent(x)]
      : null,
    extras(x) ?? null,
  ];
}

/** A body's JSON made by a job: copied into the line, or its place noted in `marks` (exchangeLinePieces). */
function insert(o: JsonBytes, json: Uint8Array, marks: number[] | undefined): void {
  if (marks) marks.push(o.pos);
  else o.lit(json);
}

/** JSON a body job made, as the object it was made from (the generic path, for exchanges of unexpected shape). */
const parsed = (json: Uint8Array): unknown => JSON.parse(Buffer.from(json.buffer, json.byteOffset, json.byteLength).toString('utf8'));

/** The line's object, built (the generic path). */
const exchangeLineRecord = (x: Exchange, pageref?: string, bodies?: BodiesJson): object => ({
  t: 'x',
  d: x.startedDateTime,
  x: exchangeRecord(x, pageref, bodies),
});

/**
 * Appends the journal line of an exchange (no newline) to `o`: `{"t":"x","d":…,"x":[…]}`. `bodies`: the JSON of its
 * large or compressed bodies, made beforehand off the event loop's critical path (content-job.ts).
 * On an error nothing is appended and the error is thrown.
 */
export function writeExchangeLine(o: JsonBytes, x: Exchange, pageref?: string, bodies?: BodiesJson): void {
  const start = o.pos;
  try {
    fastExchangeLine(o, x, pageref, bodies);
  } catch (err) {
    o.pos = start;
    if (err !== NOT_PLAIN) throw err;
    o.text(JSON.stringify(exchangeLineRecord(x, pageref, bodies)));
  }
}

const scratch = new JsonBytes();

/** The journal line of an exchange as a string (no newline); the recorder writes bytes with writeExchangeLine. */
export function exchangeLine(x: Exchange, pageref?: string): string {
  scratch.reset();
  writeExchangeLine(scratch, x, pageref);
  return scratch.bytes().toString('utf8');
}

/**
 * The journal line of an exchange whose bodies' JSON a job made, as the pieces to write one after the other: the
 * line's own bytes around the bodies, and each body's JSON as it is. The same bytes as writeExchangeLine with
 * `bodies` and a newline, without copying 16 MiB of body into a line buffer (~7 ms at once, fresh pages faulted in).
 */
export function exchangeLinePieces(x: Exchange, pageref: string | undefined, bodies: BodiesJson): Uint8Array[] {
  const o = new JsonBytes(4096);
  const marks: number[] = [];
  try {
    fastExchangeLine(o, x, pageref, bodies, marks);
  } catch (err) {
    if (err !== NOT_PLAIN) throw err;
    o.reset();
    o.text(JSON.stringify(exchangeLineRecord(x, pageref, bodies)));
    marks.length = 0;
  }
  o.byte(10);
  const line = o.bytes();
  // The bodies go where they were marked, in the line's order: the request's first.
  const inserted = [bodies.postData, bodies.content].filter((b) => b !== undefined);
  const pieces: Uint8Array[] = [];
  let from = 0;
  marks.forEach((at, i) => {
    pieces.push(line.subarray(from, at), inserted[i]);
    from = at;
  });
  pieces.push(line.subarray(from));
  return pieces;
}

/**
 * The line the fast way; throws NOT_PLAIN on a value of an unexpected type. Order is exchangeRecord's. With
 * `marks`, a body's JSON from `bodies` is not written: where it goes is pushed instead (exchangeLinePieces).
 */
function fastExchangeLine(o: JsonBytes, x: Exchange, pageref: string | undefined, bodies: BodiesJson | undefined, marks?: number[]): void {
  o.lit(K_LINE_FIRST);
  o.str(x.startedDateTime);
  o.lit(K_X_VERSION);
  optStr(o, pageref);
  strComma(o, x.id);
  strComma(o, x.clientConnectionId);
  optStr(o, x.upstreamConnectionId);
  strComma(o, x.transport);
  strComma(o, x.clientProtocol);
  optStr(o, x.upstreamProtocol);
  boolComma(o, x.nagle);
  numComma(o, x.retries);
  if (x.upstreamConnectionNew === undefined) o.lit(NULL_COMMA);
  else boolComma(o, x.upstreamConnectionNew);
  optStr(o, x.serverIPAddress);
  timingsJson(o, x.timings);
  if (!x.clientTimings) throw NOT_PLAIN;
  clientTimingsJson(o, x.clientTimings);
  const r = x.request;
  strComma(o, r.method);
  messageTailJson(o, r.url, r.httpVersion, r.headers, false, r.body.size, REQUEST_MEMOS, x.clientConnectionId);
  if (r.body.size > 0 && bodies?.postData) insert(o, bodies.postData, marks);
  else if (r.body.size > 0) {
    const post = harPostData(r);
    if (post) o.text(JSON.stringify(post));
    else o.ascii('null');
  } else o.ascii('null');
  o.byte(44);
  const s = x.response;
  if (!s) o.ascii('null');
  else {
    o.byte(91);
    numComma(o, s.status);
    messageTailJson(
      o,
      s.statusText,
      s.httpVersion,
      s.headers,
      true,
      s.body.size,
      RESPONSE_MEMOS,
      x.upstreamConnectionId ?? x.clientConnectionId,
    );
    if (bodies?.content) insert(o, bodies.content, marks);
    else if (!bodyContentJson(o, x)) contentJson(o, harContent(x));
    o.byte(93);
  }
  o.byte(44);
  const e = extras(x);
  if (e) o.text(JSON.stringify(e));
  else o.ascii('null');
  o.lit(CLOSE_LINE);
}

// ---- reading -------------------------------------------------------------------------------

/** Thrown for an `x` array that is not a layout this version reads: the journal reader counts the line as damaged. */
export class BadExchangeRecord extends Error {}

function bad(what: string): never {
  throw new BadExchangeRecord(`a journal exchange record is not in layout ${EXCHANGE_LINE_VERSION}: ${what}`);
}

/*
 * Values are taken as written, not checked: the writer wrote them from an Exchange, and exchangeToEntry
 * makes of them what it made of the exchange (a reader that meets a line it cannot convert counts it as
 * damaged). What JSON cannot hold comes back as the writer's JSON left it: undefined was written as null
 * and is undefined again; a number that was not finite was written as null and is NaN again.
 */
const orUndefined = <T>(v: T | null): T | undefined => (v === null ? undefined : v);
const orNaN = (v: unknown): number => (v === null ? NaN : (v as number));

function headersOf(v: unknown): RawHeaders {
  if (!Array.isArray(v) || v.length % 2 !== 0) bad('headers are not a list of names and values');
  const out: RawHeaders = [];
  for (let i = 0; i < v.length; i += 2) out.push([v[i], v[i + 1]]);
  return out;
}

function numbers<K extends string>(v: unknown, keys: readonly K[]): Record<K, number> {
  if (!Array.isArray(v) || v.length !== keys.length) bad(`timings are not a list of ${keys.length} numbers`);
  const out = {} as Record<K, number>;
  keys.forEach((k, i) => (out[k] = orNaN(v[i])));
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The rare fields an exchange line can carry (extras()): nothing else of the object is taken. */
function extrasOf(v: unknown): Partial<Exchange> {
  if (v === null) return {};
  if (!isObject(v)) bad('the rare fields are not an object');
  const out: Partial<Exchange> = {};
  if (v.tunnelBytes !== undefined) out.tunnelBytes = v.tunnelBytes as Exchange['tunnelBytes'];
  if (v.websocket !== undefined) out.websocket = v.websocket as boolean;
  if (v.replayed !== undefined) out.replayed = v.replayed as boolean;
  if (v.rules !== undefined) out.rules = v.rules as Exchange['rules'];
  if (v.mocked !== undefined) out.mocked = v.mocked as boolean;
  if (v.breakpoint !== undefined) out.breakpoint = v.breakpoint as Exchange['breakpoint'];
  if (v.error !== undefined) out.error = v.error as Exchange['error'];
  return out;
}

const NO_BYTES = new Uint8Array(0);

/**
 * The HAR entry of an exchange line (parsed): what exchangeToEntry gave for the exchange
 * when it was recorded. Throws BadExchangeRecord for an `x` array of another layout.
 */
export function entryFromExchangeRecord(record: { d?: unknown; x?: unknown }): HarEntry {
  const a = record.x;
  if (!Array.isArray(a) || a.length !== 22 || a[0] !== EXCHANGE_LINE_VERSION) bad('not an array of 22 values that starts with 1');
  const post = a[19];
  if (post !== null && !isObject(post)) bad('postData is not an object or null');
  const res = a[20];
  let content: HarContent | undefined;
  let response: Exchange['response'];
  if (res !== null) {
    if (!Array.isArray(res) || res.length !== 6 || !isObject(res[5])) bad('the response is not a list of 6 values ending in content');
    content = res[5] as unknown as HarContent;
    response = {
      status: orNaN(res[0]),
      statusText: orUndefined(res[1]),
      httpVersion: orUndefined(res[2]),
      headers: headersOf(res[3]),
      body: { size: orNaN(res[4]), bytes: NO_BYTES, truncated: false },
    };
  }
  const x: Exchange = {
    id: orUndefined(a[2]),
    clientConnectionId: orUndefined(a[3]),
    upstreamConnectionId: orUndefined(a[4]),
    startedDateTime: orUndefined(record.d as string | null) as string,
    transport: orUndefined(a[5]),
    clientProtocol: orUndefined(a[6]),
    upstreamProtocol: orUndefined(a[7]),
    nagle: orUndefined(a[8]),
    retries: orNaN(a[9]),
    upstreamConnectionNew: orUndefined(a[10]),
    serverIPAddress: orUndefined(a[11]),
    timestamps: { start: 0 },
    timings: numbers(a[12], TIMING_KEYS) as Timings,
    clientTimings: numbers(a[13], CLIENT_TIMING_KEYS) as ClientTimings,
    request: {
      method: orUndefined(a[14]),
      url: orUndefined(a[15]),
      httpVersion: orUndefined(a[16]),
      headers: headersOf(a[17]),
      body: { size: orNaN(a[18]), bytes: NO_BYTES, truncated: false },
    },
    response,
    ...extrasOf(a[21]),
  };
  return exchangeToEntry(x, { pageref: orUndefined(a[1]), content, postData: orUndefined(post as HarPostData | null) });
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
