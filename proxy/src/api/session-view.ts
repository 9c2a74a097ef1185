/**
 * HAR entries of an opened session → the contract's rows and details, with
 * every string cut to a size a page can show. A HAR is input from anywhere: a
 * 95 MiB header, a 95 MiB URL or 100,000 headers must reach the page as a row
 * and a marked, cut value, never as a 100 M character string in the DOM.
 *
 * Cuts are marked (`FieldCut`: full size and shown size in UTF-8 bytes) so the
 * page says so and can fetch the whole value in chunks (`sessionFieldChunk`);
 * the stored session is never changed, so export still gives every byte.
 */
import type { ExchangeDetail, ExchangeSummary, FieldCut, HeaderList, PhaseTimings, SessionField, SessionFieldChunk, SessionPage } from './contract.js';
import type { HarEntry, HarPage } from './har-types.js';
import { postDataText } from './body-view.js';
import { splitCut } from '../sessions/capped-json.js';

/** URL kept in a row (the list shows one line of it; Details shows up to FIELD_CAP). */
export const ROW_URL_CAP = 2048;
/** Other short strings of a row (method, status text, MIME type, error message…). */
export const ROW_TEXT_CAP = 256;
/** One header name or value, or the URL, in Details. */
export const FIELD_CAP = 64 * 1024;
/** All header text of one Details answer; once spent, values are cut to FIELD_MIN. */
export const DETAIL_BUDGET = 2 * 1024 * 1024;
const FIELD_MIN = 1024;
/** Headers listed per side in Details; the rest are counted (`headersOmitted`). */
export const HEADER_COUNT_CAP = 1000;
/** Characters per `getSessionField` answer (a multiple of 4: base64 chunks hold whole groups). */
export const FIELD_CHUNK = 16 * 1024 * 1024;
/**
 * Bytes of each string kept when an entry is read for rows or Details (the rest is
 * only counted): enough for FIELD_CAP characters even if every one is a 6-byte escape.
 */
export const READ_CAP = 6 * FIELD_CAP;

const num = (n: unknown, fallback = -1): number => (typeof n === 'number' && Number.isFinite(n) ? n : fallback);
/** A string as read (possibly cut while reading, see READ_CAP), anything else as text. */
const raw = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
/** The same without the cut marker. */
const text = (v: unknown): string => splitCut(raw(v)).text;
const obj = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/**
 * Cut at `cap` UTF-16 units, never inside a surrogate pair. The result is a copy:
 * V8's `slice` of a long string keeps the whole original alive, so a 64 KiB cut
 * of a 95 MiB header would hold all 95 MiB for as long as the cut lives.
 */
function slice(s: string, cap: number): string {
  if (s.length <= cap) return s;
  const end = cap > 0 && s.charCodeAt(cap - 1) >= 0xd800 && s.charCodeAt(cap - 1) <= 0xdbff ? cap - 1 : cap;
  return Buffer.from(s.slice(0, end), 'utf16le').toString('utf16le');
}

/** `value` cut to `cap` characters, with the cut described when there was one (here or while reading). */
export function cutText(value: string, cap: number): { text: string; cut?: FieldCut } {
  const { text: s, fullBytes } = splitCut(value);
  if (fullBytes === undefined && s.length <= cap) return { text: s };
  const shown = slice(s, cap);
  return { text: shown, cut: { fullBytes: fullBytes ?? Buffer.byteLength(s), shownBytes: Buffer.byteLength(shown) } };
}

/** A short string for a row: cut with an ellipsis (no size kept; the row is not where it is read). */
function short(v: unknown, cap = ROW_TEXT_CAP): string {
  const s = text(v);
  return s.length <= cap ? s : `${slice(s, cap)}…`;
}

/** `HTTP/2.0`, `h2` → `h2`; `HTTP/1.1` → `http/1.1` (the renderer's normalizeProtocol). */
function protocolOf(v: unknown): string {
  const s = short(v, 32).trim().toLowerCase();
  if (s === 'h2' || s === 'http/2' || s === 'http/2.0') return 'h2';
  if (s === 'h3' || s === 'http/3' || s === 'http/3.0') return 'h3';
  return s || '–';
}

function splitUrl(url: string): { host: string; path: string } {
  try {
    const u = new URL(url);
    return { host: short(u.host), path: u.pathname + u.search };
  } catch {
    return { host: '', path: url };
  }
}

function nameValues(v: unknown): Array<Record<string, unknown>> {
  return Array.isArray(v) ? v.map(obj) : [];
}

function mimeOf(res: Record<string, unknown>): string {
  const fromContent = text(obj(res.content).mimeType);
  let fromHeader = '';
  for (const h of nameValues(res.headers)) {
    if (text(h.name).toLowerCase() === 'content-type') {
      fromHeader = short(h.value, 1024);
      break;
    }
  }
  return short((fromContent.slice(0, 1024) || fromHeader).split(';')[0]!.trim().toLowerCase());
}

function timingsOf(e: Record<string, unknown>): PhaseTimings {
  const t = obj(e.timings);
  return {
    blocked: num(t.blocked),
    dns: num(t.dns),
    connect: num(t.connect),
    ssl: num(t.ssl),
    send: num(t.send, 0),
    wait: num(t.wait, 0),
    receive: num(t.receive, 0),
  };
}

/** Row `h<i>` of a session: what the Traffic list and the Waterfall need, every string bounded. */
export function sessionRow(entry: HarEntry, index: number): ExchangeSummary {
  const e = obj(entry);
  const req = obj(e.request);
  const res = obj(e.response);
  const content = obj(res.content);
  const url = cutText(raw(req.url), ROW_URL_CAP);
  const status = num(res.status, 0);
  const errorText = typeof res._error === 'string' && res._error ? res._error : typeof e._error === 'string' && e._error ? e._error : undefined;
  const failed = status === 0 || Boolean(errorText);
  const errorCode = typeof e._errorCode === 'string' ? short(e._errorCode, 64) : 'HAR_ERROR';
  const transfer = num(res._transferSize, NaN);
  const bodySize = num(res.bodySize);
  const responseSize = Number.isFinite(transfer) && transfer >= 0 ? transfer : bodySize >= 0 ? bodySize : num(content.size);
  const postText = obj(req.postData).text;
  const postBytes = typeof postText === 'string' ? (splitCut(postText).fullBytes ?? Buffer.byteLength(postText)) : 0;
  const requestSize = num(req.bodySize) >= 0 ? num(req.bodySize) : postBytes;
  const started = short(e.startedDateTime, 64);
  const startTime = Date.parse(started);
  return {
    id: `h${index}`,
    startedDateTime: started,
    startTime: Number.isFinite(startTime) ? startTime : 0,
    method: short(req.method, 64) || 'GET',
    url: url.text,
    ...(url.cut ? { urlCut: url.cut } : {}),
    ...splitUrl(url.text),
    status: status || undefined,
    statusText: typeof res.statusText === 'string' ? short(res.statusText) : undefined,
    mimeType: mimeOf(res),
    resourceType: typeof e._resourceType === 'string' ? short(e._resourceType, 64) : undefined,
    protocol: protocolOf(res.httpVersion || req.httpVersion),
    transport: typeof e._transport === 'string' ? (short(e._transport, 32) as ExchangeSummary['transport']) : undefined,
    requestSize,
    responseSize,
    duration: num(e.time),
    timings: timingsOf(e),
    state: failed ? 'error' : 'complete',
    error: failed ? { code: errorCode, message: short(errorText ?? 'No response (status 0)', 1024) } : undefined,
    connection: e.connection !== undefined && e.connection !== null ? short(e.connection) : undefined,
    serverIPAddress: typeof e.serverIPAddress === 'string' && e.serverIPAddress ? short(e.serverIPAddress) : undefined,
  };
}

/** Header lists cut to the caps; `budget` is shared by both sides of one answer. */
function headerList(v: unknown, budget: { left: number }): { headers: HeaderList; omitted: number } {
  const all = nameValues(v);
  const headers: HeaderList = [];
  for (const h of all.slice(0, HEADER_COUNT_CAP)) {
    const cap = () => Math.max(FIELD_MIN, Math.min(FIELD_CAP, budget.left));
    const name = cutText(raw(h.name), cap());
    budget.left -= name.text.length;
    const value = cutText(raw(h.value), cap());
    budget.left -= value.text.length;
    if (name.cut || value.cut) headers.push([name.text, value.text, { ...(name.cut ? { name: name.cut } : {}), ...(value.cut ? { value: value.cut } : {}) }]);
    else headers.push([name.text, value.text]);
  }
  return { headers, omitted: Math.max(0, all.length - HEADER_COUNT_CAP) };
}

/** Details of entry `index`: headers cut to FIELD_CAP each (and DETAIL_BUDGET in all), the URL to FIELD_CAP. */
export function sessionDetail(entry: HarEntry, index: number): ExchangeDetail {
  const e = obj(entry);
  const req = obj(e.request);
  const res = obj(e.response);
  const budget = { left: DETAIL_BUDGET };
  const url = cutText(raw(req.url), FIELD_CAP);
  const summary = { ...sessionRow(entry, index), url: url.text, urlCut: url.cut };
  if (!url.cut) delete summary.urlCut;
  const request = headerList(req.headers, budget);
  const response = headerList(res.headers, budget);
  const bool = (v: unknown) => (typeof v === 'boolean' ? v : undefined);
  const ct = obj(e._clientTimings);
  return {
    summary,
    request: {
      httpVersion: short(req.httpVersion, 32),
      headers: request.headers,
      ...(request.omitted ? { headersOmitted: request.omitted } : {}),
      bodySize: num(req.bodySize),
      bodyTruncated: false,
    },
    response: e.response
      ? {
          httpVersion: short(res.httpVersion, 32),
          headers: response.headers,
          ...(response.omitted ? { headersOmitted: response.omitted } : {}),
          bodySize: num(res.bodySize),
          bodyTruncated: Boolean(obj(res.content)._truncated),
        }
      : undefined,
    clientTimings: e._clientTimings
      ? { receiveRequest: num(ct.receiveRequest), proxyOverhead: num(ct.proxyOverhead), respond: num(ct.respond), total: num(ct.total) }
      : undefined,
    nagle: bool(e._nagle),
    retries: typeof e._retries === 'number' ? e._retries : undefined,
    upstreamConnectionNew: bool(e._upstreamConnectionNew),
  };
}

/** A field's whole value as `getSessionField` serves it. */
export interface FieldValue {
  value: string;
  base64?: boolean;
}

/** The whole value a `SessionField` names, or undefined when the entry has no such field. */
export function fieldValue(entry: HarEntry, field: SessionField): FieldValue | undefined {
  const req = obj(obj(entry).request);
  const res = obj(obj(entry).response);
  switch (field.kind) {
    case 'url':
      return typeof req.url === 'string' ? { value: req.url } : undefined;
    case 'request-body': {
      const value = postDataText(obj(req.postData), Infinity);
      return value ? { value } : undefined;
    }
    case 'response-body': {
      const content = obj(res.content);
      if (typeof content.text !== 'string' || !content.text) return undefined;
      // Whitespace out, so every chunk decodes on its own (FIELD_CHUNK is a multiple of 4).
      return content.encoding === 'base64' ? { value: content.text.replace(/\s+/g, ''), base64: true } : { value: content.text };
    }
    default: {
      const h = nameValues((field.kind === 'request-header' ? req : res).headers)[field.header];
      const v = h && (field.part === 'name' ? h.name : h.value);
      return typeof v === 'string' ? { value: v } : undefined;
    }
  }
}

/** One chunk of a field's value from character `offset` (chunks never split a surrogate pair or a base64 group). */
export function fieldChunk({ value, base64 }: FieldValue, offset: number, size = FIELD_CHUNK): SessionFieldChunk {
  const start = Math.min(base64 ? offset - (offset % 4) : offset, value.length);
  let chunk = base64 ? value.slice(start, start + size) : slice(value.slice(start, start + size + 1), size);
  // A chunk of one character that is a surrogate pair: send the pair (an empty chunk would never finish).
  if (chunk === '' && start < value.length) chunk = value.slice(start, start + 2);
  const done = start + chunk.length >= value.length;
  return { text: chunk, offset: start, totalChars: value.length, done, ...(base64 ? { encoding: 'base64' as const } : {}) };
}

/** The pages of a session, bounded: enough for the page-load markers the Waterfall draws. */
export function sessionPages(pages: HarPage[]): SessionPage[] {
  return (Array.isArray(pages) ? pages : []).slice(0, 1000).map((p) => {
    const o = obj(p);
    const t = obj(o.pageTimings);
    return {
      id: short(o.id),
      title: short(o.title, 1024),
      startedDateTime: short(o.startedDateTime, 64),
      pageTimings: { onContentLoad: num(t.onContentLoad), onLoad: num(t.onLoad) },
    };
  });
}
