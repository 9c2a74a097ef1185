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
import type { Har, HarTimings, Loose, LooseHar, LooseHarEntry } from './types.js';
import { schemaProblems } from './schema.js';
import { roundMs, timeOf } from './entry.js';
import { isObject, normalizeHar } from './normalize.js';

export { dropPageref, isObject, normalizeEntry, normalizeLogHead } from './normalize.js';

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
    const why =
      e.code === 'ENOENT'
        ? 'no such file'
        : e.code === 'EISDIR'
          ? 'is a directory'
          : e.code === 'ERR_STRING_TOO_LONG'
            ? 'too large to read at once (over 512 MiB); "netlens har validate" and session import stream it'
            : e.message;
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
  warnings.push(...group([...schemaProblems(json).map(schemaWarning), ...semanticWarnings(json as LooseHar)]));
  return { har: normalizeHar(json as LooseHar), warnings, errors: [] };
}

function jsonError(text: string, err: Error): HarIssue {
  const pos = Number(/position (\d+)/.exec(err.message)?.[1]);
  const end = text.trimEnd().length;
  // Truncated: the text is a prefix of JSON (brackets left open) and parsing failed at its very end.
  if (/end of JSON input|Unterminated string/i.test(err.message) || (unclosed(text) && (!Number.isFinite(pos) || pos >= end - 1))) {
    return {
      path: '',
      message: `truncated: the JSON ends before the HAR is complete (was the file cut short while being written?)`,
      count: 1,
    };
  }
  if (Number.isFinite(pos)) {
    const before = text.slice(0, pos);
    const line = before.split('\n').length;
    const column = pos - before.lastIndexOf('\n');
    return {
      path: '',
      message: `not valid JSON at line ${line}, column ${column}: ${err.message.replace(/ in JSON at position \d+.*$/, '')}`,
      count: 1,
    };
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
    note = v.startsWith('[')
      ? ' (IPv6 in brackets, as Chrome writes it; read without them)'
      : v === ''
        ? ' (empty, as Chrome writes for cached responses; ignored)'
        : ' (ignored)';
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

/** Timings whose phases are numbers where present (HAR files hold any JSON). */
const phaseTimings = (t: unknown): t is Loose<HarTimings> =>
  isObject(t) && PHASES.every((k) => t[k] === undefined || typeof t[k] === 'number');

/** Over a HAR that structuralErrors found sound: `log` is an object and `log.entries` an array of objects. */
function semanticWarnings(har: LooseHar): HarIssue[] {
  const out: HarIssue[] = [];
  const log = har.log ?? {};
  const pageIds = new Set(Array.isArray(log.pages) ? log.pages.filter(isObject).map((p) => p.id) : []);
  (log.entries ?? []).forEach((e, i) => {
    if (e.pageref !== undefined && !pageIds.has(e.pageref)) out.push(danglingPageref(e.pageref, i));
    out.push(...entrySemanticWarnings(e, i));
  });
  return out;
}

export function danglingPageref(pageref: unknown, i: number): HarIssue {
  return { path: `log.entries[${i}].pageref`, message: `names no page in log.pages (got ${short(pageref)})`, count: 1 };
}

/** Semantic checks of one entry that need nothing else (pagerefs are checked against the pages). */
export function entrySemanticWarnings(e: LooseHarEntry, i: number): HarIssue[] {
  const t = e.timings;
  if (phaseTimings(t) && typeof e.time === 'number') {
    const sum = timeOf(t);
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

/** One line per issue, for terminals. */
export function formatIssue(kind: 'error' | 'warning', issue: HarIssue): string {
  const where = issue.path ? `${issue.path}: ` : '';
  const more = issue.count > 1 ? ` (and ${issue.count - 1} more like it)` : '';
  return `${kind} ${where}${issue.message}${more}`;
}
