/**
 * `npx tsx bench/soak/journal-flush-cost.ts [exchanges=100000]` — the CPU cost of
 * the recorder's loss window: the same finished exchanges (20 per event-loop turn,
 * like a busy proxy) journaled with one write per exchange (flushMaxPending 1:
 * nothing waits, a kill -9 loses nothing already finished) and batched (the
 * default: FLUSH_DELAY_MS, at most FLUSH_MAX_PENDING waiting). Prints CPU µs per exchange.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EventStream } from '../../proxy/src/events.js';
import { FLUSH_MAX_PENDING, HarRecorder } from '../../proxy/src/har/recorder.js';
import { makeExchange } from '../../proxy/test/har/make-exchange.js';
import { intArg, scriptArgs } from '../lib/usage.js';

const USAGE = `Usage: npx tsx bench/soak/journal-flush-cost.ts [exchanges]

The CPU cost of the recorder's loss window: N finished exchanges (default 100000)
journaled with one write per exchange and batched (the default); prints CPU µs
per exchange.
`;
const total = intArg(scriptArgs(USAGE, {}, 1).positionals[0], 100_000, 'exchanges', USAGE, 1, 100_000_000);
const PER_TURN = 20;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-flush-cost-'));

async function run(flushMaxPending: number): Promise<number> {
  const events = new EventStream();
  const rec = new HarRecorder(events, {
    journalFile: path.join(dir, `${flushMaxPending}-${Math.random()}.journal`),
    pages: false,
    flushMaxPending,
  });
  const exchanges = Array.from({ length: PER_TURN }, (_, i) => makeExchange({ id: `x${i}` }));
  const cpu0 = process.cpuUsage();
  for (let sent = 0; sent < total; sent += PER_TURN) {
    for (const x of exchanges) events.emit({ type: 'complete', exchange: x });
    await new Promise((r) => setImmediate(r));
  }
  rec.stop();
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / total;
}

await run(FLUSH_MAX_PENDING); // warm-up
for (const n of [1, FLUSH_MAX_PENDING, 1, FLUSH_MAX_PENDING]) {
  console.log(`flushMaxPending=${String(n).padStart(2)}: ${(await run(n)).toFixed(1)} µs CPU per exchange`);
}
fs.rmSync(dir, { recursive: true, force: true });
