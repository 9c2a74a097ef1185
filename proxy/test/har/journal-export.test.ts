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
import { entryRecord, exportJournal, JournalWriter } from '../../src/har/journal.js';
import { FLUSH_MAX_PENDING, HarRecorder } from '../../src/har/recorder.js';
import type { HarEntry } from '../../src/har/types.js';
import { tempDataDir } from '../proxy/harness.js';
import { makeExchange } from './make-exchange.js';

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

describe('recorder loss window', () => {
  it(`never holds more than ${FLUSH_MAX_PENDING} finished exchanges unwritten, even within one event-loop turn`, () => {
    const events = new EventStream();
    const dir = tempDataDir();
    const rec = new HarRecorder(events, { journalFile: path.join(dir, 'c.journal'), pages: false });
    const lines = () =>
      fs
        .readFileSync(rec.journalFile, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('{"t":"entry"')).length;
    for (let i = 1; i <= FLUSH_MAX_PENDING * 3 + 5; i++) {
      events.emit({ type: 'complete', exchange: makeExchange({ id: `x${i}` }) });
      // Synchronously, in the same turn: what is on disk trails by less than the bound.
      expect(i - lines()).toBeLessThan(FLUSH_MAX_PENDING);
    }
    rec.stop();
    expect(lines()).toBe(FLUSH_MAX_PENDING * 3 + 5);
  });
});
