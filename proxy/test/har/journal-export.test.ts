/**
 * Stopping a recording fast (issue 13 item 12): the journal is read through a
 * 1 MiB window and entries are copied as their JSON text. These check that the
 * shortcut keeps the HAR exact: order by start across windows, lines longer than
 * the window, damaged lines skipped (never copied), and the recorder's bound on
 * what waits unwritten.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EventStream } from '../../src/events.js';
import { entryOfRecord, entryRecord, exportJournal, journalEntries, JournalWriter, scanJournal } from '../../src/har/journal.js';
import { BadExchangeRecord, entryFromExchangeRecord, exchangeLine } from '../../src/har/exchange-line.js';
import { exchangeToEntry } from '../../src/har/entry.js';
import { EntryFile } from '../../src/sessions/entry-file.js';
import { splitCut } from '../../src/sessions/capped-json.js';
import { FLUSH_MAX_PENDING, HarRecorder } from '../../src/har/recorder.js';
import type { HarEntry } from '../../src/har/types.js';
import { tempDataDir } from '../proxy/harness.js';
import { body, makeExchange } from './make-exchange.js';

function entry(i: number, started: number, size: number): HarEntry {
  return {
    startedDateTime: new Date(started).toISOString(),
    time: 1,
    request: {
      method: 'GET',
      url: `http://example.test/${i}`,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [{ name: 'x-i', value: String(i) }],
      queryString: [],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status: 200,
      statusText: 'OK',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [],
      content: { size, mimeType: 'text/plain', text: `é${i}`.padEnd(size, 'x') },
      redirectURL: '',
      headersSize: -1,
      bodySize: size,
    },
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
  } as HarEntry;
}

describe('journal → HAR', () => {
  it('gives every entry, oldest start first, across read windows and for lines longer than a window', async () => {
    const dir = tempDataDir();
    const file = path.join(dir, 'a.journal');
    const j = JournalWriter.create(file, { created: new Date().toISOString() });
    const expected: HarEntry[] = [];
    const base = Date.UTC(2026, 0, 1);
    for (let i = 0; i < 3000; i++) {
      // Written in completion order: starts jump back by up to 40 entries; a few lines are 1.5 MiB.
      const size = i % 997 === 5 ? 1.5 * 2 ** 20 : (i * 131) % 3000;
      const e = entry(i, base + i * 10 - (i % 41) * 10, size);
      expected.push(e);
      j.appendRecords([entryRecord(e)]);
    }
    fs.appendFileSync(file, '{"t":"entry","s":1,"entry":{"startedDateTime":"2026-01-0\n'); // damaged: cut in the middle
    j.close();
    const har = path.join(dir, 'a.har');
    const r = await exportJournal(file, har);
    expect(r.entries).toBe(3000);
    expect(r.skipped).toBe(1);
    const parsed = JSON.parse(fs.readFileSync(har, 'utf8')) as { log: { entries: HarEntry[] } };
    const start = (e: HarEntry) => Date.parse(e.startedDateTime);
    const sorted = expected
      .map((e, i) => ({ e, i }))
      .sort((a, b) => start(a.e) - start(b.e) || a.i - b.i)
      .map((x) => x.e);
    expect(parsed.log.entries.length).toBe(3000);
    for (let i = 0; i < sorted.length; i++) expect(parsed.log.entries[i], `entry ${i}`).toEqual(sorted[i]);
  });

  it('a journal truncated after it was scanned loses the cut entries, not the HAR', async () => {
    const dir = tempDataDir();
    const file = path.join(dir, 'b.journal');
    const j = JournalWriter.create(file, { created: new Date().toISOString() });
    for (let i = 0; i < 10; i++) j.appendEntry(entry(i, Date.UTC(2026, 0, 1) + i, 10));
    j.close();
    fs.appendFileSync(file, '{"t":"entry","s":5,"entry":{"startedDateTime":"x"} garbage}\n');
    const r = await exportJournal(file, path.join(dir, 'b.har'));
    expect(r.entries).toBe(10);
    expect(r.skipped).toBe(1);
    expect(() => JSON.parse(fs.readFileSync(path.join(dir, 'b.har'), 'utf8'))).not.toThrow();
  });
});

/** Positions in an exchange line's `x` array (exchange-line.ts, layout 1). */
const TIMINGS = 12;
const REQUEST_HEADERS = 17;
const RESPONSE = 20;
const replaced = (line: { x: unknown[] }, at: number, value: unknown) => ({ ...line, x: line.x.map((v, i) => (i === at ? value : v)) });

describe("exchange lines (the recorder's compact lines) in a journal", () => {
  it('reads them beside entry lines (a journal of either version), and skips and counts the ones it cannot read', async () => {
    const dir = tempDataDir();
    const file = path.join(dir, 'x.journal');
    const j = JournalWriter.create(file, { created: new Date().toISOString() });
    const xs = [0, 1, 2].map((i) => makeExchange({ startedDateTime: new Date(Date.UTC(2026, 0, 1, 0, 0, i * 2)).toISOString() }));
    const old = entry(9, Date.UTC(2026, 0, 1, 0, 0, 3), 5);
    // Written in completion order, not start order: the scan sorts by each line's start (an exchange line's `d`).
    j.appendBytes(Buffer.from(exchangeLine(xs[2]!) + '\n' + exchangeLine(xs[0]!) + '\n'), 2);
    j.appendRecords([entryRecord(old)]);
    j.appendBytes(Buffer.from(exchangeLine(xs[1]!, 'page_1') + '\n'), 1);
    const line = JSON.parse(exchangeLine(xs[0]!)) as { x: unknown[] };
    const damaged = [
      { ...line, x: [2, ...line.x.slice(1)] }, // a later layout version
      { ...line, x: line.x.slice(0, -1) }, // too short
      replaced(line, REQUEST_HEADERS, ['name-without-value']),
      replaced(line, RESPONSE, [200, 'OK']),
      replaced(line, TIMINGS, 'not timings'),
      { ...line, x: 'not a list' },
    ];
    for (const d of damaged) fs.appendFileSync(file, JSON.stringify(d) + '\n');
    j.close();
    const scan = await scanJournal(file);
    expect(scan.entries.length).toBe(4 + damaged.length);
    let skipped = 0;
    const read: HarEntry[] = [];
    for await (const e of journalEntries(file, scan, () => skipped++)) read.push(e);
    expect(skipped).toBe(damaged.length);
    const want = [exchangeToEntry(xs[0]!), exchangeToEntry(xs[1]!, { pageref: 'page_1' }), old, exchangeToEntry(xs[2]!)];
    expect(read.map((e) => JSON.stringify(e))).toEqual(want.map((e) => JSON.stringify(e)));
    for (const d of damaged) expect(() => entryFromExchangeRecord(d)).toThrow(BadExchangeRecord);
    // Hostile values in the right layout (a header value that is not a string, rare fields of the wrong
    // types, a `__proto__` key): no entry, no exception out of the reader, nothing polluted.
    const extrasAt = line.x.length - 1;
    const hostile = [
      replaced(line, REQUEST_HEADERS, ['Cookie', 5]),
      replaced(line, extrasAt, { rules: 'not a list' }),
      replaced(line, extrasAt, JSON.parse('{"__proto__":{"polluted":true},"error":{"code":"X","message":"m","side":"proxy"}}')),
    ];
    expect(entryOfRecord(hostile[0])).toBeUndefined();
    expect(entryOfRecord(hostile[1])).toBeUndefined();
    expect(entryOfRecord(hostile[2])?._errorCode).toBe('X');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // The HAR of a stop: the same entries, in start order; the damaged lines counted, not copied.
    const r = await exportJournal(file, path.join(dir, 'x.har'));
    expect(r).toMatchObject({ entries: 4, skipped: damaged.length });
    const har = JSON.parse(fs.readFileSync(path.join(dir, 'x.har'), 'utf8')) as { log: { entries: HarEntry[] } };
    expect(har.log.entries).toEqual(want.map((e) => JSON.parse(JSON.stringify(e))));
  });

  it('a session read with long strings cut (the session view) cuts the body text of an exchange line as of an entry line', async () => {
    const dir = tempDataDir();
    const file = path.join(dir, 'cut.journal');
    const j = JournalWriter.create(file, { created: new Date().toISOString() });
    const big = 'b'.repeat(100_000);
    const x = makeExchange({ resHeaders: [['Content-Type', 'text/plain']], resBody: body(big) });
    j.appendBytes(Buffer.from(exchangeLine(x) + '\n'), 1);
    j.close();
    const file2 = await EntryFile.journal(file);
    expect(file2.count).toBe(1);
    const whole = await file2.entry(0);
    expect(whole.response.content.text).toBe(big);
    const cut = await file2.entry(0, 1000);
    const { text, fullBytes } = splitCut(cut.response.content.text!);
    expect(text).toBe('b'.repeat(1000));
    expect(fullBytes).toBe(100_000);
    expect(cut.request.url).toBe(x.request.url);
  });
});

describe('recorder loss window', () => {
  it(`never holds more than ${FLUSH_MAX_PENDING} finished exchanges unwritten, even within one event-loop turn`, () => {
    const events = new EventStream();
    const dir = tempDataDir();
    const rec = new HarRecorder(events, { journalFile: path.join(dir, 'c.journal'), pages: false });
    const lines = () =>
      fs
        .readFileSync(rec.journalFile, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('{"t":"x"')).length;
    for (let i = 1; i <= FLUSH_MAX_PENDING * 3 + 5; i++) {
      events.emit({ type: 'complete', exchange: makeExchange({ id: `x${i}` }) });
      // Synchronously, in the same turn: what is on disk trails by less than the bound.
      expect(i - lines()).toBeLessThan(FLUSH_MAX_PENDING);
    }
    rec.stop();
    expect(lines()).toBe(FLUSH_MAX_PENDING * 3 + 5);
  });
});
