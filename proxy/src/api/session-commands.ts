/**
 * The session commands the UI uses to show a session (openSession,
 * getSessionEntry, getSessionBody, getSessionField), over a SessionBackend's
 * entry-by-entry access. Memory stays bounded whatever the session holds:
 *  - indexes of the last INDEX_CACHE sessions opened (offsets, not entries);
 *  - the value being saved (getSessionField), for FIELD_TTL_MS, so its chunks
 *    do not parse a 95 MiB entry again each time; Details and bodies keep
 *    nothing: the entry is dropped once its cut view is built;
 *  - rows share ROWS_URL_BUDGET of URL text; past it, URLs in rows are cut shorter.
 * Arguments are untrusted JSON: every command checks its own.
 */
import { ErrorCodes, NetlensError } from '../errors.js';
import type { BodyView, ExchangeDetail, ExchangeSummary, OpenedSession, SessionField, SessionFieldChunk, SessionInfo } from './contract.js';
import type { SessionBackend, SessionEntries } from './backends.js';
import type { LooseHarEntry } from '../har/types.js';
import { DISPLAY_LIMIT, harBodyView } from './body-view.js';
import { splitCut } from '../sessions/capped-json.js';
import { isBase64Body } from './har-row.js';
import { cutText, fieldChunk, fieldValue, READ_CAP, sessionDetail, sessionPages, sessionRow, type FieldValue } from './session-view.js';
import { bad } from './commands/args.js';

const INDEX_CACHE = 4;
const FIELD_TTL_MS = 10_000;
/** URL characters all rows of one session may carry at ROW_URL_CAP; later rows get SHORT_URL_CAP. */
export const ROWS_URL_BUDGET = 32 * 1024 * 1024;
const SHORT_URL_CAP = 256;
/** Bytes of each string kept when an entry is read for a body: the display limit even if every character is an escape. */
const BODY_READ_CAP = 6 * DISPLAY_LIMIT;

function cutBase64(entry: LooseHarEntry, side: 'request' | 'response'): boolean {
  const c = side === 'request' ? entry?.request?.postData : entry?.response?.content;
  return isBase64Body(c) && typeof c?.text === 'string' && splitCut(c.text).fullBytes !== undefined;
}

function args(a: unknown, command: string): Record<string, unknown> {
  if (a === null || typeof a !== 'object' || Array.isArray(a)) throw bad(`${command}: the argument must be an object`);
  return a as Record<string, unknown>;
}

function sessionId(a: Record<string, unknown>, command: string): string {
  const id = a.id;
  if (typeof id !== 'string' || id.length === 0 || id.length > 500)
    throw bad(`${command}: "id" must be a session id (a string of 1–500 characters)`);
  return id;
}

function wholeNumber(v: unknown, what: string, command: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw bad(`${command}: "${what}" must be a whole number ≥ 0`);
  return v;
}

function sessionField(v: unknown, command: string): SessionField {
  const f = args(v, `${command}: "field"`);
  if (f.kind === 'url' || f.kind === 'request-body' || f.kind === 'response-body') return { kind: f.kind };
  if (f.kind !== 'request-header' && f.kind !== 'response-header') {
    throw bad(`${command}: "field.kind" must be "url", "request-header", "response-header", "request-body" or "response-body"`);
  }
  if (f.part !== 'name' && f.part !== 'value') throw bad(`${command}: "field.part" must be "name" or "value"`);
  return { kind: f.kind, header: wholeNumber(f.header, 'field.header', command), part: f.part };
}

export class SessionCommands {
  private readonly indexes = new Map<string, Promise<{ info: SessionInfo; entries: SessionEntries }>>();
  private saving: { id: string; key: string; value: Promise<FieldValue | undefined>; timer: NodeJS.Timeout } | undefined;

  constructor(private readonly backend: SessionBackend) {}

  /** The session's index: cached unless `fresh` (opening re-reads: a recording grows). */
  private index(id: string, fresh = false): Promise<{ info: SessionInfo; entries: SessionEntries }> {
    let index = fresh ? undefined : this.indexes.get(id);
    if (!index) {
      index = this.backend.entries(id);
      this.forget(id);
      this.indexes.set(id, index);
      index.catch(() => this.indexes.get(id) === index && this.indexes.delete(id));
      while (this.indexes.size > INDEX_CACHE) this.forget(this.indexes.keys().next().value!);
    } else {
      // Most recently used last.
      this.indexes.delete(id);
      this.indexes.set(id, index);
    }
    return index;
  }

  /** Drops what is cached of a session (after delete, and when it is opened again). */
  forget(id: string): void {
    this.indexes.delete(id);
    if (this.saving?.id === id) this.dropSaving();
  }

  private dropSaving(): void {
    clearTimeout(this.saving?.timer);
    this.saving = undefined;
  }

  close(): void {
    this.dropSaving();
    this.indexes.clear();
  }

  /** With `cap`, long strings are cut while reading (rows and Details); bodies and saved values read whole. */
  private async entry(
    a: Record<string, unknown>,
    command: string,
    cap?: number,
  ): Promise<{ id: string; index: number; entry: LooseHarEntry }> {
    const id = sessionId(a, command);
    const index = wholeNumber(a.index, 'index', command);
    const { info, entries } = await this.index(id);
    if (index >= entries.count)
      throw new NetlensError(ErrorCodes.NOT_FOUND, `Session "${info.name}" has no entry ${index} (it has ${entries.count}).`);
    return { id, index, entry: await entries.entry(index, cap) };
  }

  async open(a: unknown): Promise<OpenedSession> {
    const id = sessionId(args(a, 'openSession'), 'openSession');
    const { info, entries } = await this.index(id, true);
    const rows: ExchangeSummary[] = [];
    let urlBudget = ROWS_URL_BUDGET;
    for await (const e of entries.all(READ_CAP)) {
      const row = sessionRow(e, rows.length);
      if (urlBudget <= 0 && row.url.length > SHORT_URL_CAP) {
        const short = cutText(row.url, SHORT_URL_CAP);
        row.url = short.text;
        row.urlCut = { fullBytes: row.urlCut?.fullBytes ?? Buffer.byteLength(row.url), shownBytes: short.cut!.shownBytes };
      }
      urlBudget -= row.url.length;
      rows.push(row);
    }
    return { info: { ...info, entryCount: rows.length }, rows, pages: sessionPages(entries.pages) };
  }

  async detail(a: unknown): Promise<ExchangeDetail> {
    const { index, entry } = await this.entry(args(a, 'getSessionEntry'), 'getSessionEntry', READ_CAP);
    return sessionDetail(entry, index);
  }

  async body(a: unknown): Promise<BodyView> {
    const o = args(a, 'getSessionBody');
    if (o.side !== 'request' && o.side !== 'response') throw bad('getSessionBody: "side" must be "request" or "response"');
    let { entry } = await this.entry(o, 'getSessionBody', BODY_READ_CAP);
    // Base64 cut while reading cannot say its decoded size exactly: read that body whole (one at a time, see EntryFile).
    if (cutBase64(entry, o.side)) entry = (await this.entry(o, 'getSessionBody')).entry;
    return harBodyView(entry, o.side);
  }

  async field(a: unknown): Promise<SessionFieldChunk> {
    const o = args(a, 'getSessionField');
    const field = sessionField(o.field, 'getSessionField');
    const offset = o.offset === undefined ? 0 : wholeNumber(o.offset, 'offset', 'getSessionField');
    const id = sessionId(o, 'getSessionField');
    const index = wholeNumber(o.index, 'index', 'getSessionField');
    const key = JSON.stringify([id, index, field]);
    if (this.saving?.key === key) this.saving.timer.refresh();
    else {
      this.dropSaving();
      const value = this.entry(o, 'getSessionField').then(({ entry }) => fieldValue(entry, field));
      const timer = setTimeout(() => this.saving?.value === value && this.dropSaving(), FIELD_TTL_MS);
      timer.unref();
      this.saving = { id, key, value, timer };
      value.catch(() => this.saving?.value === value && this.dropSaving());
    }
    const value = await this.saving!.value;
    if (value === undefined) {
      const what = field.kind === 'url' ? 'URL' : 'header' in field ? `${field.kind} ${field.header}` : field.kind.replace('-', ' ');
      throw new NetlensError(ErrorCodes.NOT_FOUND, `Entry ${index} has no ${what}.`);
    }
    return fieldChunk(value, offset);
  }
}
