/**
 * Entry-by-entry access to a stored session without loading it whole.
 *
 * A session of 100 MB (one 95 MiB header is enough) must not be read into one
 * string and parsed into one object tree to show a list of rows: that held two
 * full copies in the core and sent ~100 M characters to the page. Instead the
 * HAR file is scanned once, byte by byte, for where each `log.entries[i]` starts
 * and ends (24 bytes per entry, see EntryIndex); an entry is read and parsed
 * only when it is needed, and dropped afterwards.
 *
 * The scanner understands JSON structure only as far as it needs to (strings,
 * escapes, nesting, the keys `log` and `entries`): files it reads were checked
 * when they were imported or written by Netlens.
 */
import fs from 'node:fs';
import { EntryIndex, entryOfRecord, scanJournal } from '../har/journal.js';
import { JsonCapper } from './capped-json.js';
import type { HarEntry, HarPage } from '../har/types.js';

export interface EntryFileScan {
  /** Where each entry's JSON is (in file order). */
  entries: EntryIndex;
  /** The HAR with an empty `entries` array: version, creator, pages… (small in any real file). */
  head: Record<string, unknown>;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_OBJ = 0x7b;
const CLOSE_OBJ = 0x7d;
const OPEN_ARR = 0x5b;
const CLOSE_ARR = 0x5d;
/** Keys are remembered only this long: we only look for `log` and `entries`. */
const KEY_PREFIX = 16;

/** Capped reads go through the entry in pieces of this size. */
const READ_PIECE = 1024 * 1024;

/** Thrown when the file is not a HAR the scanner can index. */
export class EntryFileError extends Error {}

/**
 * Scans a HAR file for its entries. Memory: the index, the head (everything
 * but the entries), one read buffer; never an entry.
 */
export async function scanHarEntries(file: string): Promise<EntryFileScan> {
  const entries = new EntryIndex();
  const headParts: Buffer[] = [];
  let headBytes = 0;
  // Parser state, kept across chunks.
  const stack: number[] = []; // open brackets
  const keyAt: string[] = []; // per depth: the last key read in that object
  let inString = false;
  let escaped = false;
  let str: number[] = []; // first KEY_PREFIX bytes of the current string
  let lastString = '';
  let entriesDepth = -1; // stack depth of the `log.entries` array while inside it
  let entryStart = -1;
  let position = 0;

  const keep = (chunk: Buffer, from: number, to: number) => {
    if (to <= from) return;
    headBytes += to - from;
    if (headBytes > 64 * 1024 * 1024) throw new EntryFileError('the HAR holds more than 64 MiB outside its entries');
    headParts.push(Buffer.from(chunk.subarray(from, to)));
  };

  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    // Bytes outside the entries array are copied to the head; `copyFrom` is where the uncopied run starts.
    let copyFrom = entriesDepth >= 0 ? -1 : 0;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (b === BACKSLASH) escaped = true;
        else if (b === QUOTE) {
          inString = false;
          lastString = Buffer.from(str).toString('latin1');
        } else if (str.length < KEY_PREFIX) str.push(b);
        else {
          // Skip ahead to the next quote or backslash: long strings are most of a big HAR's bytes.
          const q = chunk.indexOf(QUOTE, i);
          const s = chunk.indexOf(BACKSLASH, i);
          const next = q < 0 ? s : s < 0 ? q : Math.min(q, s);
          if (next < 0) i = chunk.length - 1;
          else i = next - 1;
        }
        continue;
      }
      // Directly inside `entries`: only objects (and the commas and spaces between them) belong here.
      const between = b === OPEN_OBJ || b === CLOSE_ARR || b === 0x2c || b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
      if (entriesDepth >= 0 && stack.length === entriesDepth && !between) {
        throw new EntryFileError(`log.entries[${entries.length}] is not an object`);
      }
      switch (b) {
        case QUOTE:
          inString = true;
          str = [];
          break;
        case COLON:
          keyAt[stack.length] = lastString;
          break;
        case OPEN_OBJ:
        case OPEN_ARR: {
          stack.push(b);
          const depth = stack.length;
          if (
            depth === 3 &&
            b === OPEN_ARR &&
            keyAt[2] === 'entries' &&
            keyAt[1] === 'log' &&
            stack[0] === OPEN_OBJ &&
            stack[1] === OPEN_OBJ
          ) {
            // `{"log":{…,"entries":[` : from here on, bytes belong to entries, not the head.
            entriesDepth = depth;
            keep(chunk, copyFrom, i + 1);
            copyFrom = -1;
          } else if (entriesDepth >= 0 && depth === entriesDepth + 1) {
            entryStart = position + i;
          }
          keyAt[depth] = '';
          break;
        }
        case CLOSE_OBJ:
        case CLOSE_ARR: {
          const depth = stack.length;
          if (depth === 0) throw new EntryFileError(`unbalanced "${String.fromCharCode(b)}" at byte ${position + i}`);
          stack.pop();
          if (entriesDepth >= 0 && depth === entriesDepth + 1 && entryStart >= 0) {
            entries.push(entryStart, position + i + 1 - entryStart, 0);
            entryStart = -1;
          } else if (depth === entriesDepth) {
            entriesDepth = -2; // seen and closed: a second `entries` key is not looked for
            copyFrom = i;
          }
          break;
        }
        default:
          break;
      }
    }
    if (copyFrom >= 0) keep(chunk, copyFrom, chunk.length);
    position += chunk.length;
  }
  if (inString || stack.length > 0) throw new EntryFileError('the HAR ends before its JSON is complete');
  if (entriesDepth !== -2) throw new EntryFileError('no "log.entries" array');
  let head: unknown;
  try {
    head = JSON.parse(Buffer.concat(headParts).toString('utf8'));
  } catch (err) {
    throw new EntryFileError(`the HAR outside its entries is not valid JSON (${(err as Error).message})`);
  }
  return { entries, head: head as Record<string, unknown> };
}

/** Pages of a HAR head, when it has a list of them. */
function pagesOf(head: Record<string, unknown>): HarPage[] {
  const log = head.log as { pages?: unknown } | undefined;
  return Array.isArray(log?.pages) ? (log.pages as HarPage[]) : [];
}

/** The socket timeline's fields of a HAR head (log._connections, _connectionsDropped, _connectionsTimeOrigin), if any. */
function timelineOf(head: Record<string, unknown>): Record<string, unknown> | undefined {
  const log = head.log as Record<string, unknown> | undefined;
  if (!log || !Array.isArray(log._connections)) return undefined;
  const { _connections, _connectionsDropped, _connectionsTimeOrigin } = log;
  return { _connections, _connectionsDropped, _connectionsTimeOrigin };
}

/**
 * One stored HAR (or a recording's journal), indexed: `count` entries, each
 * read from disk when asked for. Reads run one at a time, so a session with
 * several huge entries never has two of them in memory at once.
 */
export class EntryFile {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly refs: Array<{ offset: number; length: number }>;

  private constructor(
    readonly file: string,
    entries: Iterable<{ offset: number; length: number }>,
    readonly pages: HarPage[],
    /** Journal lines are `{"t":"entry","entry":{…}}` or exchange lines (`{"t":"x",…}`); HAR ranges are the entry itself. */
    private readonly wrapped: boolean,
    /** The socket timeline's `log` fields (`_connections`…), when the session has them. */
    readonly timeline?: Record<string, unknown>,
  ) {
    this.refs = [...entries];
  }

  static async har(file: string): Promise<EntryFile> {
    const scan = await scanHarEntries(file);
    return new EntryFile(file, scan.entries.inOrder(), pagesOf(scan.head), false, timelineOf(scan.head));
  }

  /** A recording in progress: entries oldest start first, as its HAR will have them. */
  static async journal(file: string): Promise<EntryFile> {
    const scan = await scanJournal(file);
    return new EntryFile(file, scan.entries.sorted(), scan.pages, true, scan.connections);
  }

  get count(): number {
    return this.refs.length;
  }

  /** Bytes of entry `i` in the file (its JSON text). */
  size(i: number): number {
    return this.refs[i]?.length ?? 0;
  }

  /**
   * Entry `i`, parsed; `i` must be in range (callers check). With `cap`, strings
   * longer than `cap` bytes are cut while reading (capped-json.ts, `splitCut`):
   * memory then stays near the cut size whatever the entry holds.
   */
  entry(i: number, cap?: number): Promise<HarEntry> {
    const ref = this.refs[i];
    if (!ref) return Promise.reject(new RangeError(`no entry ${i}`));
    return this.oneAtATime(() => this.read(ref, cap));
  }

  /** Every entry in order, one in memory at a time (one file handle for all of them). */
  async *all(cap?: number): AsyncGenerator<HarEntry> {
    const fh = await fs.promises.open(this.file, 'r');
    try {
      for (const ref of this.refs) yield await this.oneAtATime(() => this.readFrom(fh, ref, cap));
    } finally {
      await fh.close();
    }
  }

  private oneAtATime<T>(read: () => Promise<T>): Promise<T> {
    const next = this.queue.then(read);
    // Settle to undefined: `catch` alone would pass the entry through and keep it alive here.
    this.queue = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  private async read(ref: { offset: number; length: number }, cap?: number): Promise<HarEntry> {
    const fh = await fs.promises.open(this.file, 'r');
    try {
      return await this.readFrom(fh, ref, cap);
    } finally {
      await fh.close();
    }
  }

  private async readFrom(fh: fs.promises.FileHandle, ref: { offset: number; length: number }, cap?: number): Promise<HarEntry> {
    const value = JSON.parse(cap === undefined ? await this.whole(fh, ref) : await this.capped(fh, ref, cap)) as {
      entry?: HarEntry;
    } & HarEntry;
    if (!this.wrapped) return value;
    // (A journal line's own keys and an exchange line's layout are never long: the cut cannot touch them.)
    const entry = entryOfRecord(value);
    if (!entry) throw new EntryFileError(`${this.file}: a journal line without an entry`);
    return entry;
  }

  private async whole(fh: fs.promises.FileHandle, ref: { offset: number; length: number }): Promise<string> {
    const buf = Buffer.allocUnsafe(ref.length);
    const { bytesRead } = await fh.read(buf, 0, ref.length, ref.offset);
    if (bytesRead !== ref.length) throw new EntryFileError(`${this.file} changed on disk while open`);
    return buf.toString('utf8');
  }

  private async capped(fh: fs.promises.FileHandle, ref: { offset: number; length: number }, cap: number): Promise<string> {
    const capper = new JsonCapper(cap);
    const buf = Buffer.allocUnsafe(Math.min(ref.length, READ_PIECE));
    for (let done = 0; done < ref.length;) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, ref.length - done), ref.offset + done);
      if (bytesRead === 0) throw new EntryFileError(`${this.file} changed on disk while open`);
      capper.write(buf.subarray(0, bytesRead));
      done += bytesRead;
    }
    return capper.text();
  }
}
