/**
 * exchangeToEntry for readers that make many entries at once while the proxy runs (saving or exporting the live
 * capture): each body is decoded on libuv's thread pool (decodeContentAsync) instead of with zlib's *Sync calls,
 * and a file gets a large body's JSON made a slice per turn (fileEntriesOf).
 *
 * Why: the app's live capture holds every exchange with up to 4 MiB of each body as sent (often gzip or brotli).
 * Saving it made every entry at once on the event loop, inflating each compressed body there (a brotli body that
 * inflates to 16 MiB: ~100 ms), while the proxy's exchanges in flight waited; and it held every entry, decoded,
 * until the last one was made.
 */
import type { Exchange } from '../model.js';
import { decodeContentAsync } from './body.js';
import { contentOf, exchangeToEntry, header, postDataOf, type EntryOptions } from './entry.js';
import { bodiesJson, needsBodyJob } from './content-job.js';
import { PiecesEntry } from './writer.js';
import type { HarContent, HarEntry, HarPostData } from './types.js';

/** exchangeToEntry(x, options), its bodies decoded off the event loop: the same entry. */
export async function exchangeToEntryAsync(x: Exchange, options: EntryOptions = {}): Promise<HarEntry> {
  const made: EntryOptions = { ...options };
  const r = x.request;
  // harPostData's condition: a request without a body has no postData.
  if (made.postData === undefined && r.body.size > 0) {
    made.postData = postDataOf(r, await decodeContentAsync(r.body.bytes, header(r.headers, 'content-encoding'), r.body.truncated));
  }
  const s = x.response;
  if (made.content === undefined && s) {
    made.content = contentOf(
      s.body,
      s.headers,
      await decodeContentAsync(s.body.bytes, header(s.headers, 'content-encoding'), s.body.truncated),
    );
  }
  return exchangeToEntry(x, made);
}

/**
 * The entries of `exchanges` as objects, one at a time, in order, the event loop turning between them (setImmediate:
 * the exchanges in flight and timers go first). For readers that need the objects (the live capture's exportHar);
 * a HAR file is written from fileEntriesOf.
 */
export async function* entriesOf(exchanges: Iterable<Exchange>): AsyncGenerator<HarEntry> {
  for (const x of exchanges) {
    yield await exchangeToEntryAsync(x);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Stand-ins for the bodies' JSON in an entry's text; a NUL never occurs in JSON.stringify's output of real data. */
const CONTENT_MARK = '\u0000netlens-content\u0000';
const POST_DATA_MARK = '\u0000netlens-postdata\u0000';

/**
 * The entries of `exchanges` for a HAR file (har/writer.ts writeHar), one at a time, in order. An exchange with a
 * large or compressed body (content-job.ts needsBodyJob) comes as pieces: its entry's text around its bodies' JSON,
 * made a slice per event-loop turn as the recorder makes them. Saving a capture with a body that decodes to 60 MiB
 * held the event loop ~490 ms with the entry made whole (the body's text, JSON.stringify, the indentation).
 */
export async function* fileEntriesOf(exchanges: Iterable<Exchange>): AsyncGenerator<HarEntry | PiecesEntry> {
  for (const x of exchanges) {
    yield needsBodyJob(x) ? await piecesOf(x) : exchangeToEntry(x);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** exchangeToEntry(x) as pieces: parsed, the same entry (entry-async.test.ts). */
async function piecesOf(x: Exchange): Promise<PiecesEntry> {
  const made = await bodiesJson(x);
  const marks: EntryOptions = {};
  if (made.content) marks.content = CONTENT_MARK as unknown as HarContent;
  if (made.postData) marks.postData = POST_DATA_MARK as unknown as HarPostData;
  const text = JSON.stringify(exchangeToEntry(x, marks), null, 2);
  const pieces: (string | Uint8Array)[] = [];
  let at = 0;
  // The request's postData comes before the response's content in the entry.
  for (const [mark, json] of [
    [POST_DATA_MARK, made.postData],
    [CONTENT_MARK, made.content],
  ] as const) {
    if (!json) continue;
    const quoted = JSON.stringify(mark);
    const i = text.indexOf(quoted, at);
    pieces.push(text.slice(at, i), json);
    at = i + quoted.length;
  }
  pieces.push(text.slice(at));
  return new PiecesEntry(pieces);
}
