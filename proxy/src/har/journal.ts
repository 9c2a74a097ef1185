/**
 * The recording journal: one JSON record per line, appended as exchanges
 * complete, so a crash or `kill -9` loses at most the exchanges still in
 * flight and the recorder's last batch. The HAR is assembled from it on save/export (see exportJournal).
 *
 * Why synchronous appends: a write that sits in a JS buffer dies with the
 * process; `fs.writeSync` hands the bytes to the kernel before the event handler
 * returns, and the kernel keeps them even if the process is killed right after.
 * A recorder batches the records of up to 10 ms (or 64 exchanges) into one write
 * (`appendBytes`), so a busy proxy makes one syscall per batch, not per exchange;
 * what a crash can lose is that batch (recorder.ts).
 *
 * Line format (`t` and `s` first so a scan can index a line without parsing it):
 *   {"t":"meta","format":"netlens-journal/2",...}
 *   {"t":"page","page":{...HAR page}}            a later line with the same id replaces it
 *   {"t":"x","d":"<startedDateTime>","x":[...]}  an exchange as the recorder wrote it (exchange-line.ts);
 *                                                its HAR entry is made when the journal is read
 *   {"t":"entry","s":<epoch ms>,"entry":{...HAR entry}}   an entry as it is (imports, copies)
 * Version 1 journals (before 2026-11-26) have no "x" lines; both read the same.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { HarCreator, HarEntry, HarHead, HarPage } from './types.js';
import { NETLENS_CREATOR, RawJsonEntry, writeHar, type WriteResult } from './writer.js';
import { entryFromExchangeRecord, isoMs } from './exchange-line.js';

export const JOURNAL_FORMAT = 'netlens-journal/2';

export interface JournalMeta {
  t: 'meta';
  format: typeof JOURNAL_FORMAT;
  /** When recording started (ISO). */
  created: string;
  creator: HarCreator;
  name?: string;
}

/** The journal line for one entry (`s` = start in epoch ms, for indexing without parsing the entry). */
export function entryRecord(entry: HarEntry): object {
  const started = Date.parse(entry.startedDateTime);
  return { t: 'entry', s: Number.isNaN(started) ? 0 : started, entry };
}

export function pageRecord(page: HarPage): object {
  return { t: 'page', page };
}

/** The socket timeline's `log` fields (timeline/recorder.ts), written when recording stops; the last one wins. */
export function connectionsRecord(log: object): object {
  return { t: 'connections', log };
}

/**
 * Journals open for writing in this process, by absolute path. A writer that
 * holds records back (the recorder batches them, see recorder.ts) sets
 * `beforeRead`; scanJournal calls it first, so a reader in the same process
 * (export, a session opened while recording, the API's entry list) never misses
 * a finished exchange still waiting for its batch.
 */
const openWriters = new Map<string, JournalWriter>();

/** Writes out what the writer of `file` in this process holds back, if any. */
export function flushBeforeRead(file: string): void {
  openWriters.get(path.resolve(file))?.beforeRead?.();
}

export class JournalWriter {
  closed = false;
  /** Entries appended so far. */
  entries = 0;
  /** Called before this process reads the journal (see flushBeforeRead). */
  beforeRead?: () => void;

  private constructor(
    readonly file: string,
    private readonly fd: number,
  ) {}

  /** Creates a new journal (fails if the file exists: never append to someone else's recording). */
  static create(file: string, meta: Omit<JournalMeta, 't' | 'format' | 'creator'> & { creator?: HarCreator }): JournalWriter {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const fd = fs.openSync(file, 'wx', 0o600);
    const journal = new JournalWriter(file, fd);
    openWriters.set(path.resolve(file), journal);
    journal.writeLine({
      t: 'meta',
      format: JOURNAL_FORMAT,
      creator: meta.creator ?? NETLENS_CREATOR,
      created: meta.created,
      ...(meta.name ? { name: meta.name } : {}),
    });
    return journal;
  }

  appendEntry(entry: HarEntry): void {
    this.writeLine(entryRecord(entry));
    this.entries++;
  }

  appendPage(page: HarPage): void {
    this.writeLine(pageRecord(page));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (openWriters.get(path.resolve(this.file)) === this) openWriters.delete(path.resolve(this.file));
    fs.closeSync(this.fd);
  }

  /**
   * Appends already-built entry and page records in one write. Records are
   * `{t:'entry', s, entry}` / `{t:'page', page}` as made by `entryRecord` / `pageRecord`.
   */
  appendRecords(records: readonly object[]): void {
    if (records.length === 0) return;
    let text = '';
    for (const r of records) {
      text += JSON.stringify(r) + '\n';
      if ((r as { t?: string }).t === 'entry') this.entries++;
    }
    this.writeText(text);
  }

  /** Appends journal lines already serialized as UTF-8 bytes (each ending in '\n') in one write; `entries` of them are entry lines. */
  appendBytes(bytes: Uint8Array, entries: number): void {
    if (bytes.length === 0) return;
    if (this.closed) throw new Error(`journal ${this.file} is closed`);
    // writeSync may write less than asked for large buffers: loop until all of it is out.
    let off = 0;
    while (off < bytes.length) off += fs.writeSync(this.fd, bytes, off, bytes.length - off);
    this.entries += entries;
  }

  private writeLine(record: object): void {
    this.writeText(JSON.stringify(record) + '\n');
  }

  private writeText(text: string): void {
    if (this.closed) throw new Error(`journal ${this.file} is closed`);
    // The string goes to the kernel as is (encoded in C++): no Buffer made per write. Only a
    // short write, rare for a regular file, pays for a Buffer to write the rest from.
    const written = fs.writeSync(this.fd, text);
    if (written >= Buffer.byteLength(text)) return;
    const buf = Buffer.from(text);
    // writeSync may write less than asked for large buffers: loop until all of it is out.
    let off = written;
    while (off < buf.length) off += fs.writeSync(this.fd, buf, off, buf.length - off);
  }
}

/**
 * Where each entry line is: parallel typed arrays (24 bytes per entry) rather
 * than an object per entry, so indexing 100k+ entries stays a few MiB.
 */
export class EntryIndex {
  private offsets = new Float64Array(1024);
  private lengths = new Uint32Array(1024);
  private starts = new Float64Array(1024);
  length = 0;

  push(offset: number, length: number, started: number): void {
    if (this.length === this.offsets.length) {
      const grow = <T extends Float64Array | Uint32Array>(a: T): T => {
        const b = new (a.constructor as new (n: number) => T)(a.length * 2);
        b.set(a);
        return b;
      };
      this.offsets = grow(this.offsets);
      this.lengths = grow(this.lengths);
      this.starts = grow(this.starts);
    }
    this.offsets[this.length] = offset;
    this.lengths[this.length] = length;
    this.starts[this.length] = started;
    this.length++;
  }

  /** Positions of the entries in the order they were written. */
  *inOrder(): Generator<{ offset: number; length: number }> {
    for (let i = 0; i < this.length; i++) yield { offset: this.offsets[i], length: this.lengths[i] };
  }

  /** Positions of the entries, oldest start first (stable for equal starts). */
  *sorted(): Generator<{ offset: number; length: number }> {
    const order = new Uint32Array(this.length);
    for (let i = 0; i < order.length; i++) order[i] = i;
    const starts = this.starts;
    order.sort((a, b) => starts[a] - starts[b] || a - b);
    for (const i of order) yield { offset: this.offsets[i], length: this.lengths[i] };
  }
}

export interface JournalScan {
  meta?: JournalMeta;
  pages: HarPage[];
  entries: EntryIndex;
  /** Bytes at the end that do not form a whole line (a write cut short by a crash). */
  incompleteTail: number;
  /** Lines that are not journal records (kept out of the HAR). */
  damagedLines: number;
  /** The socket timeline's `log` fields (`_connections`…), when recorded. */
  connections?: Record<string, unknown>;
}

/** A line's type and, for an entry line, `s` (epoch ms) or, for an exchange line, `d` (its startedDateTime). */
const LINE_HEAD = /^\{"t":"(meta|page|entry|x|connections)"(?:,"s":(-?\d+(?:\.\d+)?)|,"d":"([^"\\]{0,40})")?/;

/** Indexes a journal in one streaming pass: entries are located (offset, length), not loaded. */
export async function scanJournal(file: string): Promise<JournalScan> {
  flushBeforeRead(file);
  const scan: JournalScan = { pages: [], entries: new EntryIndex(), incompleteTail: 0, damagedLines: 0 };
  const pages = new Map<string, HarPage>();
  let carry: Buffer[] = [];
  let carryLength = 0;
  let lineStart = 0;
  let position = 0;
  const onLine = (line: Buffer, offset: number) => {
    const head = LINE_HEAD.exec(line.subarray(0, 64).toString('latin1'));
    if (!head) {
      if (line.length > 0) scan.damagedLines++;
      return;
    }
    if (head[1] === 'entry' || head[1] === 'x') {
      const started = head[3] !== undefined ? isoMs(head[3]) : Number(head[2] ?? 0);
      scan.entries.push(offset, line.length, Number.isNaN(started) ? 0 : started);
      return;
    }
    try {
      const record = JSON.parse(line.toString('utf8'));
      if (head[1] === 'meta') scan.meta = record as JournalMeta;
      else if (head[1] === 'connections') scan.connections = record.log && typeof record.log === 'object' ? record.log : undefined;
      else if (record.page?.id) pages.set(record.page.id, record.page as HarPage);
    } catch {
      scan.damagedLines++;
    }
  };
  for await (const chunk of fs.createReadStream(file) as AsyncIterable<Buffer>) {
    let from = 0;
    for (let nl = chunk.indexOf(10, from); nl >= 0; nl = chunk.indexOf(10, from)) {
      const piece = chunk.subarray(from, nl);
      const line = carryLength ? Buffer.concat([...carry, piece]) : piece;
      onLine(line, lineStart);
      lineStart = position + nl + 1;
      carry = [];
      carryLength = 0;
      from = nl + 1;
    }
    if (from < chunk.length) {
      carry.push(chunk.subarray(from));
      carryLength += chunk.length - from;
    }
    position += chunk.length;
  }
  scan.incompleteTail = carryLength;
  scan.pages = [...pages.values()];
  return scan;
}

/** Bytes read per read call when assembling a HAR: one read serves hundreds of entries. */
const READ_WINDOW = 1 << 20;

/**
 * The text of the journal's entry lines, oldest `startedDateTime` first (HAR 1.2's
 * preferred order; a recording journal holds them in completion order), or in the
 * order written (`order: 'written'`, for copies of existing files).
 *
 * Why a read window: a recording journal is almost sorted by start already, so
 * consecutive entries are near each other in the file. Reading 1 MiB at a time
 * (starting a little before the wanted line, for entries that finished late)
 * replaces one read call per entry, which made stopping a 200k-entry recording
 * take ~40 s. Memory stays bounded by the window (or the longest line).
 */
async function* journalLines(file: string, scan: JournalScan, order: 'started' | 'written'): AsyncGenerator<string | undefined> {
  const fh = await fs.promises.open(file, 'r');
  let window = Buffer.allocUnsafe(READ_WINDOW);
  let windowStart = 0;
  let windowLength = 0;
  try {
    for (const ref of order === 'started' ? scan.entries.sorted() : scan.entries.inOrder()) {
      if (ref.offset < windowStart || ref.offset + ref.length > windowStart + windowLength) {
        const size = Math.max(READ_WINDOW, ref.length + READ_WINDOW / 4);
        if (window.length < size) window = Buffer.allocUnsafe(size);
        windowStart = Math.max(0, ref.offset - READ_WINDOW / 4);
        windowLength = (await fh.read(window, 0, window.length, windowStart)).bytesRead;
      }
      const at = ref.offset - windowStart;
      // undefined: the file is shorter than the scan said (truncated since).
      yield at + ref.length <= windowLength ? window.toString('utf8', at, at + ref.length) : undefined;
    }
  } finally {
    await fh.close();
  }
}

/**
 * The HAR entry of a parsed journal line: an entry line's entry, or the entry made from an exchange
 * line (exchange-line.ts). Undefined for a line that is neither, or that cannot be converted.
 */
export function entryOfRecord(record: unknown): HarEntry | undefined {
  if (typeof record !== 'object' || record === null) return undefined;
  const r = record as { t?: unknown; entry?: unknown; x?: unknown };
  if (r.t === 'x') {
    try {
      return entryFromExchangeRecord(r);
    } catch {
      return undefined;
    }
  }
  return r.entry && typeof r.entry === 'object' && !Array.isArray(r.entry) ? (r.entry as HarEntry) : undefined;
}

function parseLine(line: string | undefined): unknown {
  if (line === undefined) return undefined;
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** The journal's entries (parsed), in start order or as written; damaged lines are skipped and counted. */
export async function* journalEntries(
  file: string,
  scan: JournalScan,
  onDamaged?: () => void,
  order: 'started' | 'written' = 'started',
): AsyncGenerator<HarEntry> {
  for await (const line of journalLines(file, scan, order)) {
    const entry = entryOfRecord(parseLine(line));
    if (entry) yield entry;
    else onDamaged?.();
  }
}

const ENTRY_KEY = '"entry":';

/**
 * The journal's entries as their JSON text, for writing a HAR without
 * re-serializing each entry (which was half of the remaining cost of a stop).
 * Each line is still parsed once, so a damaged line is skipped, never copied
 * into the HAR where it would break the whole file. An exchange line's entry is
 * made from it (exchange-line.ts) and serialized.
 */
async function* journalEntryJson(file: string, scan: JournalScan, onDamaged: () => void): AsyncGenerator<RawJsonEntry> {
  for await (const line of journalLines(file, scan, 'started')) {
    const record = parseLine(line) as { t?: unknown } | undefined;
    if (record?.t === 'x') {
      const entry = entryOfRecord(record);
      if (entry) yield new RawJsonEntry(JSON.stringify(entry));
      else onDamaged();
      continue;
    }
    // Entry lines are written by entryRecord: {"t":"entry","s":N,"entry":{...}} — the entry is everything after its key.
    const at = line?.indexOf(ENTRY_KEY) ?? -1;
    if (!entryOfRecord(record) || at < 0 || line![at + ENTRY_KEY.length] !== '{') {
      onDamaged();
      continue;
    }
    yield new RawJsonEntry(line!.slice(at + ENTRY_KEY.length, -1));
  }
}

export interface JournalExport extends WriteResult {
  /** Lines that could not be read (damaged or cut short); their exchanges are not in the HAR. */
  skipped: number;
  /** The journal's first line (name, start of recording), if it was readable. */
  meta?: JournalMeta;
}

/** Assembles a HAR file from a journal, streaming (bounded memory whatever its length). */
export async function exportJournal(
  journalFile: string,
  harFile: string,
  head: Partial<HarHead> = {},
  options: { mode?: number } = {},
): Promise<JournalExport> {
  const scan = await scanJournal(journalFile);
  let skipped = scan.damagedLines + (scan.incompleteTail > 0 ? 1 : 0);
  const result = await writeHar(
    harFile,
    {
      creator: head.creator ?? scan.meta?.creator ?? NETLENS_CREATOR,
      pages: head.pages ?? scan.pages,
      browser: head.browser,
      comment: head.comment,
      // The socket timeline (log._connections) recorded with the journal, if any.
      extra: { ...scan.connections, ...head.extra },
    },
    journalEntryJson(journalFile, scan, () => skipped++),
    options,
  );
  return { ...result, skipped, meta: scan.meta };
}
