/**
 * Netlens under test, in its own process. argv: <dataDir> <intercept 0|1> <record 0|1|events|events0|toggle> [<timeline 0|1>]
 * record=1: a HarRecorder subscribes and writes every exchange as a HAR entry
 * (bodies captured up to the default cap), as the app does.
 * record=0: no subscriber and bodyCaptureLimit 0: forwarding only.
 * record=events: bodies captured as when recording and a subscriber that drops every event: what recording costs
 * the proxy outside the recorder (bench/https-paired.ts `events-only`); events0: the same without bodies.
 * record=toggle: bodies captured and a HarRecorder, which a control server on 127.0.0.1 (READY's `controlPort`)
 * starts and stops: `POST /recorder/on`, `POST /recorder/off` (and the states `events`, `on-tmpfs`, `on-timed` below).
 * So recording on and off are measured in one process, as a user starts and stops a recording in the app (whose
 * proxy captures bodies either way).
 * timeline=0: the socket timeline off (default on, as the app runs), to measure its cost.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import v8 from 'node:v8';
import { appPathsFor, setAppPaths } from '../../proxy/src/app-paths.js';
import type { EventStream } from '../../proxy/src/events.js';
import { HarRecorder } from '../../proxy/src/har/recorder.js';
import type { ProxyEvent } from '../../proxy/src/model.js';
import { startProxy } from '../../proxy/src/server/proxy-server.js';
import { keepWasmOnBaselineTier } from '../../proxy/src/upstream/wasm-tiering.js';
import { useFastAsyncBind } from '../../proxy/src/upstream/async-bind.js';
import { steadyHeapGrowth } from '../../proxy/src/server/heap-growth.js';
import { ready } from '../lib/child.js';
import { exitOnHelp } from '../lib/usage.js';

exitOnHelp(`Usage: npx tsx bench/peers/netlens.ts <dataDir> <intercept 0|1> <record 0|1|events|events0|toggle> [<timeline 0|1>]

A child process of "npm run bench", started and killed by it; it prints READY (or RESULT) JSON on stdout.
Run "npm run bench -- --help" for the benchmark itself.
`);

const [dataDir, intercept, record, timeline] = process.argv.slice(2);
// Bundled (dist/bench/netlens-peer-*.mjs, two levels under the repository), the pre-bundled packages sit beside it,
// as next to the CLI's bundle; run by tsx from bench/peers, none are found there and the packages load as they are.
const here = path.dirname(fs.realpathSync(process.argv[1]!));
setAppPaths(appPathsFor({ root: path.resolve(here, '../..'), bundleDir: here }));
// As the CLI, the app and the lab's proxy child run it (proxy/src/upstream/wasm-tiering.ts).
keepWasmOnBaselineTier();
useFastAsyncBind();
steadyHeapGrowth();
const toggle = record === 'toggle';
const recording = record === '1' || toggle;
const eventsOnly = record === 'events' || record === 'events0';
const proxy = await startProxy({
  port: 0,
  host: '127.0.0.1',
  dataDir,
  intercept: intercept === '1',
  timeline: timeline !== '0',
  ...((recording || eventsOnly) && record !== 'events0' ? {} : { bodyCaptureLimit: 0 }),
});
if (eventsOnly) proxy.events.subscribe(() => undefined);
let recorder: HarRecorder | undefined;
let journalDir: string | undefined;
if (recording) {
  // Inside the harness's data directory, which it removes at the end: a peer that had to be
  // SIGKILLed (stop took over 2 s) must not leave its journal behind in the system temp folder.
  journalDir = fs.mkdtempSync(path.join(dataDir, 'har-'));
  recorder = new HarRecorder(proxy.events, { journalFile: path.join(journalDir, 'session.jsonl') });
}
let controlPort: number | undefined;
if (toggle) {
  // Each start is a new journal (as in the app); a stopped one is removed, so hundreds of windows leave no pile on disk.
  // More states locate what recording costs (bench/https-paired.ts): `events`, a subscriber that drops every
  // event (the proxy's side of recording: events built and emitted); `on-tmpfs`, the recorder with its journal
  // in memory (/dev/shm): what writing the journal to the disk's file system adds; `on-timed`, the recorder with
  // the wall time of each event it handles summed (performance.now() around it: its lines and the writes of full
  // batches, not the timer's writes of partial ones), read with `GET /recorder/stats`: the recorder's own time in
  // situ, without what it does to the proxy's other work (which the paired ratio includes).
  let journals = 0;
  const timed = { ms: 0, exchanges: 0 };
  const timedEvents = {
    subscribe: (listener: (e: ProxyEvent) => void) =>
      proxy.events.subscribe((e) => {
        const t0 = performance.now();
        listener(e);
        timed.ms += performance.now() - t0;
        if (e.type === 'complete' || e.type === 'error') timed.exchanges++;
      }),
  } as unknown as EventStream;
  let dropEvents: (() => void) | undefined;
  let tmpfsDir: string | undefined;
  const stopAll = () => {
    dropEvents?.();
    dropEvents = undefined;
    if (recorder) {
      recorder.stop();
      fs.rmSync(recorder.journalFile, { force: true });
      recorder = undefined;
    }
  };
  const startRecorder = (dir: string, events: EventStream = proxy.events) => {
    stopAll();
    recorder = new HarRecorder(events, { journalFile: path.join(dir, `session-${++journals}.jsonl`) });
    recorderTimed = events === timedEvents;
  };
  let recorderTimed = false;
  const control = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/recorder/stats') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(timed));
      return;
    }
    const state = req.method === 'POST' && req.url?.startsWith('/recorder/') ? req.url.slice('/recorder/'.length) : '';
    if (state === 'on') {
      if (!recorder || recorderTimed || path.dirname(recorder.journalFile) !== journalDir) startRecorder(journalDir!);
    } else if (state === 'on-timed') {
      if (!recorder || !recorderTimed) startRecorder(journalDir!, timedEvents);
    } else if (state === 'on-tmpfs') {
      if (!fs.existsSync('/dev/shm')) {
        res.writeHead(501).end('no /dev/shm on this machine: the on-tmpfs state needs a tmpfs there');
        return;
      }
      tmpfsDir ??= fs.mkdtempSync('/dev/shm/netlens-bench-');
      if (!recorder || recorderTimed || path.dirname(recorder.journalFile) !== tmpfsDir) startRecorder(tmpfsDir);
    } else if (state === 'events') {
      if (!dropEvents) {
        stopAll();
        dropEvents = proxy.events.subscribe(() => undefined);
      }
    } else if (state === 'off') stopAll();
    else {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(204).end();
  });
  process.on('exit', () => tmpfsDir && fs.rmSync(tmpfsDir, { recursive: true, force: true }));
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  controlPort = (control.address() as AddressInfo).port;
}
const shutdown = async () => {
  recorder?.stop();
  await proxy.stop();
  if (journalDir) fs.rmSync(journalDir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGTERM', () => void shutdown());
// For bench/large-profile.ts: what the process's memory is made of (and, under --expose-gc, what a full GC frees).
process.on('SIGUSR2', () => {
  const mib = (m: NodeJS.MemoryUsage) =>
    Object.entries(m)
      .map(([k, v]) => `${k} ${(v / 2 ** 20).toFixed(1)}`)
      .join(', ');
  process.stderr.write(`MEM ${mib(process.memoryUsage())}\n`);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    process.stderr.write(`MEM after gc: ${mib(process.memoryUsage())}\n`);
  }
  if (process.env.NETLENS_BENCH_SNAPSHOT_DIR)
    process.stderr.write(
      `MEM snapshot ${v8.writeHeapSnapshot(path.join(process.env.NETLENS_BENCH_SNAPSHOT_DIR, `netlens-${process.pid}.heapsnapshot`))}\n`,
    );
});
ready({ port: proxy.address.port, ...(controlPort ? { controlPort } : {}) });
