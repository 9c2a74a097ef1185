/**
 * Benchmark: peak memory (RSS) of exporting a recorded session as HAR, for
 * 10,000 and 100,000 entries, streaming (exportJournal) against the naive way
 * (all entries in an array, one JSON.stringify). A measurement, not a test:
 *
 *   npx tsx proxy/test/har/bench-export-memory.ts [--entries 10000,100000]
 *
 * Each measurement runs in a fresh child process, so peaks do not mix. Bounded
 * memory means: the streaming export's peak does not grow with the entry count
 * (100k ≈ 10k), while the naive one grows with it. `import` imports the
 * exported file into the session store (streamed as well).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const MiB = 1024 * 1024;

async function child(mode: string, journal: string, out: string, n: number): Promise<void> {
  const { exchangeToEntry } = await import('../../src/har/entry.js');
  const { JournalWriter, exportJournal, scanJournal, journalEntries } = await import('../../src/har/journal.js');
  const { makeExchange, body } = await import('./make-exchange.js');
  if (mode === 'generate') {
    const j = JournalWriter.create(journal, { created: new Date().toISOString() });
    const html = '<p>Netlens benchmark body</p>'.repeat(30); // ~900 bytes of text per response
    for (let i = 0; i < n; i++) {
      j.appendEntry(
        exchangeToEntry(
          makeExchange({
            startedDateTime: new Date(Date.UTC(2026, 0, 1) + i).toISOString(),
            resHeaders: [['Content-Type', 'text/html']],
            resBody: body(html),
          }),
        ),
      );
    }
    j.close();
    return;
  }
  global.gc?.();
  const before = process.memoryUsage().rss;
  const t0 = performance.now();
  if (mode === 'stream') {
    await exportJournal(journal, out);
  } else if (mode === 'import') {
    // Importing streams too: entries are checked one by one into a spool, then written.
    const { SessionStore } = await import('../../src/sessions/store.js');
    await exportJournal(journal, out);
    global.gc?.();
    const base = process.memoryUsage().rss;
    const t1 = performance.now();
    await new SessionStore(path.dirname(out)).importFile(out);
    process.stdout.write(
      JSON.stringify({
        baselineMiB: base / MiB,
        peakMiB: process.resourceUsage().maxRSS / 1024,
        ms: performance.now() - t1,
        bytes: fs.statSync(out).size,
      }) + '\n',
    );
    return;
  } else {
    // What a non-streaming exporter does: every entry in memory, one big string.
    const scan = await scanJournal(journal);
    const entries = [];
    for await (const e of journalEntries(journal, scan)) entries.push(e);
    try {
      fs.writeFileSync(out, JSON.stringify({ log: { version: '1.2', creator: { name: 'x', version: '1' }, pages: [], entries } }, null, 2));
    } catch (err) {
      // V8 strings top out at ~512 MiB: past that a one-string HAR cannot be written at all.
      process.stdout.write(JSON.stringify({ failed: (err as Error).message, peakMiB: process.resourceUsage().maxRSS / 1024 }) + '\n');
      return;
    }
  }
  const ms = performance.now() - t0;
  // maxRSS is in KiB (getrusage).
  process.stdout.write(
    JSON.stringify({ baselineMiB: before / MiB, peakMiB: process.resourceUsage().maxRSS / 1024, ms, bytes: fs.statSync(out).size }) + '\n',
  );
}

interface Measure {
  baselineMiB: number;
  peakMiB: number;
  ms: number;
  bytes: number;
  failed?: string;
}

function run(mode: string, journal: string, out: string, n: number): Measure | undefined {
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', SELF, '--child', mode, journal, out, String(n)], {
    encoding: 'utf8',
    maxBuffer: 10 * MiB,
  });
  if (r.status !== 0) {
    console.error(`${mode} ${n}: exited ${r.status} ${r.signal ?? ''}\n${r.stderr.slice(-2000)}`);
    return undefined;
  }
  return mode === 'generate' ? undefined : JSON.parse(r.stdout.trim().split('\n').at(-1)!);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--child') return child(args[1], args[2], args[3], Number(args[4]));
  const countsArg = args[args.indexOf('--entries') + 1];
  const counts = args.includes('--entries') && countsArg ? countsArg.split(',').map(Number) : [10_000, 100_000];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-bench-'));
  try {
    console.log('entries   mode     HAR size   baseline RSS   peak RSS   time');
    for (const n of counts) {
      const journal = path.join(dir, `${n}.journal`);
      run('generate', journal, '', n);
      for (const mode of ['stream', 'naive', 'import']) {
        const out = path.join(dir, `${n}-${mode}.har`);
        const r = run(mode, journal, out, n);
        if (r?.failed)
          console.log(`${String(n).padStart(7)}   ${mode.padEnd(6)} failed after reaching ${r.peakMiB.toFixed(0)} MiB: ${r.failed}`);
        else if (r)
          console.log(
            `${String(n).padStart(7)}   ${mode.padEnd(6)} ${(r.bytes / MiB).toFixed(0).padStart(6)} MiB ${r.baselineMiB.toFixed(0).padStart(10)} MiB ${r.peakMiB.toFixed(0).padStart(7)} MiB ${(r.ms / 1000).toFixed(1).padStart(5)} s`,
          );
        fs.rmSync(out, { force: true });
        fs.rmSync(path.join(dir, 'sessions'), { recursive: true, force: true });
      }
      fs.rmSync(journal, { force: true });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
