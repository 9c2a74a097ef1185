import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { exchangeToEntry } from '../../src/har/entry.js';
import { entryOfRecord, exportJournal, JournalWriter, scanJournal } from '../../src/har/journal.js';
import { exchangeLine } from '../../src/har/exchange-line.js';
import { readHarFile } from '../../src/har/reader.js';
import { writeHar, NETLENS_CREATOR } from '../../src/har/writer.js';
import { EventStream } from '../../src/events.js';
import { FLUSH_MAX_BYTES, HarRecorder } from '../../src/har/recorder.js';
import { JOB_MIN_BYTES } from '../../src/har/content-job.js';
import { requestEvent } from '../../src/server/exchange-record.js';
import { body, makeExchange } from './make-exchange.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-journal-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('writeHar', () => {
  it('writes exactly what JSON.stringify(har, null, 2) would, from an async iterable', async () => {
    const entries = [1, 2, 3].map(() => exchangeToEntry(makeExchange()));
    const pages = [{ id: 'page_1', title: 't', startedDateTime: entries[0].startedDateTime, pageTimings: {} }];
    async function* gen() {
      yield* entries;
    }
    const file = path.join(dir, 'out.har');
    const r = await writeHar(file, { creator: NETLENS_CREATOR, pages }, gen());
    const text = fs.readFileSync(file, 'utf8');
    expect(r).toEqual({ entries: 3, bytes: Buffer.byteLength(text) });
    expect(text).toBe(JSON.stringify({ log: { version: '1.2', creator: NETLENS_CREATOR, pages, entries } }, null, 2) + '\n');
    // No temporary files left behind.
    expect(fs.readdirSync(dir)).toEqual(['out.har']);
  });

  it('writes a valid HAR with no entries', async () => {
    const file = path.join(dir, 'empty.har');
    await writeHar(file, { creator: NETLENS_CREATOR, pages: [] }, []);
    const result = await readHarFile(file);
    expect(result.har!.log.entries).toEqual([]);
    expect(result.warnings).toEqual([]);
  });

  it('leaves no file when the entries fail midway', async () => {
    const file = path.join(dir, 'fail.har');
    async function* failing() {
      yield exchangeToEntry(makeExchange());
      throw new Error('source broke');
    }
    await expect(writeHar(file, { creator: NETLENS_CREATOR, pages: [] }, failing())).rejects.toThrow('source broke');
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe('journal', () => {
  it('exports entries sorted by startedDateTime, pages included, as a HAR with no warnings', async () => {
    const file = path.join(dir, 'j.journal');
    const j = JournalWriter.create(file, { created: new Date().toISOString() });
    const a = makeExchange({ startedDateTime: '2026-01-01T00:00:02.000Z' });
    const b = makeExchange({ startedDateTime: '2026-01-01T00:00:01.000Z' });
    j.appendPage({ id: 'page_1', title: 'first', startedDateTime: '2026-01-01T00:00:00.000Z', pageTimings: {} });
    j.appendEntry(exchangeToEntry(a, { pageref: 'page_1' }));
    j.appendEntry(exchangeToEntry(b, { pageref: 'page_1' }));
    j.appendPage({ id: 'page_1', title: 'renamed', startedDateTime: '2026-01-01T00:00:00.000Z', pageTimings: {} });
    j.close();
    const har = path.join(dir, 'out.har');
    const r = await exportJournal(file, har);
    expect(r).toMatchObject({ entries: 2, skipped: 0 });
    const read = await readHarFile(har);
    expect(read.warnings).toEqual([]);
    expect(read.har!.log.entries.map((e) => e._exchangeId)).toEqual([b.id, a.id]);
    expect(read.har!.log.pages).toEqual([{ id: 'page_1', title: 'renamed', startedDateTime: '2026-01-01T00:00:00.000Z', pageTimings: {} }]);
  });

  it('skips a line cut short by a crash and keeps everything before it', async () => {
    const file = path.join(dir, 'j.journal');
    const j = JournalWriter.create(file, { created: new Date().toISOString() });
    for (let i = 0; i < 5; i++) j.appendEntry(exchangeToEntry(makeExchange()));
    j.close();
    const whole = fs.readFileSync(file, 'utf8');
    fs.appendFileSync(file, whole.split('\n')[1].slice(0, 100)); // half of an entry line, no newline
    const scan = await scanJournal(file);
    expect(scan.entries.length).toBe(5);
    expect(scan.incompleteTail).toBe(100);
    const r = await exportJournal(file, path.join(dir, 'out.har'));
    expect(r).toMatchObject({ entries: 5, skipped: 1 });
  });

  it('refuses to append to an existing journal', () => {
    const file = path.join(dir, 'j.journal');
    JournalWriter.create(file, { created: '' }).close();
    expect(() => JournalWriter.create(file, { created: '' })).toThrow(/EEXIST/);
  });
});

describe('HarRecorder', () => {
  it('journals each finished exchange as it completes, with pagerefs from navigations', async () => {
    const events = new EventStream();
    const file = path.join(dir, 'rec.journal');
    const rec = new HarRecorder(events, { journalFile: file });
    const nav = makeExchange({
      request: {
        method: 'GET',
        url: 'https://site.test/',
        httpVersion: 'http/1.1',
        headers: [
          ['sec-fetch-mode', 'navigate'],
          ['sec-fetch-dest', 'document'],
        ],
        body: { size: 0, bytes: new Uint8Array(), truncated: false },
      },
    });
    const img = makeExchange({
      request: {
        method: 'GET',
        url: 'https://cdn.test/a.png',
        httpVersion: 'http/1.1',
        headers: [['referer', 'https://site.test/']],
        body: { size: 0, bytes: new Uint8Array(), truncated: false },
      },
    });
    const start = (x: typeof nav) => ({
      id: x.id,
      clientConnectionId: 'c1',
      startedDateTime: x.startedDateTime,
      transport: x.transport,
      clientProtocol: x.clientProtocol,
      method: x.request.method,
      url: x.request.url,
      headers: x.request.headers,
      timestamps: { start: 0 },
    });
    events.emit({ type: 'request', exchange: start(nav) });
    events.emit({ type: 'request', exchange: start(img) });
    events.emit({ type: 'complete', exchange: img }); // subresource finishes first
    // Held in the recorder's batch; a reader in this process gets it written first.
    expect((await scanJournal(file)).entries.length).toBe(1);
    events.emit({
      type: 'error',
      exchange: { ...nav, response: undefined, error: { code: 'NL_CLIENT_ABORTED', message: 'aborted', side: 'client' } },
    });
    rec.stop();
    events.emit({ type: 'complete', exchange: makeExchange() }); // after stop: not recorded
    expect(rec.stats).toEqual({ entries: 2, failed: 0 });
    const out = path.join(dir, 'out.har');
    await exportJournal(file, out);
    const { har, warnings } = await readHarFile(out);
    expect(warnings).toEqual([]);
    expect(har!.log.pages!.map((p) => p.title)).toEqual(['https://site.test/']);
    expect(har!.log.entries.map((e) => [e.request.url, e.pageref])).toEqual([
      ['https://site.test/', 'page_1'],
      ['https://cdn.test/a.png', 'page_1'],
    ]);
  });

  /** Entry lines on disk now, read straight from the file (no flush-before-read). */
  const onDisk = (file: string) =>
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{"t":"x"')).length;

  it('serializes and writes the batch flushDelayMs after its first exchange, in one go', async () => {
    const events = new EventStream();
    const file = path.join(dir, 'batch.journal');
    const rec = new HarRecorder(events, { journalFile: file, flushDelayMs: 40 });
    for (let i = 0; i < 3; i++) events.emit({ type: 'complete', exchange: makeExchange() });
    expect(onDisk(file)).toBe(0);
    expect(rec.stats.entries).toBe(0);
    await new Promise((r) => setTimeout(r, 150));
    expect(onDisk(file)).toBe(3);
    expect(rec.stats).toEqual({ entries: 3, failed: 0 });
    rec.stop();
  });

  it('with flushDelayMs 0, writes the batch once at the end of the event-loop turn', async () => {
    const events = new EventStream();
    const file = path.join(dir, 'turn.journal');
    const rec = new HarRecorder(events, { journalFile: file, flushDelayMs: 0 });
    const writes = vi.spyOn(rec.journal, 'appendBytes');
    for (let i = 0; i < 3; i++) events.emit({ type: 'complete', exchange: makeExchange() });
    expect(onDisk(file)).toBe(0);
    await new Promise((r) => setImmediate(r));
    expect(onDisk(file)).toBe(3);
    expect(writes).toHaveBeenCalledTimes(1);
    rec.stop();
  });

  it('counts an exchange it cannot serialize as failed, says why, and records the next ones', () => {
    const events = new EventStream();
    const file = path.join(dir, 'bad.journal');
    const errors: Error[] = [];
    const rec = new HarRecorder(events, { journalFile: file, flushDelayMs: 60_000, onError: (e) => errors.push(e) });
    events.emit({ type: 'complete', exchange: makeExchange() });
    // A value no JSON can hold: the generic path throws, and nothing of the line stays in the batch.
    events.emit({ type: 'complete', exchange: makeExchange({ retries: 1n as unknown as number }) });
    events.emit({ type: 'complete', exchange: makeExchange() });
    rec.stop();
    expect(rec.stats).toEqual({ entries: 2, failed: 1 });
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/BigInt/)]);
    expect(onDisk(file)).toBe(2);
  });

  it('writes at once when flushMaxPending exchanges or FLUSH_MAX_BYTES of lines wait', () => {
    const events = new EventStream();
    const file = path.join(dir, 'full.journal');
    const rec = new HarRecorder(events, { journalFile: file, flushDelayMs: 60_000, flushMaxPending: 4 });
    for (let i = 0; i < 3; i++) events.emit({ type: 'complete', exchange: makeExchange() });
    expect(onDisk(file)).toBe(0);
    events.emit({ type: 'complete', exchange: makeExchange() });
    expect(onDisk(file)).toBe(4);
    // Lines add up: bodies just under a job's size (content-job.ts), written at once, fill the bound's bytes.
    const under = () => makeExchange({ resHeaders: [['Content-Type', 'text/plain']], resBody: body('a'.repeat(JOB_MIN_BYTES - 1024)) });
    const rec2 = new HarRecorder(events, {
      journalFile: path.join(dir, 'bytes-bound.journal'),
      flushDelayMs: 60_000,
      flushMaxPending: 1_000,
    });
    const lines = Math.ceil(FLUSH_MAX_BYTES / (exchangeLine(under()).length + 1));
    for (let i = 1; i < lines; i++) events.emit({ type: 'complete', exchange: under() });
    expect(onDisk(rec2.journalFile)).toBe(0);
    events.emit({ type: 'complete', exchange: under() });
    expect(onDisk(rec2.journalFile)).toBe(lines);
    rec2.stop();
    rec.stop();
  });

  it('writes pages and exchanges in the order they came, each exchange with its page', () => {
    // A page made by a navigation comes before the exchanges that belong to it, and each exchange gets the pageref it had
    // when it finished, whenever the batch is written.
    const events = new EventStream();
    const file = path.join(dir, 'order.journal');
    const rec = new HarRecorder(events, { journalFile: file, flushDelayMs: 60_000 });
    const nav = (url: string) =>
      makeExchange({
        request: {
          method: 'GET',
          url,
          httpVersion: 'http/1.1',
          headers: [
            ['Sec-Fetch-Mode', 'navigate'],
            ['Sec-Fetch-Dest', 'document'],
          ],
          body: body(),
        },
      });
    const sub = (referer: string) =>
      makeExchange({
        request: { method: 'GET', url: referer + 'a.png', httpVersion: 'http/1.1', headers: [['Referer', referer]], body: body() },
      });
    for (const x of [nav('https://one.test/'), sub('https://one.test/'), nav('https://two.test/'), sub('https://two.test/')]) {
      events.emit(requestEvent(x));
      events.emit({ type: 'complete', exchange: x });
    }
    expect(onDisk(file)).toBe(0);
    rec.stop();
    const kinds = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{"t":"x"') || l.startsWith('{"t":"page"'))
      .map((l) => {
        const r = JSON.parse(l);
        return r.t === 'page' ? `page ${r.page.id}` : `${r.x[15]} ${r.x[1]}`;
      });
    expect(kinds).toEqual([
      'page page_1',
      'https://one.test/ page_1',
      'https://one.test/a.png page_1',
      'page page_2',
      'https://two.test/ page_2',
      'https://two.test/a.png page_2',
    ]);
  });

  it('flushes the batch before any reader in the process reads the journal (scan, export, open), and on stop', async () => {
    const events = new EventStream();
    const file = path.join(dir, 'live.journal');
    const rec = new HarRecorder(events, { journalFile: file, flushDelayMs: 60_000 });
    events.emit({ type: 'complete', exchange: makeExchange() });
    events.emit({ type: 'complete', exchange: makeExchange() });
    expect(onDisk(file)).toBe(0);
    // exportJournal reads through scanJournal, as SessionStore.open/exportTo and the API's entry list (EntryFile.journal) do.
    const live = await exportJournal(file, path.join(dir, 'live.har'));
    expect(live.entries).toBe(2);
    events.emit({ type: 'complete', exchange: makeExchange() });
    expect(onDisk(file)).toBe(2);
    rec.stop();
    expect(onDisk(file)).toBe(3);
    expect(rec.stats).toEqual({ entries: 3, failed: 0 });
  });

  it('writes each exchange as its exchange line, one line each, whatever the strings and body sizes, and reads each back as its entry', () => {
    const events = new EventStream();
    const file = path.join(dir, 'bytes.journal');
    const rec = new HarRecorder(events, { journalFile: file, flushMaxPending: 3 });
    const odd = 'é "q" \\ \t \u0001 \ud800 😀';
    const xs = [
      makeExchange(),
      makeExchange({ reqHeaders: [[`X-${odd}`, odd]], resHeaders: [['Content-Type', 'text/plain']], resBody: body(odd.repeat(20)) }),
      makeExchange({ response: undefined, error: { code: 'NL_X', message: odd, side: 'client' } }),
      makeExchange({ resHeaders: [['Content-Type', 'text/plain']], resBody: body('a'.repeat(9 * 1024 * 1024)) }),
      makeExchange(),
    ];
    for (const x of xs) events.emit({ type: 'complete', exchange: x });
    rec.stop();
    // The 9 MiB body's line waits for its JSON to be made off the event loop (content-job.ts): stop() writes it at
    // once, after the batch that holds the last exchange.
    const expected = [0, 1, 2, 4, 3].map((i) => exchangeLine(xs[i]) + '\n').join('');
    const lines = fs.readFileSync(file);
    const firstNewline = lines.indexOf(10);
    expect(lines.subarray(firstNewline + 1).equals(Buffer.from(expected))).toBe(true);
    expect(rec.stats).toEqual({ entries: 5, failed: 0 });
    // And each line reads back as the exchange's HAR entry.
    const read = lines
      .subarray(firstNewline + 1)
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.stringify(entryOfRecord(JSON.parse(l))));
    expect(read).toEqual([0, 1, 2, 4, 3].map((i) => JSON.stringify(exchangeToEntry(xs[i]))));
  });
});
