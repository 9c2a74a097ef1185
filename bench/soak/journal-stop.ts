/**
 * `npx tsx bench/soak/journal-stop.ts [--lines exchange|entry] [entries=200000] [bodyBytes=120]` — what
 * stopping a recording costs: writes a journal of N realistic exchanges (completion order, so starts are
 * slightly out of order, as a busy proxy writes them) and times exportJournal,
 * which is what `Recording.stop()` spends its time in. The lines are the recorder's
 * exchange lines (har/exchange-line.ts, whose entries are made on read) or, with
 * `--lines entry`, HAR entry lines as the journal held before 2026-11-26 (and an import still does).
 * Run under `node --cpu-prof --import tsx` to see where the time goes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exportJournal, JournalWriter, entryRecord } from '../../proxy/src/har/journal.js';
import { exchangeToEntry } from '../../proxy/src/har/entry.js';
import { writeExchangeLine } from '../../proxy/src/har/exchange-line.js';
import { JsonBytes } from '../../proxy/src/har/json-bytes.js';
import type { Exchange } from '../../proxy/src/model.js';
import { scriptArgs, intArg, usageError } from '../lib/usage.js';

const USAGE = `Usage: npx tsx bench/soak/journal-stop.ts [--lines exchange|entry] [entries] [bodyBytes]

What stopping a recording costs: writes a journal of N realistic exchanges (default
200000, bodies of bodyBytes, default 120) and times exportJournal.

  --lines exchange   the recorder's exchange lines, entries made on read (default)
  --lines entry      HAR entry lines (journals before 2026-11-26, imports)
`;
const args = scriptArgs(USAGE, { lines: { type: 'string', default: 'exchange' } }, 2);
const lines = args.values.lines;
if (lines !== 'exchange' && lines !== 'entry') usageError(`--lines is exchange or entry (got "${lines}")`, USAGE);
const [countArg, bytesArg] = args.positionals;
const count = intArg(countArg, 200_000, 'entries', USAGE, 1, 100_000_000);
const bodyBytes = intArg(bytesArg, 120, 'bodyBytes', USAGE, 0, 100_000_000);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-journal-stop-'));
const journalFile = path.join(dir, 'rec.journal');

function exchange(i: number): Exchange {
  // Completion order: a request that started earlier may finish later.
  const started = Date.UTC(2026, 0, 1) + i * 2 - (i % 7) * 5;
  const headers = (n: number, p: string): [string, string][] =>
    Array.from({ length: n }, (_, k) => [`${p}-header-${k}`, `value ${k} ${'x'.repeat(20)}`]);
  const text = Buffer.from(JSON.stringify({ id: i, pad: 'y'.repeat(Math.max(0, bodyBytes - 24)) }));
  return {
    id: `x${i}`,
    clientConnectionId: `c${i % 16}`,
    upstreamConnectionId: `u${i % 8}`,
    startedDateTime: new Date(started).toISOString(),
    transport: 'intercepted',
    clientProtocol: 'http/1.1',
    upstreamProtocol: 'http/1.1',
    nagle: false,
    request: {
      method: 'GET',
      url: `https://example.test/path/${i}?q=${i}`,
      httpVersion: 'http/1.1',
      headers: headers(10, 'req'),
      body: { size: 0, bytes: new Uint8Array(0), truncated: false },
    },
    response: {
      status: 200,
      statusText: 'OK',
      httpVersion: 'http/1.1',
      headers: [['content-type', 'application/json'], ...headers(7, 'res')],
      body: { size: text.length, bytes: text, truncated: false },
    },
    retries: 0,
    timestamps: { start: 0 },
    timings: { blocked: 0.1, dns: -1, connect: -1, ssl: -1, send: 0.1, wait: 3, receive: 0.3, total: 3.5 },
    clientTimings: { receiveRequest: 0.01, proxyOverhead: 0.05, respond: 0.02, total: 3.6 },
  };
}

const journal = JournalWriter.create(journalFile, { created: new Date().toISOString(), name: 'stop bench' });
const out = new JsonBytes();
for (let i = 0; i < count; i += 1000) {
  const end = Math.min(count, i + 1000);
  if (lines === 'entry') {
    const batch = [];
    for (let k = i; k < end; k++) batch.push(entryRecord(exchangeToEntry(exchange(k))));
    journal.appendRecords(batch);
  } else {
    out.reset();
    for (let k = i; k < end; k++) {
      writeExchangeLine(out, exchange(k));
      out.byte(10);
    }
    journal.appendBytes(out.bytes(), end - i);
  }
}
journal.close();
const journalBytes = fs.statSync(journalFile).size;
const t0 = performance.now();
const result = await exportJournal(journalFile, path.join(dir, 'rec.har'));
const ms = performance.now() - t0;
const mib = (n: number) => (n / 2 ** 20).toFixed(1);
console.log(
  `lines=${lines} entries=${result.entries} journal=${mib(journalBytes)} MiB har=${mib(result.bytes)} MiB export=${ms.toFixed(0)} ms ` +
    `(${((ms * 1000) / count).toFixed(1)} µs/entry) rss=${mib(process.memoryUsage().rss)} MiB`,
);
fs.rmSync(dir, { recursive: true, force: true });
