/**
 * The HAR recorder: subscribes to the proxy's event stream and appends one line
 * per finished exchange to a journal on disk (see journal.ts). Memory
 * stays bounded: nothing is kept per exchange after it is written, except a
 * pageref for exchanges still in flight.
 *
 * What runs when an exchange finishes (after its response has left): its line is
 * serialized straight from the Exchange into one reusable UTF-8 batch buffer, and
 * nothing of the exchange is kept. A line is the exchange in a compact form
 * (exchange-line.ts); its HAR entry is made when the journal is read. Writing the
 * HAR entry's JSON instead cost ~5.5 µs per exchange even as hand-written bytes,
 * the compact line ~1.6 µs (issue 17's history: 11.3–12.4 µs with entries built
 * and stringified, 7.1–8.3 with their bytes written directly). Until 2026-11-27 the
 * lines of an event-loop turn were serialized at its end (setImmediate), which
 * cost more per exchange than the line itself.
 * The batch is written in one write `flushDelayMs` (default FLUSH_DELAY_MS)
 * after the batch's first line, or at once when FLUSH_MAX_PENDING exchanges (or
 * FLUSH_MAX_BYTES of lines) are waiting. Under load one syscall serves tens of
 * exchanges, where a write per turn cost ~3 µs per exchange.
 * bench/recording-cost.ts measures the main-thread CPU this costs per exchange
 * (issue 17: ≤ 10 µs) and, with --breakdown, each step.
 *
 * An exchange with a large or compressed body (content-job.ts) waits in a queue instead: its bodies are made into
 * JSON off the event loop's critical path, one exchange at a time, and its line is written a slice per turn, other
 * writes waiting meanwhile so that no line lands inside it. Made at once, such a line held the loop up to ~110 ms
 * (bench/recording-block.ts), and every exchange in flight waited as long.
 *
 * Readers never see a journal behind: scanJournal (every export, a session
 * opened while recording, the API's entry list) asks the writer to flush its
 * batch and its queue first (journal.ts flushBeforeRead), and stop() flushes before it closes.
 * A process that exits normally flushes on 'exit'.
 *
 * The loss window of a `kill -9` (or a crash that skips 'exit'): the one batch
 * not written yet: exchanges finished in the last FLUSH_DELAY_MS, never more
 * than FLUSH_MAX_PENDING of them, and the queue (at most MAX_QUEUED_JOBS). What is written is in the kernel
 * (writeSync), so it survives the process.
 */
import { performance } from 'node:perf_hooks';
import type { EventStream } from '../events.js';
import type { Exchange, ProxyEvent } from '../model.js';
import { exchangeLinePieces, writeExchangeLine } from './exchange-line.js';
import { JsonBytes } from './json-bytes.js';
import { bodiesJson, needsBodyJob, type BodiesJson } from './content-job.js';
import { connectionsRecord, JournalWriter, pageRecord } from './journal.js';
import type { Timeline } from '../timeline/recorder.js';
import type { HarPage } from './types.js';
import { PageTracker } from './pages.js';

/** More exchanges than this in flight at once means some never finished. */
const MAX_IN_FLIGHT = 10_000;
/**
 * Finished exchanges that make the recorder write at once: the most a `kill -9`
 * can lose. 64 keeps the write count low (one writeSync per 64 exchanges at
 * most under load) while bounding the loss.
 */
export const FLUSH_MAX_PENDING = 64;
/**
 * How long a batch waits for more exchanges before it is written. 10 ms lets a
 * busy proxy gather tens of exchanges per write, and is what a crash can lose.
 */
export const FLUSH_DELAY_MS = 10;
/** Bytes of lines (bodies included) that make the recorder write at once, so a burst of large bodies is not held back. */
export const FLUSH_MAX_BYTES = 8 * 1024 * 1024;
/**
 * Exchanges whose large or compressed bodies wait for their turn (one job runs at a time, so one decoded body is
 * held at a time). Past this (or MAX_QUEUED_BYTES), an exchange's line is made at once, holding the event loop as
 * before jobs: memory stays bounded when bodies come faster than they are made. Not 16: twenty brotli bombs of a
 * few KiB each (a hostile page) then had four made at once, and a small request through the proxy waited ~450 ms;
 * what the queue holds is bounded by MAX_QUEUED_BYTES, and its count is what `kill -9` can lose on top of a batch.
 */
export const MAX_QUEUED_JOBS = 256;
/**
 * Captured body bytes the queue may hold (the capture limit goes up to 64 MiB a body): past this, with the queue not
 * empty, a line is made at once. An exchange's bodies were let go as soon as its line was made before the queue.
 */
export const MAX_QUEUED_BYTES = 32 * 1024 * 1024;
/** Bytes of a large line written per event-loop turn (~0.3 to 0.7 ms into the page cache here). */
export const WRITE_SLICE = 1024 * 1024;

const NEWLINE = new Uint8Array([10]);
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** An exchange whose line waits for its bodies' JSON (content-job.ts). */
interface BodyJob {
  x: Exchange;
  /** Its captured body bytes (request and response). */
  bytes: number;
  pageref: string | undefined;
  /** Its line was written (by the job, or at once by a flush meanwhile). */
  done: boolean;
}

export interface RecorderOptions {
  /** Journal file to create (must not exist). */
  journalFile: string;
  /** Session name, kept in the journal. */
  name?: string;
  /** Group exchanges into pages by navigation and Referer. Default true. */
  pages?: boolean;
  /**
   * Finished exchanges that may wait before they are written (default
   * FLUSH_MAX_PENDING; 1 = write each as it finishes).
   */
  flushMaxPending?: number;
  /** Milliseconds a batch waits before it is written (default FLUSH_DELAY_MS; 0 = at the end of the event-loop turn). */
  flushDelayMs?: number;
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
  /** The batch's write when flushDelayMs is 0 (at the end of the event-loop turn). */
  private writeImmediate?: NodeJS.Immediate;
  /** Journal lines serialized but not written yet (the batch, UTF-8, one '\n' after each) and how many are entries. */
  private readonly batch = new JsonBytes();
  private lineEntries = 0;
  private writeTimer?: NodeJS.Timeout;
  private readonly flushOnExit = () => this.flush();
  /** Exchanges waiting for their bodies' JSON, oldest first; the first one's job is running when `jobsRunning`. */
  private readonly jobs: BodyJob[] = [];
  private jobsRunning = false;
  /** Captured body bytes of the exchanges in `jobs`. */
  private queuedBytes = 0;
  /** Settles when the queue is empty (runJobs's promise). */
  private jobsIdle: Promise<void> = Promise.resolve();
  /** A large line being written a slice at a time (writeLarge): its pieces and how far it is. */
  private partial?: { pieces: Uint8Array[]; piece: number; offset: number };
  /** performance.now() when recording began: the timeline written on stop starts here. */
  private readonly startedAt = performance.now();

  constructor(
    events: EventStream,
    private readonly options: RecorderOptions,
  ) {
    this.journal = JournalWriter.create(options.journalFile, { created: new Date().toISOString(), name: options.name });
    if (options.pages !== false) this.pages = new PageTracker();
    this.journal.beforeRead = () => this.flush();
    this.unsubscribe = events.subscribe((e) => this.onEvent(e));
    process.on('exit', this.flushOnExit);
  }

  /**
   * Writes every finished exchange still waiting: the batch, and the lines of exchanges whose bodies' JSON is not
   * made yet, made now at once (holding the event loop as long as that takes). Called by readers (journal.ts), on
   * stop and on exit.
   */
  flush(): void {
    // A large line being written a slice at a time: its rest first, at once.
    if (this.partial) this.writeSome(Infinity);
    for (const job of this.jobs) {
      if (job.done) continue;
      job.done = true;
      this.add(job.x, job.pageref);
    }
    this.jobs.length = 0;
    this.queuedBytes = 0;
    this.write(true);
  }

  /** Exchanges whose lines wait for their bodies' JSON. */
  get pendingJobs(): number {
    return this.jobs.length;
  }

  /** Queues an exchange with a large or compressed body; its line is written when its bodies' JSON is made. */
  private queue(x: Exchange, pageref: string | undefined): void {
    const bytes = x.request.body.bytes.length + (x.response?.body.bytes.length ?? 0);
    if (this.jobs.length >= MAX_QUEUED_JOBS || (this.jobs.length > 0 && this.queuedBytes + bytes > MAX_QUEUED_BYTES)) {
      this.add(x, pageref);
      return;
    }
    this.jobs.push({ x, bytes, pageref, done: false });
    this.queuedBytes += bytes;
    if (!this.jobsRunning) this.jobsIdle = this.runJobs();
  }

  /** Makes the queued exchanges' bodies' JSON one at a time and writes each line as it is ready. */
  private async runJobs(): Promise<void> {
    this.jobsRunning = true;
    try {
      while (this.jobs.length > 0) {
        const job = this.jobs[0];
        let bodies: BodiesJson | undefined;
        try {
          bodies = await bodiesJson(job.x);
        } catch {
          // Made at once below instead (the same line; a body that cannot be made fails there, counted).
        }
        // A flush meanwhile wrote it (and emptied the queue).
        if (job.done) continue;
        job.done = true;
        this.jobs.shift();
        this.queuedBytes -= job.bytes;
        if (this.journal.closed) continue;
        if (bodies) await this.writeLarge(job.x, job.pageref, bodies);
        else this.add(job.x, job.pageref);
      }
    } finally {
      this.jobsRunning = false;
    }
  }

  /**
   * Writes the line of an exchange whose bodies' JSON a job made, after the batch, WRITE_SLICE bytes per turn: a
   * 16 MiB line written at once held the loop 4 to 12 ms. Other writes wait meanwhile, so no line lands inside it.
   */
  private async writeLarge(x: Exchange, pageref: string | undefined, bodies: BodiesJson): Promise<void> {
    let pieces: Uint8Array[];
    try {
      pieces = exchangeLinePieces(x, pageref, bodies);
    } catch (err) {
      this.stats.failed++;
      this.options.onError?.(err as Error);
      return;
    }
    this.write();
    const line = (this.partial = { pieces, piece: 0, offset: 0 });
    while (this.partial === line && !this.writeSome(WRITE_SLICE)) await turn();
    // The batch that waited (a flush meanwhile wrote it and the line's rest).
    this.write();
  }

  /** Writes up to `limit` more bytes of the line in `partial`; true when it is all written (or failed). */
  private writeSome(limit: number): boolean {
    const line = this.partial!;
    try {
      while (limit > 0 && line.piece < line.pieces.length) {
        const piece = line.pieces[line.piece];
        const n = Math.min(limit, piece.length - line.offset);
        const last = line.piece === line.pieces.length - 1 && line.offset + n === piece.length;
        this.journal.appendBytes(piece.subarray(line.offset, line.offset + n), last ? 1 : 0);
        limit -= n;
        line.offset += n;
        if (line.offset === piece.length) {
          line.piece++;
          line.offset = 0;
        }
      }
      if (line.piece < line.pieces.length) return false;
      this.stats.entries++;
    } catch (err) {
      this.stats.failed++;
      this.options.onError?.(err as Error);
      // Part of the line may be written: end it, so that it is one damaged line when read, not the next one too.
      if (line.piece > 0 || line.offset > 0) {
        try {
          this.journal.appendBytes(NEWLINE, 0);
        } catch {
          // The disk refuses still: the reader then skips the two lines.
        }
      }
    }
    this.partial = undefined;
    return true;
  }

  /** Resolves once every exchange finished so far is in the journal (waiting for the body jobs, not cutting them short). */
  async drain(): Promise<void> {
    await this.jobsIdle;
    this.flush();
  }

  /** Writes the serialized lines in one write; unless `force`d, not while a large line is being written (writeLarge writes them after it). */
  private write(force = false): void {
    if (this.writeTimer) clearTimeout(this.writeTimer);
    this.writeTimer = undefined;
    if (this.writeImmediate) clearImmediate(this.writeImmediate);
    this.writeImmediate = undefined;
    if (this.partial && !force) return;
    if (this.batch.pos === 0 || this.journal.closed) return;
    const entries = this.lineEntries;
    this.lineEntries = 0;
    try {
      this.journal.appendBytes(this.batch.bytes(), entries);
      this.stats.entries += entries;
    } catch (err) {
      this.stats.failed += entries;
      this.options.onError?.(err as Error);
    } finally {
      this.batch.reset();
    }
  }

  /**
   * Serializes a finished exchange (or a new page, `x` undefined) into the batch at once, then writes the batch when
   * it is full or schedules its write. At once, not at the end of the event-loop turn: the exchange has already been
   * answered ('complete' comes after the response's last byte was handed to the socket), its line dies young as
   * bytes, and a setImmediate per turn cost more than the line (bench/recording-cost.ts, 2026-11-27). Two arguments,
   * not one object holding either: nothing is allocated per exchange to call it.
   */
  private add(x: Exchange | undefined, pageref: string | undefined, page?: HarPage): void {
    if (this.journal.closed) return;
    const out = this.batch;
    const start = out.pos;
    try {
      if (x) writeExchangeLine(out, x, pageref);
      else out.text(JSON.stringify(pageRecord(page!)));
      out.byte(10);
    } catch (err) {
      out.pos = start;
      if (x) this.stats.failed++;
      this.options.onError?.(err as Error);
      return;
    }
    if (x) this.lineEntries++;
    if (this.lineEntries >= (this.options.flushMaxPending ?? FLUSH_MAX_PENDING) || out.pos >= FLUSH_MAX_BYTES) {
      this.write();
      return;
    }
    // Unref'd: a batch waiting must not keep the process alive ('exit' writes it).
    const delay = this.options.flushDelayMs ?? FLUSH_DELAY_MS;
    if (delay > 0) this.writeTimer ??= setTimeout(() => this.write(), delay).unref();
    else this.writeImmediate ??= setImmediate(() => this.write()).unref();
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
        if (newPage) this.add(undefined, undefined, newPage);
        if (pageref) this.pagerefs.set(e.exchange.id, { pageref, url: e.exchange.url });
        // An exchange that never finishes must not pin its pageref forever.
        if (this.pagerefs.size > MAX_IN_FLIGHT) this.pagerefs.delete(this.pagerefs.keys().next().value!);
      } else if (e.type === 'response' && this.pages) {
        // A redirected navigation: the browser asks for the target as soon as this head arrives.
        const r = e.response;
        if (r.status < 300 || r.status >= 400) return;
        const known = this.pagerefs.get(r.id);
        const location = known && r.headers.find(([k]) => k.toLowerCase() === 'location')?.[1];
        if (known && location) this.pages.onRedirect(known.url, location, known.pageref);
      } else if (e.type === 'complete' || e.type === 'error') {
        const x = e.exchange;
        // Most exchanges belong to no page (no map lookups for them then).
        const known = this.pagerefs.size > 0 ? this.pagerefs.get(x.id) : undefined;
        if (known) this.pagerefs.delete(x.id);
        if (needsBodyJob(x)) this.queue(x, known?.pageref);
        else this.add(x, known?.pageref);
      }
    } catch (err) {
      if (e.type === 'complete' || e.type === 'error') this.stats.failed++;
      this.options.onError?.(err as Error);
    }
  }
}
