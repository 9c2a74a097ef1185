/**
 * `npx tsx bench/https-paired.ts [--rounds N] [--window MS] [--concurrency N] [--processes N] A B` — two intercepting Netlens
 * builds or configurations side by side under the intercepted HTTPS load of `npm run bench` (undici GETs of a
 * small JSON document through CONNECT), in alternating half-second windows from one warm client, two processes a
 * side started A B B A (bench/load/https-paired-client.ts, as the bench's paired rounds). Prints the median ratio B/A of proxy CPU per
 * request and of req/s with the rounds' range, and the ratio of the sums (all of B's CPU over its requests against
 * A's), which averages instead of picking the middle.
 *
 * Subjects: `netlens` (this tree, bundled, recording and the socket timeline on, as the app runs),
 * `recording-off` (no recorder, bodyCaptureLimit 0), `events-only` (bodies captured, events emitted to a subscriber
 * that drops them: what recording costs outside the recorder), `timeline-off`, `recorder-on` and `recorder-off` (one
 * process, its recorder started and stopped before each window; `recorder-events` and `recorder-tmpfs` the same
 * process with a subscriber that drops every event, or recording to /dev/shm; `recorder-timed` recording with its
 * own time summed), or `saved:NAME`, a bundle kept by
 * `npx tsx bench/h2-paired.ts --save NAME` from another tree (recording and timeline on), for comparing changes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadOrCreateCA } from '../proxy/src/tls/ca.js';
import { bundleBenchEntry, bundleNetlensPeer, savedBundlePath } from './lib/bundle.js';
import { pageShape } from './load/page-shape.js';
import { appPathsFor, setAppPaths } from '../proxy/src/app-paths.js';
import { startTestSiteProcess } from '../proxy/src/lab/site/site-process.js';
import { ROOT_DIR, startChild, tsArgs, type Child } from './lib/child.js';
import type { PeerInfo } from './lib/peer-types.js';
import { median } from './lib/stats.js';
import { exitOnHelp, intArg, usageError } from './lib/usage.js';
import { cpuPerReq, type PairedSubject, PAIRED_ROUNDS, PAIRED_WINDOW_MS, rps, runPairedClient } from './scenarios/paired-cost.js';

const USAGE = `Usage: npx tsx bench/https-paired.ts [--rounds N] [--window MS] [--concurrency N] [--processes N] A B

Two intercepting Netlens subjects under intercepted HTTPS GETs, measured in
alternating windows from one client; prints B/A of proxy CPU per request and of
req/s (median of the rounds with their range, and the ratio of the sums).

Subjects:
  netlens         this tree's Netlens, bundled, recording and timeline on
  recording-off   the same without a recorder (bodyCaptureLimit 0)
  events-only     bodies captured and every event emitted to a subscriber that drops it
  events-nobodies the same without bodies
  timeline-off    the same with the socket timeline off
  recorder-on, recorder-off
                  one recording process whose recorder is started and stopped before
                  each window (bodies captured either way, as in the app); give two of
                  these, or of:
  recorder-events   the same process with a subscriber that drops every event instead
  recorder-tmpfs    the same process recording to a journal in /dev/shm
  recorder-timed    the same process recording, its recorder's own time summed
                    (performance.now() around each event; printed at the end)
  saved:NAME      a bundle kept with "npx tsx bench/h2-paired.ts --save NAME"
  floor           the node:https minimal MITM (bench/peers/node-minimal-mitm.ts)

Options:
  --rounds N        rounds of one window per subject (default ${PAIRED_ROUNDS})
  --window MS       window length in ms (default ${PAIRED_WINDOW_MS})
  --concurrency N   client connections (default 16)
  --processes N     processes a side: 2 (default, started A B B A) or 1
  --raw FILE        also write every window (requests, errors, ms, CPU ns) as JSON
  --page            the lab's page shape over HTTP/1.1 instead of a small JSON document:
                    the built-in test site's 200 images in turn (small PNGs) with
                    Chromium's request headers, the site offering HTTP/1.1 only, as
                    the lab's proxy+h1+intercept cell has both legs
`;
exitOnHelp(USAGE);
// The test site (--page) runs as a lab child process, found through the app paths.
setAppPaths(appPathsFor({ root: ROOT_DIR }));

const { values, positionals } = parseArgs({
  options: {
    rounds: { type: 'string' },
    window: { type: 'string' },
    concurrency: { type: 'string' },
    processes: { type: 'string' },
    raw: { type: 'string' },
    page: { type: 'boolean', default: false },
  },
  allowPositionals: true,
});
if (positionals.length !== 2) usageError('give two subjects, A and B', USAGE);
const rounds = intArg(values.rounds, PAIRED_ROUNDS, '--rounds', USAGE, 1, 1000);
const windowMs = intArg(values.window, PAIRED_WINDOW_MS, '--window', USAGE, 50, 60_000);
const concurrency = intArg(values.concurrency, 16, '--concurrency', USAGE, 1, 256);
const processes = intArg(values.processes, 2, '--processes', USAGE, 1, 2);
const TOGGLE_STATES: Record<string, string> = {
  'recorder-on': 'on',
  'recorder-off': 'off',
  'recorder-events': 'events',
  'recorder-tmpfs': 'on-tmpfs',
  'recorder-timed': 'on-timed',
};
const toggled = (s: string) => Object.hasOwn(TOGGLE_STATES, s);
if (positionals.some(toggled) && !positionals.every(toggled)) usageError('recorder-* subjects go together (one process)', USAGE);
for (const s of positionals) {
  const known =
    toggled(s) ||
    (s.startsWith('saved:')
      ? fs.existsSync(savedBundlePath(s.slice(6)))
      : ['netlens', 'recording-off', 'events-only', 'events-nobodies', 'timeline-off', 'floor'].includes(s));
  if (!known)
    usageError(
      `unknown subject "${s}" (netlens, recording-off, events-only, events-nobodies, timeline-off, floor, two recorder-* subjects, saved:NAME kept with h2-paired.ts --save)`,
      USAGE,
    );
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-https-paired-'));
const children: Child<unknown>[] = [];
try {
  const ca = loadOrCreateCA(dataDir);
  const [ocmd, oargs] = tsArgs('servers/origin.ts', [dataDir]);
  const origin = await startChild<{ httpsPort: number }>('origin', ocmd, oargs);
  children.push(origin);
  // --page: the lab's built-in test site, HTTP/1.1 only (the lab's h1 cells run Netlens with HTTP/2 off on both legs).
  const site = values.page ? await startTestSiteProcess({ images: 200, latencyMs: 0, http2: false, dataDir }) : undefined;
  if (site) children.push({ kill: site.close } as unknown as Child<unknown>);
  let thisTree: Promise<string> | undefined;
  let floors = 0;
  const start = async (s: string) => {
    if (s === 'floor') {
      const floor = await bundleBenchEntry('peers/node-minimal-mitm.ts', `https-paired-floor-${++floors}`);
      // Its agent trusts the CA that signed the origins' certificates through Node's extra CA list.
      const child = await startChild<PeerInfo>(s, process.execPath, [floor, dataDir], { env: { NODE_EXTRA_CA_CERTS: ca.certPath } });
      children.push(child);
      return { name: s, child };
    }
    const bundle = s.startsWith('saved:') ? savedBundlePath(s.slice(6)) : await (thisTree ??= bundleNetlensPeer());
    const record = s === 'recording-off' ? '0' : s === 'events-only' ? 'events' : s === 'events-nobodies' ? 'events0' : '1';
    const timeline = s === 'timeline-off' ? '0' : '1';
    const child = await startChild<PeerInfo>(s, process.execPath, [bundle, dataDir, '1', record, timeline]);
    children.push(child);
    return { name: s, child };
  };
  // Two processes a side, started A B B A (load/https-paired-client.ts says why), or one each.
  const [A, B] = positionals as [string, string];
  let sides: [PairedSubject[], PairedSubject[]];
  let toggleControl: number | undefined;
  if (toggled(A) && toggled(B)) {
    // One process whose recorder is started and stopped before each window (bench/peers/netlens.ts `toggle`).
    const bundle = await (thisTree ??= bundleNetlensPeer());
    const child = await startChild<PeerInfo>('netlens', process.execPath, [bundle, dataDir, '1', 'toggle', '1']);
    children.push(child);
    toggleControl = child.info.controlPort;
    const state = (s: string) => ({
      name: s,
      child,
      before: `http://127.0.0.1:${child.info.controlPort}/recorder/${TOGGLE_STATES[s]}`,
    });
    sides = [[state(A)], [state(B)]];
  } else {
    sides = [[await start(A)], [await start(B)]];
    if (processes === 2) {
      sides[1].push(await start(B));
      sides[0].push(await start(A));
    }
  }
  const page = site ? pageShape(site.url) : undefined;
  const url = page?.url ?? `https://localhost:${origin.info.httpsPort}/small`;
  console.log(
    `${rounds} rounds of ${windowMs} ms windows, c=${concurrency}, ${processes} process(es) a side${page ? ', the page shape' : ''}: A = ${A}, B = ${B}`,
  );
  const windows = await runPairedClient(url, sides[0], sides[1], [ca.certPath], concurrency, rounds, windowMs, page);
  if (values.raw) fs.writeFileSync(values.raw, JSON.stringify(windows));
  const ok = windows.filter(([a, b]) => a && b && !a.errors && !b.errors && a.requests && b.requests);
  if (ok.length < windows.length) console.log(`${windows.length - ok.length} round(s) with errors or no requests left out`);
  if (!ok.length) throw new Error('no round completed without errors');
  const line = (label: string, xs: number[], sums: number) =>
    `${label} B/A: median ${median(xs).toFixed(3)} (rounds ${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}), sums ${sums.toFixed(3)}`;
  const sum = (i: 0 | 1, f: (w: (typeof ok)[0][0]) => number) => ok.reduce((s, r) => s + f(r[i]!), 0);
  const cpuSums = sum(1, (w) => w.cpuNs) / sum(1, (w) => w.requests) / (sum(0, (w) => w.cpuNs) / sum(0, (w) => w.requests));
  const rpsSums = sum(1, (w) => w.requests) / sum(1, (w) => w.ms) / (sum(0, (w) => w.requests) / sum(0, (w) => w.ms));
  console.log(
    line(
      'proxy CPU per request',
      ok.map(([a, b]) => cpuPerReq(b!) / cpuPerReq(a!)),
      cpuSums,
    ),
  );
  console.log(
    line(
      'req/s',
      ok.map(([a, b]) => rps(b!) / rps(a!)),
      rpsSums,
    ),
  );
  console.log(
    `A: ${(sum(0, (w) => w.cpuNs) / 1000 / sum(0, (w) => w.requests)).toFixed(1)} µs per request, B: ${(sum(1, (w) => w.cpuNs) / 1000 / sum(1, (w) => w.requests)).toFixed(1)} µs`,
  );
  if (positionals.includes('recorder-timed')) {
    const timed = (await (await fetch(`http://127.0.0.1:${toggleControl}/recorder/stats`)).json()) as { ms: number; exchanges: number };
    console.log(
      `recorder's own time in situ (recorder-timed windows and warm-up): ${((timed.ms * 1000) / timed.exchanges).toFixed(2)} µs per exchange over ${timed.exchanges} exchanges`,
    );
  }
} finally {
  for (const c of children.reverse()) await c.kill();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
