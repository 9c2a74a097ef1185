/**
 * `npx tsx bench/soak/journal-stop.ts [entries=200000] [bodyBytes=120]` — what stopping a recording
 * costs: writes a journal of N realistic entries (completion order, so starts are
 * slightly out of order, as a busy proxy writes them) and times exportJournal,
 * which is what `Recording.stop()` spends its time in. Run under
 * `node --cpu-prof --import tsx` to see where the time goes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exportJournal, JournalWriter, entryRecord } from '../../proxy/src/har/journal.js';
import type { HarEntry } from '../../proxy/src/har/types.js';
import { intArg, scriptArgs } from '../lib/usage.js';

const USAGE = `Usage: npx tsx bench/soak/journal-stop.ts [entries] [bodyBytes]

What stopping a recording costs: writes a journal of N realistic entries (default
200000, bodies of bodyBytes, default 120) and times exportJournal.
`;
const [countArg, bytesArg] = scriptArgs(USAGE, {}, 2).positionals;
const count = intArg(countArg, 200_000, 'entries', USAGE, 1, 100_000_000);
const bodyBytes = intArg(bytesArg, 120, 'bodyBytes', USAGE, 0, 100_000_000);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-journal-stop-'));
const journalFile = path.join(dir, 'rec.journal');

function entry(i: number): HarEntry {
  // Completion order: a request that started earlier may finish later.
  const started = Date.UTC(2026, 0, 1) + i * 2 - (i % 7) * 5;
  const headers = (n: number, p: string) =>
    Array.from({ length: n }, (_, k) => ({ name: `${p}-header-${k}`, value: `value ${k} ${'x'.repeat(20)}` }));
  return {
    startedDateTime: new Date(started).toISOString(),
    time: 3.5,
    request: {
      method: 'GET',
      url: `https://example.test/path/${i}?q=${i}`,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: headers(10, 'req'),
      queryString: [{ name: 'q', value: String(i) }],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status: 200,
      statusText: 'OK',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: headers(8, 'res'),
      content: {
        size: bodyBytes,
        mimeType: 'application/json',
        text: JSON.stringify({ id: i, pad: 'y'.repeat(Math.max(0, bodyBytes - 24)) }),
      },
      redirectURL: '',
      headersSize: -1,
      bodySize: bodyBytes,
    },
    cache: {},
    timings: { blocked: 0.1, dns: -1, connect: -1, ssl: -1, send: 0.1, wait: 3, receive: 0.3 },
    _id: `x${i}`,
  } as HarEntry;
}

const journal = JournalWriter.create(journalFile, { created: new Date().toISOString(), name: 'stop bench' });
for (let i = 0; i < count; i += 1000) {
  const batch = [];
  for (let k = i; k < Math.min(count, i + 1000); k++) batch.push(entryRecord(entry(k)));
  journal.appendRecords(batch);
}
journal.close();
const journalBytes = fs.statSync(journalFile).size;
const t0 = performance.now();
const result = await exportJournal(journalFile, path.join(dir, 'rec.har'));
const ms = performance.now() - t0;
const mib = (n: number) => (n / 2 ** 20).toFixed(1);
console.log(
  `entries=${result.entries} journal=${mib(journalBytes)} MiB har=${mib(result.bytes)} MiB export=${ms.toFixed(0)} ms ` +
    `(${((ms * 1000) / count).toFixed(1)} µs/entry) rss=${mib(process.memoryUsage().rss)} MiB`,
);
fs.rmSync(dir, { recursive: true, force: true });
