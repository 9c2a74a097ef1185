/**
 * exchangeToEntry for readers that make many entries at once while the proxy runs (saving or exporting the live
 * capture): each body is decoded on libuv's thread pool (decodeContentAsync) instead of with zlib's *Sync calls.
 *
 * Why: the app's live capture holds every exchange with up to 4 MiB of each body as sent (often gzip or brotli).
 * Saving it made every entry at once on the event loop, inflating each compressed body there (a brotli body that
 * inflates to 16 MiB: ~100 ms), while the proxy's exchanges in flight waited; and it held every entry, decoded,
 * until the last one was made.
 */
import type { Exchange } from '../model.js';
import type { HarEntry } from './types.js';
import { decodeContentAsync } from './body.js';
import { contentOf, exchangeToEntry, header, postDataOf, type EntryOptions } from './entry.js';

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
 * The entries of `exchanges`, one at a time, in order: for a streaming writer (sessions/store.ts saveEntries), so
 * one entry is held at a time, and the event loop turns between them (setImmediate: the exchanges in flight and
 * timers go first).
 */
export async function* entriesOf(exchanges: Iterable<Exchange>): AsyncGenerator<HarEntry> {
  for (const x of exchanges) {
    yield await exchangeToEntryAsync(x);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
