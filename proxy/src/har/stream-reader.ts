/**
 * Reading a HAR file as a stream: the same checks and normalization as
 * reader.ts, one entry at a time, so files of any size are validated and
 * imported in bounded memory. (JSON.parse needs the whole file as one string,
 * and V8 strings stop at ~512 MiB: a large recording could otherwise be
 * exported but never opened again.)
 *
 * The JSON is tokenized by @streamparser/json; each `log.entries[i]` is handed
 * over as soon as it is complete and then dropped from the parser's tree.
 */
import fs from 'node:fs';
import { lazyRequire } from '../lazy-require.js';

const streamparser = lazyRequire<typeof import('@streamparser/json')>('@streamparser/json');
import type { HarEntry, HarLog } from './types.js';
import { entrySchemaProblems, logSchemaProblems } from './schema.js';
import {
  danglingPageref,
  entryErrors,
  entrySemanticWarnings,
  isObject,
  IssueGroups,
  MAX_ERRORS,
  normalizeEntry,
  normalizeLogHead,
  schemaWarning,
  type HarIssue,
} from './reader.js';

export interface HarScanResult {
  /** `log` without its entries, normalized; undefined when there are errors. */
  log?: HarLog;
  /** Entries read (and handed to onEntry). */
  entries: number;
  warnings: HarIssue[];
  errors: HarIssue[];
  /** Pagerefs that name no page in log.pages: drop them (dropPageref) when writing the entries. */
  danglingPagerefs: Set<string>;
}

const TRUNCATED = 'truncated: the JSON ends before the HAR is complete (was the file cut short while being written?)';

class StopReading extends Error {}

/**
 * Reads and checks a HAR file entry by entry. `onEntry` gets each normalized
 * entry in file order, synchronously, before the next one is parsed; it is not
 * called any more once an error is found (the caller then discards what it got).
 */
export async function scanHarFile(file: string, onEntry?: (entry: HarEntry, index: number) => void): Promise<HarScanResult> {
  const warnings = new IssueGroups();
  const errors: HarIssue[] = [];
  const danglingPagerefs = new Set<string>();
  const result = (): HarScanResult => ({ entries: count, warnings: warnings.list(), errors, danglingPagerefs });
  const fail = (message: string, path = '') => errors.push({ path, message, count: 1 });

  let count = 0;
  let root: unknown;
  const pagerefs = new Map<string, { first: number; count: number }>();

  const { Tokenizer, TokenParser } = streamparser();
  const tokenizer = new Tokenizer({ stringBufferSize: 64 * 1024 });
  const parser = new TokenParser({ paths: ['$.log.entries.*', '$'], keepStack: true });
  let lastOffset = 0;
  tokenizer.onToken = (t) => {
    lastOffset = t.offset;
    parser.write(t);
  };
  parser.onValue = ({ value, parent, stack }) => {
    if (stack.length === 0) {
      root = value;
      return;
    }
    if (stack.length !== 3 || stack[1].key !== 'log' || stack[2].key !== 'entries' || !Array.isArray(parent)) return;
    const i = count++;
    // Drop it from the tree being built: the entry is handled here and nowhere else.
    parent.length = 0;
    const bad = entryErrors(value, i);
    if (bad.length) {
      errors.push(...bad.slice(0, MAX_ERRORS - errors.length));
      if (errors.length >= MAX_ERRORS) throw new StopReading();
      return;
    }
    if (errors.length) return;
    const e = value as Record<string, unknown>;
    warnings.add(entrySchemaProblems(e, i).map(schemaWarning));
    warnings.add(entrySemanticWarnings(e, i));
    if (typeof e.pageref === 'string') {
      const seen = pagerefs.get(e.pageref);
      if (seen) seen.count++;
      else pagerefs.set(e.pageref, { first: i, count: 1 });
    }
    onEntry?.(normalizeEntry(e), i);
  };

  // Line and column of a byte offset, for error messages.
  let lines = 1;
  let lastNewline = -1;
  let consumed = 0;
  let chunk: Buffer = Buffer.alloc(0);
  const where = (offset: number): string => {
    if (offset < consumed || offset > consumed + chunk.length) return `at byte ${offset + 1}`;
    const part = chunk.subarray(0, offset - consumed);
    let line = lines;
    let nl = lastNewline;
    for (let k = part.indexOf(10); k >= 0; k = part.indexOf(10, k + 1)) {
      line++;
      nl = consumed + k;
    }
    return `at line ${line}, column ${offset - nl}`;
  };

  let stream: fs.ReadStream | undefined;
  let blank = true;
  try {
    stream = fs.createReadStream(file, { highWaterMark: 256 * 1024 });
    let first = true;
    let blankSoFar = true;
    for await (const data of stream as AsyncIterable<Buffer>) {
      chunk = data;
      if (first) {
        first = false;
        if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) {
          warnings.add([{ path: '', message: 'file starts with a UTF-8 byte-order mark (ignored)', count: 1 }]);
          chunk = chunk.subarray(3);
        }
      }
      if (blankSoFar && /[^\s]/.test(chunk.toString('latin1'))) blankSoFar = false;
      blank = blankSoFar;
      try {
        tokenizer.write(chunk);
      } catch (err) {
        if (err instanceof StopReading) return result();
        const message = (err as Error).message;
        const abs = /absolute position "(\d+)"/.exec(message);
        const at = where(abs ? Number(abs[1]) : lastOffset);
        const what = message.replace(/ at chunk position.*$/, '').replace(/ in state \w+$/, '');
        fail(parser.isEnded ? `not valid JSON ${at}: more data after the end of the HAR` : `not valid JSON ${at}: ${what}`);
        return result();
      }
      for (let k = chunk.indexOf(10); k >= 0; k = chunk.indexOf(10, k + 1)) {
        lines++;
        lastNewline = consumed + k;
      }
      consumed += chunk.length;
    }
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'is a directory' : e.message;
    fail(`cannot read ${file}: ${why}`);
    return result();
  } finally {
    stream?.destroy();
  }
  if (blank) {
    fail('file is empty: not a HAR');
    return result();
  }
  if (!parser.isEnded) {
    fail(TRUNCATED);
    return result();
  }
  if (errors.length) return result();

  if (!isObject(root))
    fail(
      `not a HAR: the file holds a JSON ${Array.isArray(root) ? 'array' : root === null ? 'null' : typeof root}, not an object with "log"`,
    );
  else if (!('log' in root)) fail('missing (not a HAR file)', 'log');
  else if (!isObject(root.log)) fail('must be an object', 'log');
  else if (!('entries' in root.log)) fail('missing', 'log.entries');
  else if (!Array.isArray(root.log.entries)) fail('must be an array', 'log.entries');
  if (errors.length) return result();

  const rawLog = (root as { log: Record<string, unknown> }).log;
  warnings.add(logSchemaProblems({ ...rawLog, entries: [] }).map(schemaWarning));
  const log = normalizeLogHead(rawLog);
  const pageIds = new Set((log.pages ?? []).map((p) => p.id));
  for (const [pageref, seen] of pagerefs) {
    if (pageIds.has(pageref)) continue;
    danglingPagerefs.add(pageref);
    warnings.add([{ ...danglingPageref(pageref, seen.first), count: seen.count }]);
  }
  return { ...result(), log };
}
