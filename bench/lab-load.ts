/**
 * `npx tsx bench/lab-load.ts [--h2 [--paced]] [--rounds N] [--images N] [--latency MS] [--connections N] [--quiet MS]
 * [--competitors N] SUBJECT...` — the lab's page load without the browser, HTTP/1.1 (or HTTP/2 with --h2): the lab's own proxy process (one per lab, a fresh proxy per load,
 * warmed up as the lab warms it) and test site (N images, MS of latency per response and per new connection), and
 * per load N fresh tunnels (one first, as a browser opens one for the page, then the rest) taking the page's paths
 * one after another from one queue with Chromium's headers (lab/warm-up.ts), then MS of quiet as the lab waits
 * after a load. With --h2, one tunnel a load by default (a browser's one HTTP/2 connection to a host) speaking
 * HTTP/2, its streams sent 100 at a time, or with --paced one per event-loop turn with at most 100 open, as Chromium
 * sends a page's requests (lab/warm-up.ts h2Requests). Subjects alternate load by load (the order reversed every other round); each load's proxy CPU is
 * read from /proc over the load and its quiet (main thread and whole process, ns), as the lab reads it.
 *
 * Why: in the lab, the proxy's main thread spends ~5× more CPU per request than under a steady load (`npx tsx
 * bench/https-paired.ts --page`): 204 requests a load come one at a time per connection with 20 ms between them,
 * on new connections, through a new proxy. This takes the browser's own CPU and its noise out of that regime and
 * says what each part of Netlens costs in it. `--competitors N` runs N processes at nice 10 that sweep 64 MiB of
 * memory while it measures: as the browser does in the lab, they take no CPU from the proxy (nice 0) but evict its
 * code and data from the caches between requests, which makes every request cost more.
 *
 * Subjects: `lab` (as the lab runs a cell: a journal recorded, the socket timeline on), `no-journal`, `no-timeline`,
 * `bare` (neither), `floor` (the node:https minimal MITM's path in bench/peers/node-minimal-h2-mitm.ts, long-running
 * as a lab `--via` proxy is; it closes its upstream connections when its last client connection closes).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type net from 'node:net';
import { cliEntry } from '../bin/cli-entry.js';
import { appPathsFor, setAppPaths } from '../proxy/src/app-paths.js';
import { cpuUse, sampleProcess } from '../proxy/src/lab/cpu-use.js';
import { startProxyHost, type ProxyRunOptions } from '../proxy/src/lab/proxy-process.js';
import { startTestSiteProcess } from '../proxy/src/lab/site/site-process.js';
import { h1Requests, h2Requests, pagePaths, tunnel, warmUpProxy } from '../proxy/src/lab/warm-up.js';
import { loadOrCreateCA } from '../proxy/src/tls/ca.js';
import { bundleBenchEntry } from './lib/bundle.js';
import { ROOT_DIR, startChild } from './lib/child.js';
import type { PeerInfo } from './lib/peer-types.js';
import { median } from './lib/stats.js';
import { intArg, scriptArgs, usageError } from './lib/usage.js';

const SUBJECTS = ['lab', 'no-journal', 'no-timeline', 'bare', 'floor'] as const;
type Subject = (typeof SUBJECTS)[number];

const USAGE = `Usage: npx tsx bench/lab-load.ts [--h2 [--paced]] [--rounds N] [--images N] [--latency MS] [--connections N]
                                    [--quiet MS] [--competitors N] SUBJECT...

The lab's page load without the browser: the lab's proxy process and test
site, N fresh tunnels a load taking the page's paths from one queue; the
subjects alternate load by load; prints each one's proxy CPU per load (main
thread and process, median) and its ratio to the first subject's, round by round.

Subjects:
  lab           a fresh proxy per load recording a journal, socket timeline on (a lab cell)
  no-journal    the same without recording
  no-timeline   recording, the socket timeline off
  bare          neither
  floor         the node:https minimal MITM, long-running (a lab --via proxy)

Options:
  --h2              load the page over HTTP/2 (the proxy, the site and the floor speaking it)
  --paced           with --h2: send the requests as Chromium does, one per write with at most
                    100 open, the next as one ends (default: 100 at once, then the next 100)
  --rounds N        loads per subject (default 16)
  --images N        images on the page (default 200)
  --latency MS      added per response and per new connection (default 20)
  --connections N   tunnels per load (default 6, Chromium's per host on HTTP/1.1; 1 with --h2)
  --quiet MS        idle time after each load, inside its CPU window (default 500, the lab's)
  --competitors N   processes at nice 10 sweeping 64 MiB of memory meanwhile (default 0), evicting
                    the proxy's code and data from the caches as the lab's browser does
`;

const { values, positionals } = scriptArgs(
  USAGE,
  {
    rounds: { type: 'string' },
    images: { type: 'string' },
    latency: { type: 'string' },
    connections: { type: 'string' },
    h2: { type: 'boolean' },
    paced: { type: 'boolean' },
    quiet: { type: 'string' },
    competitors: { type: 'string' },
  },
  SUBJECTS.length,
);
const rounds = intArg(values.rounds, 16, '--rounds', USAGE, 1, 1000);
const images = intArg(values.images, 200, '--images', USAGE, 1, 5000);
const latencyMs = intArg(values.latency, 20, '--latency', USAGE, 0, 1000);
const h2 = values.h2 === true;
const paced = values.paced === true;
if (paced && !h2) usageError('--paced paces HTTP/2 streams: give --h2 too', USAGE);
const alpn = h2 ? 'h2' : 'http/1.1';
const connections = intArg(values.connections, h2 ? 1 : 6, '--connections', USAGE, 1, 64);
const quietMs = intArg(values.quiet, 500, '--quiet', USAGE, 0, 10_000);
const competitors = intArg(values.competitors, 0, '--competitors', USAGE, 0, 8);
if (positionals.length === 0) usageError('give at least one subject', USAGE);
for (const s of positionals) if (!(SUBJECTS as readonly string[]).includes(s)) usageError(`unknown subject "${s}"`, USAGE);
const subjects = positionals as Subject[];

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-lab-load-'));
// Removed however the script ends (a failed load included), as are the competitors below.
process.once('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }));
// The proxy process runs the CLI's bundle, as the lab shipped runs it, when the bundle is fresh (bin/cli-entry.js's
// rule); else the sources under tsx, said so. Not built here: a build would race the tests that build it too.
const bundled = cliEntry(ROOT_DIR).kind === 'bundle';
setAppPaths(appPathsFor({ root: ROOT_DIR, ...(bundled ? { bundleDir: path.join(ROOT_DIR, 'dist', 'cli') } : {}) }));
if (!bundled) console.log('The CLI bundle is missing or older than the sources: the proxy runs them under tsx (npm run build:cli first).');
const ca = loadOrCreateCA(dataDir);
const site = await startTestSiteProcess({ dataDir, images, latencyMs });
const host = await startProxyHost();
const floor = subjects.includes('floor')
  ? await startChild<PeerInfo>('floor', process.execPath, [
      await bundleBenchEntry('peers/node-minimal-h2-mitm.ts', 'lab-load-floor'),
      dataDir,
    ])
  : undefined;

const settings = (timeline: boolean): ProxyRunOptions['proxy'] => ({
  port: 0,
  intercept: true,
  http2: h2,
  dataDir,
  upstreamCA: [ca.certPem],
  ...(timeline ? {} : { timeline: false }),
});
await warmUpProxy(host, { siteUrl: site.url, images, ca: [ca.certPem], settings: [settings(true), settings(false)] });

/** One page load through `proxyUrl`: its tunnels, one first and then the rest, sharing one queue of paths. */
async function load(proxyUrl: string): Promise<number> {
  const target = new URL(site.url);
  const sockets = new Set<net.Socket>();
  const queue = pagePaths(images);
  const started = performance.now();
  try {
    const first = await tunnel(proxyUrl, target, alpn, [ca.certPem], sockets);
    const rest = await Promise.all(Array.from({ length: connections - 1 }, () => tunnel(proxyUrl, target, alpn, [ca.certPem], sockets)));
    await Promise.all(
      [first, ...rest].map((s) => (s.alpnProtocol === 'h2' ? h2Requests(s, target, queue, { paced }) : h1Requests(s, target, queue))),
    );
    return performance.now() - started;
  } finally {
    for (const s of sockets) s.destroy();
  }
}

interface Reading {
  mainMs: number;
  processMs: number;
  loadMs: number;
}

async function measure(subject: Subject, round: number): Promise<Reading> {
  const pid = subject === 'floor' ? floor!.pid : host.pid;
  const run =
    subject === 'floor'
      ? undefined
      : await host.startRun({
          proxy: settings(subject !== 'no-timeline' && subject !== 'bare'),
          ...(subject === 'lab' || subject === 'no-timeline'
            ? { journal: { file: path.join(dataDir, `${subject}-${round}.journal`), name: `lab-load ${subject}` } }
            : {}),
        });
  // The lab's own reading of a run's CPU (lab/cpu-use.ts).
  const before = sampleProcess(pid);
  const loadMs = await load(run ? run.url : `http://127.0.0.1:${floor!.info.port}`);
  await new Promise((r) => setTimeout(r, quietMs));
  const use = cpuUse(before, sampleProcess(pid));
  if (use?.mainThreadCpuMs === undefined) throw new Error(`no CPU reading for process ${pid} (Linux's /proc is needed)`);
  const reading = { mainMs: use.mainThreadCpuMs, processMs: use.cpuMs, loadMs };
  await run?.stop();
  return reading;
}

// A sweep of 64 MiB, one cache line at a time, forever: the competitors' whole job (killed by PID below).
const SWEEP = 'const a = new Uint8Array(64 << 20); for (;;) for (let i = 0; i < a.length; i += 64) a[i]++;';
const hogs = Array.from({ length: competitors }, () => spawn('nice', ['-n', '10', process.execPath, '-e', SWEEP], { stdio: 'ignore' }));
process.once('exit', () => hogs.forEach((h) => h.kill('SIGKILL')));

const readings = new Map<Subject, Reading[]>(subjects.map((s) => [s, []]));
console.log(
  `${h2 ? (paced ? 'HTTP/2 paced' : 'HTTP/2') : 'HTTP/1.1'}, ${rounds} rounds, ${images} images, ${latencyMs} ms latency, ${connections} tunnels a load, ${quietMs} ms quiet, ${competitors} competitors`,
);
for (let round = 0; round < rounds; round++) {
  const order = round % 2 ? [...subjects].reverse() : subjects;
  for (const s of order) readings.get(s)!.push(await measure(s, round));
}

const base = readings.get(subjects[0])!;
const ratio = (xs: Reading[], k: keyof Reading) => median(xs.map((x, i) => x[k] / base[i]![k]));
console.log('subject       main thread ms/load  process ms/load  load ms   (ratios to the first subject: median of rounds)');
for (const s of subjects) {
  const xs = readings.get(s)!;
  const m = (k: keyof Reading) => median(xs.map((x) => x[k])).toFixed(1);
  console.log(
    `${s.padEnd(13)} ${m('mainMs').padStart(8)} (${ratio(xs, 'mainMs').toFixed(2)}×)  ${m('processMs').padStart(8)} (${ratio(xs, 'processMs').toFixed(2)}×)  ${m('loadMs').padStart(7)} (${ratio(xs, 'loadMs').toFixed(3)}×)`,
  );
}
for (const h of hogs) h.kill('SIGKILL');
await floor?.kill();
await host.close();
await site.close();
