/**
 * How long recording holds the event loop when an exchange with a large or compressed body finishes: every other
 * exchange in flight waits that long.
 *
 *   npx tsx bench/recording-block.ts [--rounds N] [--json]
 *
 * For each body (4 MiB of text and of random bytes; gzip and brotli bodies that inflate to 16 MiB of text; a gzip
 * body cut by the capture limit; a 4 MiB upload), two ways, `--rounds` times each, medians:
 *   - at once: the exchange's line made and written as the recorder does for a small body (har/exchange-line.ts
 *     writeExchangeLine, then writeSync): how long that takes is how long the loop is held;
 *   - recorder: a HarRecorder on its own event stream, the exchange's 'complete' emitted while a setImmediate
 *     chain notes the time between consecutive turns; the longest gap, from the emit until the line is in the
 *     journal, is the longest the loop was held, and the time until then how late the line is.
 * Held means on a core: from each gap (and from the at-once time) the time the main thread spent runnable but
 * waiting for a core (`/proc/thread-self/schedstat`'s second field) is taken off, as it is another process's
 * doing, not the recorder's: with two busy loops started beside it on this machine's two cores, the same build's
 * longest hold went from 2.3 to 8.1 ms by the wall clock (gzip, 16 MiB inflated). The wall-clock gap is kept beside it.
 * `--json` prints one `RESULT {...}` line.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { EventStream } from '../proxy/src/events.js';
import { writeExchangeLine } from '../proxy/src/har/exchange-line.js';
import { JsonBytes } from '../proxy/src/har/json-bytes.js';
import { HarRecorder } from '../proxy/src/har/recorder.js';
import type { Exchange, RawHeaders } from '../proxy/src/model.js';
import { intArg, scriptArgs } from './lib/usage.js';

const USAGE = `Usage: npx tsx bench/recording-block.ts [--rounds N] [--json]

How long recording holds the event loop when an exchange with a large or compressed
body finishes: its line made at once against the recorder (bodies made into JSON
off the loop's critical path), per body, medians over rounds. Held means on a
core: the time the main thread waited for one (another process running) is not
counted; the wall-clock gap is printed beside it.

  --rounds N   rounds per body and way; default 5
  --json       print one RESULT line with the medians (for bench/run.ts)
`;
const { values } = scriptArgs(USAGE, { rounds: { type: 'string' }, json: { type: 'boolean' } });
const rounds = intArg(values.rounds, 5, '--rounds', USAGE);

const MiB = 1024 * 1024;
const unit = 'function f(a, b) { return a + b * 2; } // a line of a script, "quoted"\n';
const script = Buffer.from(unit.repeat(Math.ceil((16 * MiB) / unit.length))).subarray(0, 16 * MiB);

interface Body {
  name: string;
  bytes: Buffer;
  headers: RawHeaders;
  /** The bytes the capture limit kept (default all). */
  captured?: number;
  /** An upload: the body is the request's. */
  upload?: boolean;
}
const BODIES: Body[] = [
  { name: '4 MiB of text', bytes: script.subarray(0, 4 * MiB), headers: [['content-type', 'application/javascript']] },
  { name: '4 MiB of random bytes', bytes: crypto.randomBytes(4 * MiB), headers: [['content-type', 'image/jpeg']] },
  {
    name: 'gzip, 16 MiB of text inflated',
    bytes: zlib.gzipSync(script),
    headers: [
      ['content-type', 'application/javascript'],
      ['content-encoding', 'gzip'],
    ],
  },
  {
    name: 'brotli, 16 MiB of text inflated',
    bytes: zlib.brotliCompressSync(script, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } }),
    headers: [
      ['content-type', 'application/javascript'],
      ['content-encoding', 'br'],
    ],
  },
  {
    name: 'gzip, 4 MiB captured of 6',
    bytes: zlib.gzipSync(crypto.randomBytes(6 * MiB)),
    headers: [
      ['content-type', 'application/octet-stream'],
      ['content-encoding', 'gzip'],
    ],
    captured: 4 * MiB,
  },
  { name: '4 MiB upload', bytes: crypto.randomBytes(4 * MiB), headers: [['content-type', 'application/octet-stream']], upload: true },
];

const none = { size: 0, bytes: new Uint8Array(0), truncated: false };

function exchange(b: Body, i: number): Exchange {
  const kept = b.bytes.subarray(0, b.captured ?? b.bytes.length);
  const captured = { size: b.bytes.length, bytes: kept, truncated: kept.length < b.bytes.length };
  return {
    id: `x${i}`,
    clientConnectionId: 'c1',
    upstreamConnectionId: 'u1',
    startedDateTime: new Date().toISOString(),
    transport: 'intercepted',
    clientProtocol: 'h2',
    upstreamProtocol: 'http/1.1',
    nagle: false,
    request: {
      method: b.upload ? 'POST' : 'GET',
      url: 'https://site.test/app.js',
      httpVersion: 'h2',
      headers: b.upload ? b.headers : [[':path', '/app.js']],
      body: b.upload ? captured : none,
    },
    response: {
      status: 200,
      statusText: 'OK',
      httpVersion: 'http/1.1',
      headers: b.upload ? [['content-length', '0']] : b.headers,
      body: b.upload ? none : captured,
    },
    serverIPAddress: '127.0.0.1',
    upstreamConnectionNew: false,
    retries: 0,
    timestamps: { start: 0 },
    timings: { blocked: 0, dns: -1, connect: -1, ssl: -1, send: 0.1, wait: 1, receive: 2, total: 3.1 },
    clientTimings: { receiveRequest: 0, proxyOverhead: 0.2, respond: 0.1, total: 3.4 },
  } as Exchange;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-recording-block-'));
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Milliseconds the main thread has waited for a core so far (runnable, not running), from its schedstat, read with
 * one pread (~1.6 µs); 0 where there is no such file (the times are then the wall clock's alone).
 */
const waitedMs: () => number = (() => {
  let fd: number;
  try {
    fd = fs.openSync('/proc/thread-self/schedstat', 'r');
  } catch {
    return () => 0;
  }
  const buf = Buffer.alloc(128);
  return () => {
    const text = buf.toString('latin1', 0, fs.readSync(fd, buf, 0, buf.length, 0));
    return Number(text.split(' ')[1]) / 1e6;
  };
})();

/** Milliseconds to make and write the line at once (the loop is held all that time), on a core. */
function atOnce(x: Exchange, fd: number): number {
  const w0 = waitedMs();
  const t0 = performance.now();
  const o = new JsonBytes();
  writeExchangeLine(o, x);
  o.byte(10);
  const bytes = o.bytes();
  for (let off = 0; off < bytes.length;) off += fs.writeSync(fd, bytes, off, bytes.length - off);
  return performance.now() - t0 - (waitedMs() - w0);
}

/**
 * The longest gap between event-loop turns from the emit until the line is written, on a core (blockMs) and by the
 * wall clock (wallBlockMs), and the time until then (ms).
 */
async function recorder(x: Exchange, file: string): Promise<{ blockMs: number; wallBlockMs: number; doneMs: number }> {
  const events = new EventStream();
  const rec = new HarRecorder(events, { journalFile: file, flushMaxPending: 1 });
  await turn();
  const t0 = performance.now();
  let last = t0;
  let lastWaited = waitedMs();
  let blockMs = 0;
  let wallBlockMs = 0;
  events.emit({ type: 'complete', exchange: x });
  // Bounded: a line that never lands ends the wait after 60 s (and the result says so).
  while (rec.stats.entries + rec.stats.failed === 0 && performance.now() - t0 < 60_000) {
    await turn();
    const now = performance.now();
    const waited = waitedMs();
    wallBlockMs = Math.max(wallBlockMs, now - last);
    blockMs = Math.max(blockMs, now - last - (waited - lastWaited));
    last = now;
    lastWaited = waited;
  }
  const doneMs = performance.now() - t0;
  if (rec.stats.entries !== 1) throw new Error(`the recorder wrote ${rec.stats.entries} lines (${rec.stats.failed} failed)`);
  rec.stop();
  return { blockMs, wallBlockMs, doneMs };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results: { body: string; atOnceMs: number; blockMs: number; wallBlockMs: number; doneMs: number; lineMiB: number }[] = [];
try {
  let n = 0;
  for (const b of BODIES) {
    const once: number[] = [];
    const block: number[] = [];
    const wallBlock: number[] = [];
    const done: number[] = [];
    let lineBytes = 0;
    for (let r = 0; r < rounds; r++) {
      // Alternating which way goes first.
      const ways = [
        () => {
          const file = path.join(dir, `once-${++n}.jsonl`);
          const fd = fs.openSync(file, 'wx');
          once.push(atOnce(exchange(b, n), fd));
          fs.closeSync(fd);
          lineBytes = fs.statSync(file).size;
          fs.rmSync(file);
        },
        async () => {
          const file = path.join(dir, `rec-${++n}.jsonl`);
          const m = await recorder(exchange(b, n), file);
          block.push(m.blockMs);
          wallBlock.push(m.wallBlockMs);
          done.push(m.doneMs);
          fs.rmSync(file);
        },
      ];
      for (const way of r % 2 ? ways.reverse() : ways) await way();
    }
    const row = {
      body: b.name,
      atOnceMs: median(once),
      blockMs: median(block),
      wallBlockMs: median(wallBlock),
      doneMs: median(done),
      lineMiB: lineBytes / MiB,
    };
    results.push(row);
    if (!values.json)
      console.log(
        `${b.name.padEnd(34)} line ${row.lineMiB.toFixed(1).padStart(4)} MiB: at once ${row.atOnceMs.toFixed(1).padStart(6)} ms; ` +
          `recorder: loop held ${row.blockMs.toFixed(1).padStart(5)} ms at most (wall ${row.wallBlockMs.toFixed(1)}), ` +
          `line written after ${row.doneMs.toFixed(0).padStart(4)} ms`,
      );
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
if (values.json) console.log(`RESULT ${JSON.stringify({ rounds, results })}`);
else console.log(`(medians of ${rounds} rounds; npx tsx bench/recording-block.ts --help for what is measured)`);
