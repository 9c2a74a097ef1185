/**
 * Normalization of what was read: real HAR files deviate from HAR 1.2 (missing
 * sizes, null strings, Firefox's cache objects, Chrome's bracketed IPv6…).
 * Whatever reader.ts accepted comes out of here so that it validates against
 * the schema, with every unknown `_` field kept. Replaced values that carry
 * information (a tool's own `time`, an unusable address, date or pageref,
 * Firefox's cache objects) are kept aside in a `_` field of the same name;
 * placeholders (null for a string, a missing size) simply become "" or -1.
 */
import type {
  Har,
  HarCache,
  HarContent,
  HarCookie,
  HarEntry,
  HarLog,
  HarNameValue,
  HarPage,
  HarPostData,
  HarRequest,
  HarResponse,
  HarTimings,
  LooseHar,
} from './types.js';
import { isValidAfterRequest, isValidBeforeRequest } from './schema.js';
import { timeOf } from './entry.js';

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : v === null || v === undefined ? fallback : String(v));
const int = (v: unknown, fallback = -1): number => (typeof v === 'number' && Number.isFinite(v) ? Math.round(v) : fallback);
const num = (v: unknown, fallback = -1): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
const validDate = (v: unknown): v is string =>
  typeof v === 'string' && /^\d{4}-?\d\d-?\d\dT?\d\d:?\d\d:?\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)/.test(v) && !Number.isNaN(Date.parse(v));

function nameValueList(v: unknown): HarNameValue[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isObject).map((nv) => ({ ...nv, name: str(nv.name), value: str(nv.value) }));
}

function cookieList(v: unknown): HarCookie[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isObject).map((c) => {
    const cookie: HarCookie = { ...c, name: str(c.name), value: str(c.value) };
    if ('expires' in c && c.expires !== null && !validDate(c.expires)) {
      const d = typeof c.expires === 'string' ? new Date(c.expires) : undefined;
      if (d && !Number.isNaN(d.getTime())) cookie.expires = d.toISOString();
      else {
        cookie._expires = c.expires;
        delete cookie.expires;
      }
    }
    for (const flag of ['httpOnly', 'secure'] as const) if (flag in c && typeof c[flag] !== 'boolean') cookie[flag] = Boolean(c[flag]);
    for (const key of ['path', 'domain', 'comment'] as const) if (key in c && typeof c[key] !== 'string') delete cookie[key];
    return cookie;
  });
}

/** Percent-encodes what a URL may not contain literally (spaces, mostly). */
function fixUrl(url: string): string {
  return /[\s"<>\\^`{|}]/.test(url) ? url.replace(/[\s"<>\\^`{|}]/g, (c) => encodeURIComponent(c)) : url;
}

function normalizeRequest(r: Record<string, unknown>): HarRequest {
  const req: HarRequest = {
    ...r,
    method: str(r.method),
    url: fixUrl(str(r.url)),
    httpVersion: str(r.httpVersion),
    cookies: cookieList(r.cookies),
    headers: nameValueList(r.headers),
    queryString: nameValueList(r.queryString),
    headersSize: int(r.headersSize),
    bodySize: int(r.bodySize),
  };
  if (isObject(r.postData)) {
    const pd: HarPostData = { ...r.postData, mimeType: str(r.postData.mimeType) };
    if ('text' in pd && typeof pd.text !== 'string') delete pd.text;
    if ('params' in pd) {
      if (Array.isArray(pd.params)) pd.params = pd.params.filter(isObject).map((p) => ({ ...p, name: str(p.name) }));
      else delete pd.params;
    }
    req.postData = pd;
  } else delete req.postData;
  return req;
}

function normalizeContent(c: unknown): HarContent {
  if (!isObject(c)) return { size: 0, mimeType: 'x-unknown' };
  const text = typeof c.text === 'string' ? c.text : undefined;
  const content: HarContent = {
    ...c,
    size: int(c.size, text !== undefined && c.encoding !== 'base64' ? Buffer.byteLength(text) : 0),
    mimeType: str(c.mimeType, 'x-unknown'),
  };
  if ('text' in c && text === undefined) delete content.text;
  if ('compression' in c && typeof c.compression !== 'number') delete content.compression;
  else if (typeof c.compression === 'number') content.compression = Math.round(c.compression);
  if ('encoding' in c && typeof c.encoding !== 'string') delete content.encoding;
  return content;
}

function normalizeResponse(r: Record<string, unknown>): HarResponse {
  return {
    ...r,
    status: int(r.status, 0),
    statusText: str(r.statusText),
    httpVersion: str(r.httpVersion),
    cookies: cookieList(r.cookies),
    headers: nameValueList(r.headers),
    content: normalizeContent(r.content),
    redirectURL: str(r.redirectURL),
    headersSize: int(r.headersSize),
    bodySize: int(r.bodySize),
  };
}

function normalizeCache(c: unknown): HarCache {
  if (!isObject(c)) return {};
  const cache: HarCache = { ...c };
  for (const [key, valid] of [
    ['beforeRequest', isValidBeforeRequest],
    ['afterRequest', isValidAfterRequest],
  ] as const) {
    if (key in c && c[key] !== null && !valid(c[key])) {
      cache[`_${key}`] = c[key];
      delete cache[key];
    }
  }
  return cache;
}

function normalizeTimings(t: unknown): HarTimings {
  const src = isObject(t) ? t : {};
  const timings: HarTimings = {
    ...src,
    send: Math.max(0, num(src.send, 0)),
    wait: Math.max(0, num(src.wait, 0)),
    receive: Math.max(0, num(src.receive, 0)),
  };
  for (const k of ['blocked', 'dns', 'connect', 'ssl'] as const) {
    if (k in src) timings[k] = num(src[k]) < 0 ? -1 : num(src[k]);
  }
  return timings;
}

function normalizeServerIP(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const ip = v.replace(/^\[(.*)\]$/, '$1');
  // node:net's isIP would do; this module stays free of Node imports it does not need.
  return /^[\d.]+$/.test(ip) || ip.includes(':') ? ip : undefined;
}

/** One entry, normalized. Without `pageIds`, pagerefs are left as they are (checked later). */
export function normalizeEntry(e: Record<string, unknown>, pageIds?: Set<string>): HarEntry {
  const timings = normalizeTimings(e.timings);
  const entry: HarEntry = {
    ...e,
    startedDateTime: validDate(e.startedDateTime) ? e.startedDateTime : new Date(0).toISOString(),
    time: typeof e.time === 'number' && Number.isFinite(e.time) && e.time >= 0 ? e.time : timeOf(timings),
    // reader.ts refuses entries without these objects; other callers (the in-memory sessions) may not have checked.
    request: normalizeRequest(isObject(e.request) ? e.request : {}),
    response: normalizeResponse(isObject(e.response) ? e.response : {}),
    cache: normalizeCache(e.cache),
    timings,
  };
  if (!validDate(e.startedDateTime) && e.startedDateTime !== undefined) entry._startedDateTime = e.startedDateTime;
  const ip = normalizeServerIP(e.serverIPAddress);
  if (ip) entry.serverIPAddress = ip;
  else {
    if (typeof e.serverIPAddress === 'string' && e.serverIPAddress !== '') entry._serverIPAddress = e.serverIPAddress;
    delete entry.serverIPAddress;
  }
  if ('connection' in e) {
    if (e.connection === null || e.connection === undefined) delete entry.connection;
    else entry.connection = String(e.connection);
  }
  // HAR 1.2: time is the sum of the phases. Tools that count ssl twice get it fixed; their value is kept.
  const sum = timeOf(timings);
  if (Math.abs(sum - entry.time) > 1) {
    entry._time = entry.time;
    entry.time = sum;
  }
  if ('pageref' in e && (typeof e.pageref !== 'string' || (pageIds && !pageIds.has(e.pageref)))) dropPageref(entry, e.pageref);
  if ('comment' in e && typeof e.comment !== 'string') delete entry.comment;
  return entry;
}

/** A pageref that names no page is kept aside as `_pageref`. */
export function dropPageref(entry: HarEntry, pageref: unknown): void {
  if (pageref !== undefined && pageref !== null) entry._pageref = pageref;
  delete entry.pageref;
}

function normalizePage(p: Record<string, unknown>, i: number): HarPage {
  return {
    ...p,
    startedDateTime: validDate(p.startedDateTime) ? p.startedDateTime : new Date(0).toISOString(),
    id: str(p.id, `page_${i + 1}`),
    title: str(p.title),
    pageTimings: isObject(p.pageTimings) ? { ...p.pageTimings } : {},
  };
}

/** `log` without its entries (`entries: []`), normalized. */
export function normalizeLogHead(log: Record<string, unknown>): HarLog {
  const creator = isObject(log.creator) ? log.creator : {};
  const out: HarLog = {
    ...log,
    version: str(log.version, '1.2'),
    creator: { ...creator, name: str(creator.name, 'unknown'), version: str(creator.version) },
    entries: [],
  };
  if (Array.isArray(log.pages)) out.pages = log.pages.filter(isObject).map(normalizePage);
  else delete out.pages;
  if (isObject(log.browser)) out.browser = { ...log.browser, name: str(log.browser.name, 'unknown'), version: str(log.browser.version) };
  else delete out.browser;
  if ('comment' in log && typeof log.comment !== 'string') delete out.comment;
  return out;
}

/** A whole HAR, normalized; `har.log` and its entries must be objects (reader.ts checks that first). */
export function normalizeHar(har: LooseHar): Har {
  const log = normalizeLogHead(har.log ?? {});
  const pageIds = new Set((log.pages ?? []).map((p) => p.id));
  log.entries = (har.log?.entries ?? []).map((e) => normalizeEntry(e, pageIds));
  return { ...har, log };
}
