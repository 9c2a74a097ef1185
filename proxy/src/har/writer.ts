/**
 * Streaming HAR writer: the file is written entry by entry, so a session of
 * 100,000 entries never exists as one string (or one object) in memory. The
 * output is what `JSON.stringify(har, null, 2)` would give (except RawJsonEntry
 * entries, which stay compact on one line each, and the bodies of PiecesEntry
 * entries, compact inside their indented entry), written to a temporary file and
 * renamed into place, so a reader never sees half a HAR.
 */
import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import type { HarEntry, HarHead } from './types.js';
import { version as netlensVersion } from './version.js';

/**
 * `log.creator` of the HARs Netlens writes. The version is read on use, not at import:
 * the entry point sets it (app-paths.ts) after its imports ran. A getter is enumerable
 * here, so JSON.stringify, spreads and structured clones see a plain `version` string.
 */
export const NETLENS_CREATOR = {
  name: 'Netlens',
  get version(): string {
    return netlensVersion();
  },
};

/**
 * An entry already serialized (compact JSON, e.g. a journal line's entry):
 * written as is, on one line, instead of parsed and pretty-printed again.
 */
export class RawJsonEntry {
  constructor(readonly json: string) {}
}

/**
 * An entry in parts: pretty-printed JSON text around JSON already made as bytes (a large body's `content`, made a
 * slice per event-loop turn by content-job.ts). The text parts are indented as other entries are; the bytes are
 * written as they are, never turned into one string: a body of tens of MiB made into one took the event loop for
 * hundreds of milliseconds (JSON.stringify, the indentation, the string's UTF-8 encoding).
 */
export class PiecesEntry {
  constructor(readonly pieces: readonly (string | Uint8Array)[]) {}
}

export interface WriteResult {
  entries: number;
  bytes: number;
}

/** A string that cannot occur in JSON output of real data (it contains a NUL). */
const PLACEHOLDER = '\u0000netlens-entries\u0000';

/** Splits the HAR around its entries: what comes before the first entry and after the last. */
function frame(head: HarHead): { before: string; after: string } {
  const log = {
    version: '1.2',
    creator: head.creator,
    ...(head.browser ? { browser: head.browser } : {}),
    pages: head.pages,
    ...(head.comment ? { comment: head.comment } : {}),
    ...head.extra,
    entries: [PLACEHOLDER],
  };
  const json = JSON.stringify({ log }, null, 2);
  const quoted = JSON.stringify(PLACEHOLDER);
  const at = json.indexOf(quoted);
  // `before` ends right after "entries": [ ; `after` starts at its closing bracket.
  const open = json.lastIndexOf('[', at);
  const close = json.indexOf(']', at + quoted.length);
  return { before: json.slice(0, open + 1), after: json.slice(close) };
}

const ENTRY_INDENT = '\n      ';
/** Characters gathered before one stream write. */
const WRITE_BATCH_CHARS = 1 << 20;

/**
 * Writes a HAR file from an (async) iterable of entries. Honors back-pressure, so
 * memory stays bounded by one entry plus the stream's buffer.
 */
export async function writeHar(
  file: string,
  head: HarHead,
  entries: Iterable<HarEntry | RawJsonEntry | PiecesEntry> | AsyncIterable<HarEntry | RawJsonEntry | PiecesEntry>,
  options: { mode?: number } = {},
): Promise<WriteResult> {
  const dir = path.dirname(path.resolve(file));
  await fs.promises.mkdir(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  const out = fs.createWriteStream(tmp, { flags: 'wx', mode: options.mode ?? 0o666 });
  let bytes = 0;
  let count = 0;
  // Entries are gathered into ~1 MiB strings before they reach the stream: one
  // write per entry (a syscall each) was most of the cost of a 200k-entry HAR.
  let batch = '';
  const flush = async () => {
    if (batch.length === 0) return;
    const s = batch;
    batch = '';
    bytes += Buffer.byteLength(s);
    if (!out.write(s)) await once(out, 'drain');
  };
  const write = async (s: string) => {
    batch += s;
    if (batch.length >= WRITE_BATCH_CHARS) await flush();
  };
  // Bytes go to the stream as they are (after the text before them): no copy, the file written off the event loop.
  const writeBytes = async (b: Uint8Array) => {
    await flush();
    bytes += b.length;
    if (b.length > 0 && !out.write(b)) await once(out, 'drain');
  };
  try {
    const { before, after } = frame(head);
    await write(before);
    for await (const entry of entries) {
      const separator = count === 0 ? ENTRY_INDENT : `,${ENTRY_INDENT}`;
      count++;
      if (entry instanceof PiecesEntry) {
        await write(separator);
        for (const piece of entry.pieces) {
          if (typeof piece === 'string') await write(piece.replace(/\n/g, ENTRY_INDENT));
          else await writeBytes(piece);
        }
        continue;
      }
      const json = entry instanceof RawJsonEntry ? entry.json : JSON.stringify(entry, null, 2).replace(/\n/g, ENTRY_INDENT);
      await write(separator + json);
    }
    await write(count > 0 ? `\n    ${after}\n` : `${after}\n`);
    await flush();
    out.end();
    await once(out, 'close');
    await fs.promises.rename(tmp, file);
  } catch (err) {
    // The file may still be opening (nothing was written yet: entries are batched), and
    // an open that completes after the rm would leave it behind: wait for the close first.
    const closed = out.closed
      ? Promise.resolve()
      : once(out, 'close').then(
          () => undefined,
          () => undefined,
        );
    out.destroy();
    await closed;
    await fs.promises.rm(tmp, { force: true });
    throw err;
  }
  return { entries: count, bytes };
}
