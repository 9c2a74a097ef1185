/**
 * The breakpoint editor's logic, kept pure for tests: headers as editable text and back,
 * the edits to send (only what changed), the queue's selection and countdown.
 */
import type { BreakpointEditsInfo, PausedBreakpoint } from '../../../proxy/src/api/contract';

type Header = [name: string, value: string];

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** One `Name: value` per line, in order. */
export function headersToText(headers: Header[]): string {
  return headers.map(([k, v]) => `${k}: ${v}`).join('\n');
}

/** Parses `Name: value` lines (blank lines skipped); the error names the first bad line. */
export function parseHeaderText(text: string): { headers: Header[] } | { error: string } {
  const headers: Header[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!TOKEN.test(name)) return { error: `Line ${i + 1}: write each header as "Name: value" (got "${line.slice(0, 60)}")` };
    headers.push([name, line.slice(colon + 1).trim()]);
  }
  return { headers };
}

/** What the editor holds for one paused exchange. */
export interface BreakpointDraft {
  headersText: string;
  body: string;
  url: string;
  status: string;
}

export function draftOf(p: PausedBreakpoint): BreakpointDraft {
  return { headersText: headersToText(p.headers), body: p.body, url: p.url, status: p.status === undefined ? '' : String(p.status) };
}

const sameHeaders = (a: Header[], b: Header[]) => a.length === b.length && a.every(([k, v], i) => k === b[i]![0] && v === b[i]![1]);

/** The edits continueBreakpoint needs: only the fields the user changed; an error when one cannot be sent. */
export function editsFrom(p: PausedBreakpoint, d: BreakpointDraft): { edits: BreakpointEditsInfo } | { error: string } {
  const edits: BreakpointEditsInfo = {};
  const parsed = parseHeaderText(d.headersText);
  if ('error' in parsed) return parsed;
  if (!sameHeaders(parsed.headers, p.headers)) edits.headers = parsed.headers;
  if (!p.bodyCut && d.body !== p.body) edits.body = d.body;
  if (p.phase === 'request' && d.url.trim() !== p.url) {
    const url = d.url.trim();
    if (!/^https?:\/\/[^/\s]+/i.test(url)) return { error: 'The URL must start with http:// or https:// and name a host' };
    edits.url = url;
  }
  if (p.phase === 'response' && d.status.trim() !== String(p.status ?? '')) {
    const status = Number(d.status.trim());
    if (!Number.isInteger(status) || status < 200 || status > 999) return { error: 'The status must be a whole number from 200 to 999' };
    edits.status = status;
  }
  return { edits };
}

export const hasEdits = (e: BreakpointEditsInfo): boolean => Object.keys(e).length > 0;

/** The selected pause if it is still paused, else the oldest one (or none). */
export function pickSelected(items: PausedBreakpoint[], selected: string | undefined): string | undefined {
  if (selected && items.some((p) => p.id === selected)) return selected;
  return items[0]?.id;
}

/** Whole seconds until the pause continues by itself (never negative). */
export function secondsLeft(p: PausedBreakpoint, now: number): number {
  return Math.max(0, Math.ceil((p.timeoutAt - now) / 1000));
}

/** A short line for the queue: `REQ GET host/path` or `RES 200 host/path`. */
export function pausedLabel(p: PausedBreakpoint): string {
  let where = p.url;
  try {
    const u = new URL(p.url);
    where = `${u.host}${u.pathname}${u.search}`;
  } catch {
    // Not a URL (cannot happen for a live exchange): shown as it is.
  }
  return p.phase === 'request' ? `REQ ${p.method} ${where}` : `RES ${p.status ?? ''} ${where}`;
}
