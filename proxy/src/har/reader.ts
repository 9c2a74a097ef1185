/**
 * Reading HAR files that real tools write.
 *
 * Two kinds of findings:
 *  - **errors**: the file cannot be used (not JSON, truncated, no `log.entries`,
 *    an entry without request or response…). Each names the path of the bad
 *    field; a file with errors yields no HAR at all (nothing half-imported).
 *  - **warnings**: the file deviates from HAR 1.2 (schema or semantics) in a way
 *    we can read anyway, e.g. Chrome's `[::1]`/empty serverIPAddress, Firefox's
 *    cache objects, Charles's `null` redirectURL, URLs with spaces, a BOM. The
 *    HAR returned is normalized so it validates against the schema; unknown
 *    `_` fields are kept as they are.
 *
 * Warnings repeat per entry in real files; they are grouped (first path + count).
 */
import fs from 'node:fs/promises';
import type { Har, HarCache, HarContent, HarCookie, HarEntry, HarLog, HarNameValue, HarPage, HarPostData, HarRequest, HarResponse, HarTimings } from './types.js';
import { isValidAfterRequest, isValidBeforeRequest, schemaProblems } from './schema.js';
import { roundMs, timeOf } from './entry.js';

export interface HarIssue {
  /** Path of the (first) offending field, e.g. `log.entries[3].request`; '' for the file itself. */
  path: string;
  message: string;
  /** How many fields had this problem (grouped over entries). */
  count: number;
}

export interface HarReadResult {
  /** The normalized HAR; undefined when there are errors. */
  har?: Har;
  warnings: HarIssue[];
  errors: HarIssue[];
}

export async function readHarFile(file: string): Promise<HarReadResult> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'is a directory' : e.message;
    return { warnings: [], errors: [{ path: '', message: `cannot read ${file}: ${why}`, count: 1 }] };
  }
  return parseHar(text);
}

export function parseHar(text: string): HarReadResult {
  const warnings: HarIssue[] = [];
  if (text.charCodeAt(0) === 0xfeff) {
    warnings.push({ path: '', message: 'file starts with a UTF-8 byte-order mark (ignored)', count: 1 });
    text = text.slice(1);
  }
  if (!text.trim()) return { warnings, errors: [{ path: '', message: 'file is empty: not a HAR', count: 1 }] };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { warnings, errors: [jsonError(text, err as Error)] };
  }
  const errors = structuralErrors(json);
  if (errors.length > 0) return { warnings, errors };
  warnings.push(...group([...schemaProblems(json).map(schemaWarning), ...semanticWarnings(json as Har)]));
  return { har: normalizeHar(json as Har), warnings, errors: [] };
}

function jsonError(text: string, err: Error): HarIssue {
  const pos = Number(/position (\d+)/.exec(err.message)?.[1]);
  const end = text.trimEnd().length;
  // Truncated: the text is a prefix of JSON (brackets left open) and parsing failed at its very end.
  if (/end of JSON input|Unterminated string/i.test(err.message) || (unclosed(text) && (!Number.isFinite(pos) || pos >= end - 1))) {
    return { path: '', message: `truncated: the JSON ends before the HAR is complete (was the file cut short while being written?)`, count: 1 };
  }
  if (Number.isFinite(pos)) {
    const before = text.slice(0, pos);
    const line = before.split('\n').length;
    const column = pos - before.lastIndexOf('\n');
    return { path: '', message: `not valid JSON at line ${line}, column ${column}: ${err.message.replace(/ in JSON at position \d+.*$/, '')}`, count: 1 };
  }
  return { path: '', message: `not valid JSON: ${err.message}`, count: 1 };
}

/** Whether brackets or a string are still open at the end of the text. */
function unclosed(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \\ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) depth++;
    else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return inString || depth > 0;
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What makes a HAR unusable. Reports at most a few, the first one first. */
function structuralErrors(json: unknown): HarIssue[] {
  const errors: HarIssue[] = [];
  const add = (path: string, message: string) => errors.push({ path, message, count: 1 });
  if (!isObject(json)) {
    add('', `not a HAR: the file holds a JSON ${Array.isArray(json) ? 'array' : typeof json}, not an object with "log"`);
    return errors;
  }
  if (!('log' in json)) add('log', 'missing (not a HAR file)');
  else if (!isObject(json.log)) add('log', 'must be an object');
  else if (!('entries' in json.log)) add('log.entries', 'missing');
  else if (!Array.isArray(json.log.entries)) add('log.entries', 'must be an array');
  if (errors.length) return errors;
  const entries = (json.log as { entries: unknown[] }).entries;
  for (let i = 0; i < entries.length && errors.length < MAX_ERRORS; i++) errors.push(...entryErrors(entries[i], i));
  return errors;
}

/** Stop after this many errors: the first one is what the user needs. */
export const MAX_ERRORS = 10;

/** What makes one entry unusable (an entry without request or response…). */
export function entryErrors(e: unknown, i: number): HarIssue[] {
  const errors: HarIssue[] = [];
  const add = (path: string, message: string) => errors.push({ path, message, count: 1 });
  const at = `log.entries[${i}]`;
  if (!isObject(e)) {
    add(at, 'must be an object');
    return errors;
  }
  if (!('request' in e)) add(`${at}.request`, 'missing');
  else if (!isObject(e.request)) add(`${at}.request`, 'must be an object');
  else {
    if (typeof e.request.method !== 'string' || !e.request.method) add(`${at}.request.method`, 'missing');
    if (typeof e.request.url !== 'string' || !e.request.url) add(`${at}.request.url`, 'missing');
  }
  if (!('response' in e)) add(`${at}.response`, 'missing');
  else if (!isObject(e.response)) add(`${at}.response`, 'must be an object');
  return errors;
}

/** Known deviations get a note saying who writes them and how they are read. */
export function schemaWarning(p: { path: string; message: string; value: unknown }): HarIssue {
  const v = p.value;
  let note = '';
  if (p.path.endsWith('.serverIPAddress') && typeof v === 'string') {
    note = v.startsWith('[') ? ' (IPv6 in brackets, as Chrome writes it; read without them)' : v === '' ? ' (empty, as Chrome writes for cached responses; ignored)' : ' (ignored)';
  } else if (p.path.endsWith('.redirectURL') && v === null) note = ' (null, as Charles writes it; read as "")';
  else if (/\.url$/.test(p.path) && typeof v === 'string' && /\s/.test(v)) note = ' (contains spaces; read with them percent-encoded)';
  else if (/\.cache\.(before|after)Request$/.test(p.path)) note = ' (non-standard cache object, as Firefox writes it; kept as a `_` field)';
  const shown = v === undefined ? '' : ` (got ${short(v)})`;
  return { path: p.path, message: `${p.message}${note || shown}`, count: 1 };
}

function short(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

const PHASES = ['blocked', 'dns', 'connect', 'send', 'wait', 'receive'] as const;

function semanticWarnings(har: Har): HarIssue[] {
  const out: HarIssue[] = [];
  const log = har.log;
  const pageIds = new Set(Array.isArray(log.pages) ? log.pages.filter(isObject).map((p) => p.id) : []);
  log.entries.forEach((e, i) => {
    if (e.pageref !== undefined && !pageIds.has(e.pageref)) out.push(danglingPageref(e.pageref, i));
    out.push(...entrySemanticWarnings(e, i));
  });
  return out;
}

export function danglingPageref(pageref: unknown, i: number): HarIssue {
  return { path: `log.entries[${i}].pageref`, message: `names no page in log.pages (got ${short(pageref)})`, count: 1 };
}

/** Semantic checks of one entry that need nothing else (pagerefs are checked against the pages). */
export function entrySemanticWarnings(e: HarEntry, i: number): HarIssue[] {
  const t = e.timings as unknown;
  if (isObject(t) && typeof e.time === 'number' && PHASES.every((k) => t[k] === undefined || typeof t[k] === 'number')) {
    const sum = timeOf(t as unknown as HarTimings);
    if (Math.abs(sum - e.time) > 1) {
      const ssl = typeof t.ssl === 'number' && t.ssl > 0 ? t.ssl : 0;
      const why = ssl > 0 && Math.abs(sum + ssl - e.time) <= 1 ? '; ssl was counted again outside connect' : '';
      return [{ path: `log.entries[${i}].time`, message: `is ${roundMs(e.time)} but the timings add up to ${sum}${why}`, count: 1 }];
    }
  }
  return [];
}

/** Groups issues that differ only by entry index (`log.entries[*].x`) and numbers. */
export class IssueGroups {
  private groups = new Map<string, HarIssue>();

  add(issues: Iterable<HarIssue>): void {
    for (const issue of issues) {
      // Numbers in messages (timings) differ per entry; the kind of problem does not.
      const key = `${issue.path.replace(/\[\d+\]/g, '[*]')}\u0000${issue.message.replace(/-?\d+(\.\d+)?/g, '#')}`;
      const prev = this.groups.get(key);
      if (prev) prev.count += issue.count;
      else this.groups.set(key, { ...issue });
    }
  }

  list(): HarIssue[] {
    return [...this.groups.values()];
  }
}

function group(issues: HarIssue[]): HarIssue[] {
  const g = new IssueGroups();
  g.add(issues);
  return g.list();
}

// ---- normalization: whatever was read, the result validates against HAR 1.2 ----

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
  const content: HarContent = { ...c, size: int(c.size, text !== undefined && c.encoding !== 'base64' ? Buffer.byteLength(text) : 0), mimeType: str(c.mimeType, 'x-unknown') };
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
  for (const [key, valid] of [['beforeRequest', isValidBeforeRequest], ['afterRequest', isValidAfterRequest]] as const) {
    if (key in c && c[key] !== null && !valid(c[key])) {
      cache[`_${key}`] = c[key];
      delete cache[key];
    }
  }
  return cache;
}

function normalizeTimings(t: unknown): HarTimings {
  const src = isObject(t) ? t : {};
  const timings: HarTimings = { ...src, send: Math.max(0, num(src.send, 0)), wait: Math.max(0, num(src.wait, 0)), receive: Math.max(0, num(src.receive, 0)) };
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
    request: normalizeRequest(e.request as Record<string, unknown>),
    response: normalizeResponse(e.response as Record<string, unknown>),
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

function normalizeHar(har: Har): Har {
  const log = normalizeLogHead(har.log as unknown as Record<string, unknown>);
  const pageIds = new Set((log.pages ?? []).map((p) => p.id));
  log.entries = (har.log.entries as unknown as Record<string, unknown>[]).map((e) => normalizeEntry(e, pageIds));
  return { ...har, log };
}

/** One line per issue, for terminals. */
export function formatIssue(kind: 'error' | 'warning', issue: HarIssue): string {
  const where = issue.path ? `${issue.path}: ` : '';
  const more = issue.count > 1 ? ` (and ${issue.count - 1} more like it)` : '';
  return `${kind} ${where}${issue.message}${more}`;
}
