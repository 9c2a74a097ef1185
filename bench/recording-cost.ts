/**
 * What recording costs the proxy's main thread per exchange (issue 17: ≤ 10 µs).
 *
 *   npx tsx bench/recording-cost.ts [--rounds N] [--exchanges N] [--per-turn N] [--breakdown] [--json] [--tsx]
 *
 * Drives a HarRecorder with the events the proxy emits for an intercepted GET of a
 * small JSON document (request, response, complete; realistic headers), HTTP/1.1 and
 * HTTP/2 client legs, `--per-turn` exchanges finishing per event-loop turn. Each round
 * runs the same driver twice, interleaved: with no subscriber (the baseline: making
 * the exchange objects and emitting) and with a recorder writing a journal; the
 * difference ÷ exchanges is the recorder's cost. CPU is the main thread's own
 * (/proc/self/task/<pid>/schedstat, nanoseconds; process.cpuUsage elsewhere), so work
 * moved to another thread would not count: "all threads" (process.cpuUsage) is shown
 * beside it. Medians over rounds, with the range.
 *
 * A third condition, "before", is the recorder's flush policy as it was before
 * issue 17 (one write per event-loop turn; recording-cost-before.ts), kept as a
 * reference so both are measured side by side. It shares today's entry builders,
 * so it leaves out the header-scan savings made in har/ at the same time: the
 * recorder of the commit before issue 17 measured 12.6–13.5 µs (HTTP/1.1) and
 * 14.7–14.9 µs (HTTP/2) on the same machine and day. It also serializes the
 * generic way (exchangeToEntry, then JSON.stringify of the entry record), where
 * the recorder now writes the exchange itself in a compact line (har/exchange-line.ts), whose HAR entry is made
 * when the journal is read (`--breakdown` times that too).
 *
 * Runs bundled (esbuild, then plain node), as the CLI and the app ship: under tsx
 * every imported binding is a getter and every function gets a `__name` call,
 * which adds ~15% here. `--tsx` runs the sources instead.
 *
 * `--breakdown` also times each step of the recorder in isolation (same CPU clock).
 * `--json` prints one `RESULT {...}` line (bench/run.ts reads it).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { EventStream } from '../proxy/src/events.js';
import type { Exchange, HttpProtocol, RawHeaders } from '../proxy/src/model.js';
import { HarRecorder } from '../proxy/src/har/recorder.js';
import { exchangeToEntry } from '../proxy/src/har/entry.js';
import { entryFromExchangeRecord, exchangeLine, writeExchangeLine } from '../proxy/src/har/exchange-line.js';
import { JsonBytes } from '../proxy/src/har/json-bytes.js';
import { requestEvent } from '../proxy/src/server/exchange-record.js';
import { entryRecord } from '../proxy/src/har/journal.js';
import { bodyText } from '../proxy/src/har/body.js';
import { PageTracker } from '../proxy/src/har/pages.js';
import { intArg, scriptArgs } from './lib/usage.js';
import { PreviousRecorder } from './recording-cost-before.js';

const USAGE = `Usage: npx tsx bench/recording-cost.ts [--rounds N] [--exchanges N] [--per-turn N] [--breakdown] [--json] [--tsx]

Main-thread CPU per exchange that the HAR recorder costs (recorder minus a driver
with no subscriber), intercepted HTTP/1.1 and HTTP/2 GETs of a small JSON document.

  --rounds N      rounds, each baseline then recorder (alternating order); default 9
  --exchanges N   exchanges per round and condition; default 4000
  --per-turn N    exchanges finishing per event-loop turn; default 2
  --breakdown     also time each step of recording in isolation
  --json          print one RESULT line with the medians (for bench/run.ts)
  --tsx           run the TypeScript sources under tsx instead of a bundle
`;
const { values } = scriptArgs(USAGE, {
  rounds: { type: 'string' },
  exchanges: { type: 'string' },
  'per-turn': { type: 'string' },
  breakdown: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  tsx: { type: 'boolean', default: false },
});
if (!values.tsx && !process.env.NETLENS_RECORDING_COST_BUNDLED) process.exit(await runBundled());

/** Bundles this script (npm packages external) and runs it with plain node; returns its exit code. */
async function runBundled(): Promise<number> {
  const { bundleBenchEntry } = await import('./lib/bundle.js');
  const outfile = await bundleBenchEntry('recording-cost.ts', 'recording-cost');
  try {
    const r = spawnSync(process.execPath, [outfile, ...process.argv.slice(2)], {
      stdio: 'inherit',
      env: { ...process.env, NETLENS_RECORDING_COST_BUNDLED: '1' },
    });
    return r.status ?? 1;
  } finally {
    fs.rmSync(outfile, { force: true });
  }
}
const rounds = intArg(values.rounds, 9, '--rounds', USAGE, 1, 1000);
const perRound = intArg(values.exchanges, 4000, '--exchanges', USAGE, 10, 10_000_000);
const perTurn = intArg(values['per-turn'], 2, '--per-turn', USAGE, 1, 10_000);

// ---- clocks ---------------------------------------------------------------------------

const schedstat = `/proc/self/task/${process.pid}/schedstat`;
const hasSchedstat = fs.existsSync(schedstat);
/** The main thread's CPU time in ns (schedstat's first field), or the process's where there is no /proc. */
function mainThreadNs(): number {
  if (hasSchedstat) return Number(fs.readFileSync(schedstat, 'latin1').split(' ', 1)[0]);
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
}
function processNs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
}

// ---- realistic exchanges ------------------------------------------------------------------

const SMALL = Buffer.from(JSON.stringify({ ok: true, name: 'netlens-bench', items: [1, 2, 3, 4, 5], note: 'a small JSON document' }));
const H1_REQUEST: RawHeaders = [
  ['host', 'localhost:8443'],
  ['connection', 'keep-alive'],
  ['user-agent', 'undici'],
  ['accept', '*/*'],
  ['accept-language', '*'],
  ['sec-fetch-mode', 'cors'],
  ['accept-encoding', 'gzip, deflate'],
];
const H2_REQUEST: RawHeaders = [
  [':method', 'GET'],
  [':authority', 'localhost:8443'],
  [':scheme', 'https'],
  [':path', '/small?id=7'],
  ['user-agent', 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36'],
  ['accept', 'application/json'],
  ['referer', 'https://localhost:8443/'],
  ['accept-encoding', 'gzip, deflate, br'],
  ['accept-language', 'en-US,en;q=0.9'],
];
let seq = 0;
const date = new Date().toUTCString();

/** A finished exchange as the proxy builds it (fresh objects and body bytes each time, as the proxy makes them). */
function makeExchange(h2: boolean): Exchange {
  seq++;
  const client: HttpProtocol = h2 ? 'h2' : 'http/1.1';
  const bytes = Buffer.from(SMALL);
  return {
    id: `x${seq}`,
    clientConnectionId: `c${seq & 15}`,
    upstreamConnectionId: `u${seq & 7}`,
    startedDateTime: new Date().toISOString(),
    transport: 'intercepted',
    clientProtocol: client,
    upstreamProtocol: 'http/1.1',
    nagle: false,
    request: {
      method: 'GET',
      url: h2 ? `https://localhost:8443/small?id=${seq % 1000}` : 'https://localhost:8443/small',
      httpVersion: client,
      // On HTTP/2, :path is one of the headers, and a browser's requests on a connection differ in it (a page's images).
      headers: (h2 ? H2_REQUEST : H1_REQUEST).map(([k, v]) => [k, k === ':path' ? `/small?id=${seq % 1000}` : v] as [string, string]),
      body: { size: 0, bytes: new Uint8Array(0), truncated: false },
    },
    response: {
      status: 200,
      statusText: 'OK',
      httpVersion: 'http/1.1',
      headers: [
        ['content-type', 'application/json'],
        ['content-length', String(SMALL.length)],
        ['date', date],
        ['connection', 'keep-alive'],
        ['keep-alive', 'timeout=5'],
      ],
      body: { size: bytes.length, bytes, truncated: false },
    },
    serverIPAddress: '127.0.0.1',
    upstreamConnectionNew: false,
    retries: 0,
    timestamps: { start: seq, clientRequestEnd: seq + 0.01, requestSent: seq + 0.05, responseHeaders: seq + 0.3, responseEnd: seq + 0.31 },
    timings: { blocked: 0.012, dns: -1, connect: -1, ssl: -1, send: 0.031, wait: 0.252, receive: 0.011, total: 0.306 },
    clientTimings: { receiveRequest: 0.01, proxyOverhead: 0.05, respond: 0.02, total: 0.331 },
  };
}

/** Emits what the proxy emits for one exchange: request head, response head, complete. */
function emitExchange(events: EventStream, x: Exchange): void {
  events.emit(requestEvent(x));
  const s = x.response!;
  events.emit({ type: 'response', response: { id: x.id, status: s.status, statusText: s.statusText, headers: s.headers } } as never);
  events.emit({ type: 'complete', exchange: x });
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

type Condition = 'none' | 'before' | 'now';

/** One run of `n` exchanges, `perTurn` per event-loop turn; returns ns of main-thread and all-thread CPU. */
async function drive(h2: boolean, n: number, condition: Condition, dir: string): Promise<{ main: number; all: number }> {
  const events = new EventStream();
  const file = path.join(dir, `j${seq}.jsonl`);
  const rec =
    condition === 'now'
      ? new HarRecorder(events, { journalFile: file })
      : condition === 'before'
        ? new PreviousRecorder(events, file)
        : undefined;
  await turn();
  const main0 = mainThreadNs();
  const all0 = processNs();
  for (let i = 0; i < n; i++) {
    emitExchange(events, makeExchange(h2));
    if ((i + 1) % perTurn === 0) await turn();
  }
  // The recorder's deferred work (its batch) belongs to the round.
  await rec?.drain();
  await turn();
  const main = mainThreadNs() - main0;
  const all = processNs() - all0;
  rec?.stop();
  return { main, all };
}

const median = (a: number[]) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const range = (a: number[]) => `${Math.min(...a).toFixed(1)}–${Math.max(...a).toFixed(1)}`;

interface Result {
  kind: 'h1' | 'h2';
  /** The recorder now: main-thread µs per exchange (median) and the range over rounds. */
  mainUs: number;
  mainRange: string;
  allUs: number;
  allRange: string;
  /** The recorder before issue 17 (recording-cost-before.ts), same rounds. */
  beforeUs: number;
  beforeRange: string;
}

async function measure(h2: boolean, dir: string): Promise<Result> {
  const conditions: Condition[] = ['none', 'before', 'now'];
  // Warm-up: JIT every path.
  for (const c of conditions) await drive(h2, Math.min(perRound, 2000), c, dir);
  const main: number[] = [];
  const all: number[] = [];
  const before: number[] = [];
  for (let r = 0; r < rounds; r++) {
    // Rotate the order so no condition always runs first (or right after a GC-heavy one).
    const order = conditions.map((_, i) => conditions[(i + r) % conditions.length]);
    const got = {} as Record<Condition, { main: number; all: number }>;
    for (const c of order) got[c] = await drive(h2, perRound, c, dir);
    const per = (ns: number) => ns / perRound / 1000;
    main.push(per(got.now.main - got.none.main));
    all.push(per(got.now.all - got.none.all));
    before.push(per(got.before.main - got.none.main));
    for (const f of fs.readdirSync(dir)) fs.rmSync(path.join(dir, f), { force: true });
  }
  return {
    kind: h2 ? 'h2' : 'h1',
    mainUs: median(main),
    mainRange: range(main),
    allUs: median(all),
    allRange: range(all),
    beforeUs: median(before),
    beforeRange: range(before),
  };
}

/** Times `f` over many calls on the main thread's CPU clock: median µs per call. */
function timeStep(f: (i: number) => unknown, n = 20_000): number {
  for (let i = 0; i < 2000; i++) f(i);
  const per: number[] = [];
  for (let r = 0; r < 7; r++) {
    const t = mainThreadNs();
    for (let i = 0; i < n; i++) f(i);
    per.push((mainThreadNs() - t) / n / 1000);
  }
  return median(per);
}

function breakdown(dir: string): [string, number][] {
  const xs = Array.from({ length: 1000 }, (_, i) => makeExchange(i % 2 === 1));
  const entries = xs.map((x) => exchangeToEntry(x));
  const records = entries.map((e) => entryRecord(e));
  // What the recorder writes: exchange lines (~40% of an entry line's bytes).
  const lines = xs.map((x) => exchangeLine(x) + '\n');
  const events = new EventStream();
  events.subscribe(() => undefined);
  const pages = new PageTracker();
  // What a 'request' event carries (see emitExchange).
  const starts = xs.map((x) => ({ ...x, method: x.request.method, url: x.request.url, headers: x.request.headers }));
  const fd = fs.openSync(path.join(dir, 'breakdown.jsonl'), 'w');
  let batch = '';
  let position = 0;
  let joined: string[] = [];
  let sink = 0;
  const { port1, port2 } = new MessageChannel();
  port2.on('message', () => undefined);
  let posted: unknown[] = [];
  const lineBytes = new JsonBytes();
  const parsedLines = xs.map((x) => JSON.parse(exchangeLine(x)) as { d: unknown; x: unknown });
  const out: [string, number][] = [
    ['event emission to one listener (3 events)', timeStep((i) => emitExchange(events, xs[i % 1000]))],
    ['page tracking (request head)', timeStep((i) => pages.onRequest(starts[i % 1000]))],
    ['body → HAR text (utf8 check)', timeStep((i) => bodyText(xs[i % 1000].response!.body.bytes as Buffer, 'application/json', false))],
    ['exchangeToEntry (entry object)', timeStep((i) => exchangeToEntry(xs[i % 1000]))],
    ['JSON.stringify of the entry record', timeStep((i) => JSON.stringify(records[i % 1000]))],
    [
      'writeExchangeLine: the compact journal line as UTF-8 bytes straight from the exchange (what a batch runs)',
      timeStep((i) => {
        if (i % 64 === 0) lineBytes.reset();
        writeExchangeLine(lineBytes, xs[i % 1000]);
      }),
    ],
    [
      'on read, not on the event loop: the HAR entry made from a parsed line and serialized (export)',
      timeStep((i) => JSON.stringify(entryFromExchangeRecord(parsedLines[i % 1000]))),
    ],
    [
      'exchangeToEntry + JSON.stringify + joining 64 lines (what a batch ran before the lines were written as bytes)',
      timeStep((i) => {
        joined.push(JSON.stringify(entryRecord(exchangeToEntry(xs[i % 1000]))));
        if (joined.length === 64) {
          sink += (joined.join('\n') + '\n').length;
          joined = [];
        }
      }),
    ],
    [
      'writeSync of the lines, 64 per write (as the recorder under load)',
      timeStep((i) => {
        batch += lines[i % 1000];
        if (i % 64 === 63) {
          // The file starts over every ~5 MB (one round's journal): a file grown to hundreds of MB
          // here would measure the kernel's dirty-page throttling, not what a write costs.
          if (position > 5e6) {
            fs.ftruncateSync(fd, 0);
            position = 0;
          }
          position += fs.writeSync(fd, batch, position);
          batch = '';
        }
      }),
    ],
    [
      'postMessage to a worker (structured clone, exchange minus bodies, 16 per message)',
      timeStep((i) => {
        const x = xs[i % 1000];
        posted.push({ ...x, request: { ...x.request, body: null }, response: { ...x.response, body: null } });
        if (i % 16 === 15) {
          port1.postMessage(posted);
          posted = [];
        }
      }),
    ],
  ];
  fs.closeSync(fd);
  port1.close();
  if (sink < 0) console.log(sink); // keeps the joins from being optimized away
  return out;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-recording-cost-'));
try {
  const results = [await measure(false, dir), await measure(true, dir)];
  const steps = values.breakdown ? breakdown(dir) : [];
  if (values.json) {
    process.stdout.write(`RESULT ${JSON.stringify({ perTurn, rounds, exchanges: perRound, results, steps })}\n`);
  } else {
    console.log(
      `Recorder cost per exchange (recorder − no subscriber), ${rounds} rounds × ${perRound} exchanges, ${perTurn} per turn; ` +
        `CPU clock: ${hasSchedstat ? 'main thread (schedstat)' : 'process (no /proc)'}`,
    );
    for (const r of results) {
      console.log(
        `  intercepted ${r.kind === 'h1' ? 'HTTP/1.1' : 'HTTP/2  '}: main thread ${r.mainUs.toFixed(1)} µs (${r.mainRange}), ` +
          `all threads ${r.allUs.toFixed(1)} µs (${r.allRange}); one write per turn (before issue 17): ${r.beforeUs.toFixed(1)} µs (${r.beforeRange})`,
      );
    }
    if (steps.length) {
      console.log('Steps in isolation (µs per exchange, main-thread CPU, median of 7):');
      for (const [name, us] of steps) console.log(`  ${us.toFixed(2).padStart(6)}  ${name}`);
    }
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
