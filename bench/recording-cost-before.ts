/**
 * The HAR recorder's flush policy as it was before issue 17, for bench/recording-cost.ts
 * to measure side by side with the current one: each event-loop turn's finished
 * exchanges are built as HAR entry objects (exchangeToEntry), JSON.stringify-ed
 * and written in one writeSync at the end of the turn (today's entry builders).
 * Bench-only reference code.
 */
import fs from 'node:fs';
import type { EventStream } from '../proxy/src/events.js';
import type { Exchange } from '../proxy/src/model.js';
import { exchangeToEntry } from '../proxy/src/har/entry.js';
import { entryRecord } from '../proxy/src/har/journal.js';
import { PageTracker } from '../proxy/src/har/pages.js';

export class PreviousRecorder {
  private readonly fd: number;
  private readonly pages = new PageTracker();
  private readonly pagerefs = new Map<string, string>();
  private pending: { x: Exchange; pageref?: string }[] = [];
  private scheduled = false;
  private readonly unsubscribe: () => void;

  constructor(events: EventStream, file: string) {
    this.fd = fs.openSync(file, 'wx', 0o600);
    this.unsubscribe = events.subscribe((e) => {
      if (e.type === 'request') {
        const { pageref } = this.pages.onRequest(e.exchange);
        if (pageref) this.pagerefs.set(e.exchange.id, pageref);
      } else if (e.type === 'response') {
        const r = e.response;
        r.headers.find(([k]) => k.toLowerCase() === 'location');
      } else if (e.type === 'complete' || e.type === 'error') {
        const pageref = this.pagerefs.get(e.exchange.id);
        this.pagerefs.delete(e.exchange.id);
        this.pending.push({ x: e.exchange, pageref });
        if (this.pending.length >= 64) this.flush();
        else if (!this.scheduled) {
          this.scheduled = true;
          setImmediate(() => this.flush());
        }
      }
    });
  }

  flush(): void {
    this.scheduled = false;
    if (!this.pending.length) return;
    let text = '';
    for (const { x, pageref } of this.pending) text += JSON.stringify(entryRecord(exchangeToEntry(x, { pageref }))) + '\n';
    this.pending = [];
    const buf = Buffer.from(text);
    let off = 0;
    while (off < buf.length) off += fs.writeSync(this.fd, buf, off, buf.length - off);
  }

  async drain(): Promise<void> {
    this.flush();
  }

  stop(): void {
    this.unsubscribe();
    this.flush();
    fs.closeSync(this.fd);
  }
}
