/**
 * The HAR recorder: subscribes to the proxy's event stream and appends one HAR
 * entry per finished exchange to a journal on disk (see journal.ts). Memory
 * stays bounded: nothing is kept per exchange after it is written, except a
 * pageref for exchanges still in flight.
 *
 * Why batched: converting an exchange to a HAR entry and writing it is the
 * largest cost recording adds to a request. Finished exchanges wait for the end
 * of the current event-loop turn (setImmediate), off the response path, and
 * the turn's records go to disk in one write — or go at once when
 * `FLUSH_MAX_PENDING` are waiting, so a long turn under load cannot hold many.
 * A process that exits normally flushes on 'exit'. The loss window of a
 * `kill -9` (or a crash that skips 'exit') is therefore: the exchanges finished
 * in the current event-loop turn, never more than FLUSH_MAX_PENDING of them.
 * What is written is in the kernel (writeSync), so it survives the process.
 */
import { performance } from 'node:perf_hooks';
import type { EventStream } from '../events.js';
import type { Exchange, ProxyEvent } from '../model.js';
import { exchangeToEntry } from './entry.js';
import { connectionsRecord, entryRecord, JournalWriter, pageRecord } from './journal.js';
import type { Timeline } from '../timeline/recorder.js';
import type { HarPage } from './types.js';
import { PageTracker } from './pages.js';

/** More exchanges than this in flight at once means some never finished. */
const MAX_IN_FLIGHT = 10_000;
/**
 * Finished exchanges waiting for the end of the turn that make the recorder write
 * at once: the most a `kill -9` can lose. 64 keeps the write count per request
 * low (one writeSync per 64 exchanges at most) while bounding the loss.
 */
export const FLUSH_MAX_PENDING = 64;

export interface RecorderOptions {
  /** Journal file to create (must not exist). */
  journalFile: string;
  /** Session name, kept in the journal. */
  name?: string;
  /** Group exchanges into pages by navigation and Referer. Default true. */
  pages?: boolean;
  /**
   * Finished exchanges that may wait for the end of the event-loop turn before
   * they are written (default FLUSH_MAX_PENDING; 1 = write each as it finishes).
   */
  flushMaxPending?: number;
  /** Called when an entry cannot be written (disk full…); recording goes on. */
  onError?: (err: Error) => void;
  /** The proxy's socket timeline: written into the journal on stop, so the HAR gets `log._connections`. */
  timeline?: Timeline;
}

export interface RecorderStats {
  entries: number;
  /** Entries that could not be written. */
  failed: number;
}

export class HarRecorder {
  readonly journal: JournalWriter;
  readonly stats: RecorderStats = { entries: 0, failed: 0 };
  private readonly pages?: PageTracker;
  private readonly pagerefs = new Map<string, { pageref: string; url: string }>();
  private unsubscribe?: () => void;
  /** Records of this event-loop turn, in event order, written by flush(). */
  private pending: ({ x: Exchange; pageref?: string } | { page: HarPage })[] = [];
  private flushScheduled = false;
  private readonly flushOnExit = () => this.flush();
  /** performance.now() when recording began: the timeline written on stop starts here. */
  private readonly startedAt = performance.now();

  constructor(
    events: EventStream,
    private readonly options: RecorderOptions,
  ) {
    this.journal = JournalWriter.create(options.journalFile, { created: new Date().toISOString(), name: options.name });
    if (options.pages !== false) this.pages = new PageTracker();
    this.unsubscribe = events.subscribe((e) => this.onEvent(e));
    process.on('exit', this.flushOnExit);
  }

  /** Writes every finished exchange still waiting for the end of the turn. Called by itself; public for readers that need the file current. */
  flush(): void {
    this.flushScheduled = false;
    if (this.pending.length === 0 || this.journal.closed) return;
    const batch = this.pending;
    this.pending = [];
    const records: object[] = [];
    let entries = 0;
    for (const item of batch) {
      if ('page' in item) {
        records.push(pageRecord(item.page));
        continue;
      }
      try {
        records.push(entryRecord(exchangeToEntry(item.x, { pageref: item.pageref })));
        entries++;
      } catch (err) {
        this.stats.failed++;
        this.options.onError?.(err as Error);
      }
    }
    try {
      this.journal.appendRecords(records);
      this.stats.entries += entries;
    } catch (err) {
      this.stats.failed += entries;
      this.options.onError?.(err as Error);
    }
  }

  private enqueue(item: { x: Exchange; pageref?: string } | { page: HarPage }): void {
    this.pending.push(item);
    if (this.pending.length >= (this.options.flushMaxPending ?? FLUSH_MAX_PENDING)) {
      this.flush();
      return;
    }
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  get journalFile(): string {
    return this.journal.file;
  }

  /** Stops listening and closes the journal. Exchanges still in flight are not recorded. Idempotent. */
  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.flush();
    if (this.options.timeline && !this.journal.closed) {
      try {
        this.journal.appendRecords([connectionsRecord(this.options.timeline.toLog(this.startedAt))]);
      } catch (err) {
        this.options.onError?.(err as Error);
      }
    }
    process.off('exit', this.flushOnExit);
    this.pagerefs.clear();
    this.journal.close();
  }

  private onEvent(e: ProxyEvent): void {
    try {
      if (e.type === 'request' && this.pages) {
        const { pageref, newPage } = this.pages.onRequest(e.exchange);
        if (newPage) this.enqueue({ page: newPage });
        if (pageref) this.pagerefs.set(e.exchange.id, { pageref, url: e.exchange.url });
        // An exchange that never finishes must not pin its pageref forever.
        if (this.pagerefs.size > MAX_IN_FLIGHT) this.pagerefs.delete(this.pagerefs.keys().next().value!);
      } else if (e.type === 'response' && this.pages) {
        // A redirected navigation: the browser asks for the target as soon as this head arrives.
        const r = e.response;
        const known = this.pagerefs.get(r.id);
        const location = r.headers.find(([k]) => k.toLowerCase() === 'location')?.[1];
        if (known && location && r.status >= 300 && r.status < 400) this.pages.onRedirect(known.url, location, known.pageref);
      } else if (e.type === 'complete' || e.type === 'error') {
        const x = e.exchange;
        const pageref = this.pagerefs.get(x.id)?.pageref;
        this.pagerefs.delete(x.id);
        this.enqueue({ x, pageref });
      }
    } catch (err) {
      if (e.type === 'complete' || e.type === 'error') this.stats.failed++;
      this.options.onError?.(err as Error);
    }
  }
}
