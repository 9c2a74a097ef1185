/**
 * HAR entries (from any tool: Chrome, Firefox, Charles, Netlens…) → the
 * contract's rows and details, every string cut to a size a page can show. The
 * one copy of this logic: the core uses it for opened sessions (session-view.ts
 * binds it to its capped reads), the renderer for the lab's HARs. Pure and
 * Node-free (no Buffer), so both can import it.
 *
 * A HAR is input from anywhere: a 95 MiB header, a 95 MiB URL or 100,000 headers
 * must reach the page as a row and a marked, cut value, never as a 100 M
 * character string in the DOM. Cuts are marked (`FieldCut`: full size and shown
 * size in UTF-8 bytes) so the page says so and can fetch the whole value in
 * chunks (`sessionFieldChunk`); the stored session is never changed.
 */
import type {
  ExchangeDetail,
  ExchangeSummary,
  FieldCut,
  HeaderList,
  PhaseTimings,
  SessionField,
  SessionFieldChunk,
  SessionPage,
} from './contract.js';
import type { LooseHarEntry, LooseHarLog, LooseHarPage } from '../har/types.js';

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
/** Characters of joined postData `params` worth building: twice what a body view shows. */
const PARAMS_TEXT_LIMIT = 4 * 1024 * 1024;

/**
 * How a string read from a file is split into its shown part and its whole size
 * (sessions/capped-json.ts `splitCut` for capped reads); the identity otherwise.
 */
export type SplitCut = (s: string) => { text: string; fullBytes?: number };
const uncut: SplitCut = (s) => ({ text: s });

type Obj = Record<string, unknown>;
const num = (n: unknown, fallback = -1): number => (typeof n === 'number' && Number.isFinite(n) ? n : fallback);
const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
/** A string as read (possibly cut while reading), anything else as text. */
const raw = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));

/** UTF-8 length of a string, as Buffer.byteLength counts it (a lone surrogate is U+FFFD, 3 bytes). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** `cap` UTF-16 units of `s`, one fewer when the last would be the high half of a surrogate pair. */
function cutAt(s: string, cap: number): string {
  if (s.length <= cap) return s;
  const end = cap > 0 && s.charCodeAt(cap - 1) >= 0xd800 && s.charCodeAt(cap - 1) <= 0xdbff ? cap - 1 : cap;
  return s.slice(0, end);
}

/** A fresh copy of a string; a JSON round trip builds one (lone surrogates survive it). */
const jsonCopy = (s: string): string => JSON.parse(JSON.stringify(s)) as string;

/**
 * What the builders need beyond plain JS, each with a pure default. The core passes
 * Node's faster equivalents (session-view.ts); the results are the same.
 */
export interface HarViewIo {
  /** How strings read from a file are split into shown part and whole size (see SplitCut). */
  splitCut?: SplitCut;
  /** UTF-8 bytes of a string (Buffer.byteLength). */
  byteLength?: (s: string) => number;
  /** A flat copy of a (sliced) string, so a cut does not keep its whole original alive. */
  copy?: (s: string) => string;
}

/** True when a body's `text` holds base64: `encoding` on response content, Netlens's `_encoding` on postData (HAR has none there). */
export function isBase64Body(body: unknown): boolean {
  const b = obj(body);
  return b.encoding === 'base64' || b._encoding === 'base64';
}

/** `HTTP/2.0`, `http/2.0`, `h2` → `h2`; `HTTP/1.1` → `http/1.1`; `h3`, `http/3` → `h3`; nothing → `–`. */
export function normalizeProtocol(v: string | undefined): string {
  const s = (v ?? '').trim().toLowerCase();
  if (s === 'h2' || s === 'http/2' || s === 'http/2.0') return 'h2';
  if (s === 'h3' || s === 'http/3' || s === 'http/3.0') return 'h3';
  return s || '–';
}

/** Entry index of row id `h<i>`, or -1. */
export function harEntryIndex(id: string): number {
  return /^h\d+$/.test(id) ? Number(id.slice(1)) : -1;
}

/** A field's whole value as `getSessionField` serves it. */
export interface FieldValue {
  value: string;
  base64?: boolean;
}

/** One chunk of a field's value from character `offset` (chunks never split a surrogate pair or a base64 group). */
export function fieldChunk({ value, base64 }: FieldValue, offset: number, size = FIELD_CHUNK): SessionFieldChunk {
  const start = Math.min(base64 ? offset - (offset % 4) : offset, value.length);
  // No copy: the chunk is serialized at once and dropped.
  let chunk = base64 ? value.slice(start, start + size) : cutAt(value.slice(start, start + size + 1), size);
  // A chunk of one character that is a surrogate pair: send the pair (an empty chunk would never finish).
  if (chunk === '' && start < value.length) chunk = value.slice(start, start + 2);
  const done = start + chunk.length >= value.length;
  return { text: chunk, offset: start, totalChars: value.length, done, ...(base64 ? { encoding: 'base64' as const } : {}) };
}

/** The row and detail builders (capped reads mark cut strings: pass their `splitCut`). */
export function harView(io: HarViewIo = {}) {
  const split = io.splitCut ?? uncut;
  const utf8Bytes = io.byteLength ?? utf8Length;
  const copy = io.copy ?? jsonCopy;
  /**
   * `cap` characters of `s` as a copy: V8's `slice` of a long string keeps the whole
   * original alive, so a 64 KiB cut of a 95 MiB header would hold all 95 MiB for as
   * long as the cut lives.
   */
  const copyCut = (s: string, cap: number): string => (s.length <= cap ? s : copy(cutAt(s, cap)));

  /** A string without its cut marker. */
  const text = (v: unknown): string => split(raw(v)).text;

  /** `value` cut to `cap` characters, with the cut described when there was one (here or while reading). */
  function cutText(value: string, cap: number): { text: string; cut?: FieldCut } {
    const { text: s, fullBytes } = split(value);
    if (fullBytes === undefined && s.length <= cap) return { text: s };
    const shown = copyCut(s, cap);
    return { text: shown, cut: { fullBytes: fullBytes ?? utf8Bytes(s), shownBytes: utf8Bytes(shown) } };
  }

  /** A short string for a row: cut with an ellipsis (no size kept; the row is not where it is read). */
  function short(v: unknown, cap = ROW_TEXT_CAP): string {
    const s = text(v);
    return s.length <= cap ? s : `${copyCut(s, cap)}…`;
  }

  function splitUrl(url: string): { host: string; path: string } {
    try {
      const u = new URL(url);
      return { host: short(u.host), path: u.pathname + u.search };
    } catch {
      return { host: '', path: url };
    }
  }

  const nameValues = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);

  function mimeOf(res: Obj): string {
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

  function timingsOf(e: Obj): PhaseTimings {
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

  /** postData as text: `text`, or `params` joined like a form when a tool wrote only those (stopping past `limit` characters). */
  function postDataText(post: unknown, limit = PARAMS_TEXT_LIMIT): string | undefined {
    const p = obj(post);
    if (typeof p.text === 'string') return p.text;
    if (!Array.isArray(p.params)) return undefined;
    const parts: string[] = [];
    let length = 0;
    for (const param of p.params as unknown[]) {
      const o = obj(param);
      const part = `${text(o.name)}=${text(o.value)}`;
      parts.push(part);
      // Only a display's worth is shown: stop joining past it (a hostile HAR can hold millions of params).
      if ((length += part.length + 1) > limit) break;
    }
    return parts.join('&');
  }

  /** Row `h<i>`: what the Traffic list and the Waterfall need, every string bounded. */
  function row(entry: LooseHarEntry, index: number): ExchangeSummary {
    const e = obj(entry);
    const req = obj(e.request);
    const res = obj(e.response);
    const content = obj(res.content);
    const url = cutText(raw(req.url), ROW_URL_CAP);
    const status = num(res.status, 0);
    const errorText =
      typeof res._error === 'string' && res._error ? res._error : typeof e._error === 'string' && e._error ? e._error : undefined;
    const failed = status === 0 || Boolean(errorText);
    const errorCode = typeof e._errorCode === 'string' ? short(e._errorCode, 64) : 'HAR_ERROR';
    const transfer = num(res._transferSize, NaN);
    const bodySize = num(res.bodySize);
    const responseSize = Number.isFinite(transfer) && transfer >= 0 ? transfer : bodySize >= 0 ? bodySize : num(content.size);
    const postText = obj(req.postData).text;
    // Counted only when the HAR does not say: a row must stay cheap with 100,000 entries.
    const postBytes = () => (typeof postText === 'string' ? (split(postText).fullBytes ?? utf8Bytes(postText)) : 0);
    // A tunnel or WebSocket has no HTTP body: its bytes each way are `_tunnelBytes` (har/entry.ts), as live rows show.
    const tunnel = obj(e._tunnelBytes);
    const tunnelUp = num(tunnel.up, NaN);
    const tunnelDown = num(tunnel.down, NaN);
    const hasTunnel = Number.isFinite(tunnelUp) && tunnelUp >= 0 && Number.isFinite(tunnelDown) && tunnelDown >= 0;
    const requestSize = hasTunnel ? tunnelUp : num(req.bodySize) >= 0 ? num(req.bodySize) : postBytes();
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
      protocol: normalizeProtocol(short(res.httpVersion || req.httpVersion, 32)),
      transport: typeof e._transport === 'string' ? (short(e._transport, 32) as ExchangeSummary['transport']) : undefined,
      requestSize,
      responseSize: hasTunnel ? tunnelDown : responseSize,
      duration: num(e.time),
      timings: timingsOf(e),
      state: failed ? 'error' : 'complete',
      error: failed ? { code: errorCode, message: short(errorText ?? 'No response (status 0)', 1024) } : undefined,
      connection: e.connection !== undefined && e.connection !== null ? short(e.connection) : undefined,
      serverIPAddress: typeof e.serverIPAddress === 'string' && e.serverIPAddress ? short(e.serverIPAddress) : undefined,
      ...(e._mocked === true ? { mocked: true } : {}),
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
      if (name.cut || value.cut)
        headers.push([name.text, value.text, { ...(name.cut ? { name: name.cut } : {}), ...(value.cut ? { value: value.cut } : {}) }]);
      else headers.push([name.text, value.text]);
    }
    return { headers, omitted: Math.max(0, all.length - HEADER_COUNT_CAP) };
  }

  /** Details of entry `index`: headers cut to FIELD_CAP each (and DETAIL_BUDGET in all), the URL to FIELD_CAP. */
  function detail(entry: LooseHarEntry, index: number): ExchangeDetail {
    const e = obj(entry);
    const req = obj(e.request);
    const res = obj(e.response);
    const budget = { left: DETAIL_BUDGET };
    const url = cutText(raw(req.url), FIELD_CAP);
    const summary = { ...row(entry, index), url: url.text, urlCut: url.cut };
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
      ...ruleFields(e),
    };
  }

  /** The whole value a `SessionField` names, or undefined when the entry has no such field. */
  function fieldValue(entry: LooseHarEntry, field: SessionField): FieldValue | undefined {
    const req = obj(obj(entry).request);
    const res = obj(obj(entry).response);
    switch (field.kind) {
      case 'url':
        return typeof req.url === 'string' ? { value: req.url } : undefined;
      case 'request-body':
      case 'response-body': {
        const body = field.kind === 'request-body' ? obj(req.postData) : obj(res.content);
        const value = field.kind === 'request-body' ? postDataText(body, Infinity) : typeof body.text === 'string' ? body.text : undefined;
        if (!value) return undefined;
        // Whitespace out, so every chunk decodes on its own (FIELD_CHUNK is a multiple of 4).
        return typeof body.text === 'string' && isBase64Body(body) ? { value: value.replace(/\s+/g, ''), base64: true } : { value };
      }
      default: {
        const h = nameValues((field.kind === 'request-header' ? req : res).headers)[field.header];
        const v = h && (field.part === 'name' ? h.name : h.value);
        return typeof v === 'string' ? { value: v } : undefined;
      }
    }
  }

  /** The pages of a session, bounded: enough for the page-load markers the Waterfall draws. */
  function pages(list: LooseHarPage[] | undefined): SessionPage[] {
    return (Array.isArray(list) ? list : []).slice(0, 1000).map((p) => {
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

  return { cutText, postDataText, row, detail, fieldValue, pages };
}

const plain = harView();

/** Rows of a whole HAR log (the renderer's lab waterfalls), in file order; row `h<i>` is entry `i`. */
export function harToRows(log: LooseHarLog | undefined): ExchangeSummary[] {
  return (Array.isArray(log?.entries) ? log.entries : []).map((e, i) => plain.row(e, i));
}

/** HAR `_rules` / `_mocked` (what Netlens writes), kept only when well-formed: a HAR can come from anywhere. */
function ruleFields(e: Record<string, unknown>): Pick<ExchangeDetail, 'rules' | 'mocked'> {
  const out: Pick<ExchangeDetail, 'rules' | 'mocked'> = {};
  if (Array.isArray(e._rules)) {
    const hits = e._rules
      .slice(0, 50)
      .filter(
        (r): r is { id: string; name?: unknown; actions?: unknown; note?: unknown } =>
          Boolean(r) && typeof (r as { id?: unknown }).id === 'string',
      )
      .map((r) => ({
        id: r.id.slice(0, 200),
        ...(typeof r.name === 'string' ? { name: r.name.slice(0, 200) } : {}),
        actions: Array.isArray(r.actions) ? r.actions.filter((a): a is string => typeof a === 'string').slice(0, 20) : [],
        ...(typeof r.note === 'string' ? { note: r.note.slice(0, 500) } : {}),
      }));
    if (hits.length) out.rules = hits;
  }
  if (e._mocked === true) out.mocked = true;
  return out;
}
