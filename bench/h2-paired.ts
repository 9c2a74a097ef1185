/**
 * `npx tsx bench/h2-paired.ts [--rounds N] [--seconds S] A B` — two HTTP/2 intercepting proxies side by side under
 * the lab's page shape (bench/load/h2-burst.ts: bursts of 200 image GETs with Chromium's headers over one HTTP/2
 * connection through the proxy's CONNECT), windows alternating A, B, B, A, … in one run.
 *
 * Why: a proxy's CPU per request drifts by ±15–25% between runs a minute apart on this machine, more than the
 * changes being decided (issue 17's HTTP/2 path). Two windows seconds apart drift far less, so each round gives one
 * ratio B/A and the median of the rounds is the answer, with their range beside it.
 *
 * A subject is `netlens` (this tree, bundled, recording and the socket timeline on, as the app runs), `netlens-bare`
 * (recording and timeline off), `netlens:R:T` (bench/peers/netlens.ts's record and timeline arguments), `recorder-on`,
 * `recorder-off`, `recorder-events`, `recorder-timed` (one process whose recorder is switched before each window:
 * two processes of one build differ by several percent here, as much as recording costs), `floor`
 * (bench/peers/node-minimal-h2-mitm.ts, bundled), or `saved:NAME`, a Netlens bundle kept by `--save NAME` from
 * another tree (dist/bench/netlens-peer-saved-NAME.mjs), for comparing code changes, or `peer:FILE`, any script
 * under bench/ that serves as the floor does (argv <dataDir>, READY with its port).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { appPathsFor, setAppPaths } from '../proxy/src/app-paths.js';
import { loadOrCreateCA } from '../proxy/src/tls/ca.js';
import { startTestSiteProcess } from '../proxy/src/lab/site/site-process.js';
import { bundleBenchEntry, bundleNetlensPeer, savedBundlePath } from './lib/bundle.js';
import { BENCH_DIR, ROOT_DIR, startChild, type Child } from './lib/child.js';
import { runH2Burst } from './load/run-h2-burst.js';
import { median } from './lib/stats.js';
import { exitOnHelp, intArg, usageError } from './lib/usage.js';

const USAGE = `Usage: npx tsx bench/h2-paired.ts [--rounds N] [--seconds S] A B
       npx tsx bench/h2-paired.ts --save NAME

Two HTTP/2 intercepting proxies under bursts of 200 image requests, measured in
alternating windows; prints the median ratio B/A of proxy CPU per request and of
the median request latency in a burst, with the rounds' range.

Subjects:
  netlens        this tree's Netlens, bundled, recording and timeline on
  netlens-bare   the same with recording and the socket timeline off
  netlens:R:T    this tree's Netlens with record=R (0, 1, events, events0) and timeline=T (0, 1),
                 as bench/peers/netlens.ts takes them (e.g. netlens:events:1: bodies captured and
                 events emitted to a subscriber that drops them, the recorder's cost left out)
  recorder-on, recorder-off, recorder-events, recorder-timed
                 one recording Netlens process (timeline on) whose recorder is started or
                 stopped, swapped for a subscriber that drops every event, or timed (its
                 own time summed and printed at the end), before each window: recording's
                 cost without two processes' difference
  floor          the node:http2 minimal MITM (bench/peers/node-minimal-h2-mitm.ts)
  saved:NAME     a Netlens bundle kept earlier with --save NAME
  peer:FILE      a script under bench/ started as the floor is (e.g. peer:peers/node-minimal-h2-mitm.ts)

Options:
  --rounds N     rounds of one window each (default 8)
  --seconds S    seconds per window (default 2)
  --save NAME    bundle this tree's Netlens as saved:NAME and exit
`;
exitOnHelp(USAGE);

const { values, positionals } = parseArgs({
  options: { rounds: { type: 'string' }, seconds: { type: 'string' }, save: { type: 'string' } },
  allowPositionals: true,
});

if (values.save !== undefined) {
  if (!/^[\w.-]+$/.test(values.save)) usageError(`--save takes a plain name (letters, digits, . _ -), got "${values.save}"`, USAGE);
  fs.copyFileSync(await bundleNetlensPeer(), savedBundlePath(values.save));
  console.log(`saved as saved:${values.save} (${savedBundlePath(values.save)})`);
  process.exit(0);
}
/** `netlens:R:T`: this tree's Netlens in one of bench/peers/netlens.ts's record and timeline states. */
const NETLENS_STATE = /^netlens:(0|1|events|events0):(0|1)$/;
/** One process for these subjects, its recorder switched through its control port (bench/peers/netlens.ts). */
const TOGGLE_STATES: Record<string, string> = {
  'recorder-on': 'on',
  'recorder-off': 'off',
  'recorder-events': 'events',
  'recorder-timed': 'on-timed',
};
const toggled = (s: string) => Object.hasOwn(TOGGLE_STATES, s);
if (positionals.length !== 2) usageError('give two subjects, A and B', USAGE);
const rounds = intArg(values.rounds, 8, '--rounds', USAGE, 1, 100);
const seconds = intArg(values.seconds, 2, '--seconds', USAGE, 1, 60);
for (const s of positionals) {
  const known = s.startsWith('saved:')
    ? fs.existsSync(savedBundlePath(s.slice(6)))
    : s.startsWith('peer:')
      ? fs.existsSync(path.join(BENCH_DIR, s.slice(5)))
      : ['netlens', 'netlens-bare', 'floor'].includes(s) || toggled(s) || NETLENS_STATE.test(s);
  if (!known)
    usageError(
      `unknown subject "${s}" (netlens, netlens-bare, netlens:R:T, recorder-*, floor, saved:NAME kept with --save, peer:FILE)`,
      USAGE,
    );
}
if (positionals.some(toggled) && !positionals.every(toggled)) usageError('recorder-* subjects go together (one process)', USAGE);

// The lab's test site runs from the source tree's lab children.
setAppPaths(appPathsFor({ root: ROOT_DIR }));
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-h2-paired-'));
const ca = loadOrCreateCA(dataDir);

let thisTree: Promise<string> | undefined;
let toggleProcess: Promise<Child<{ port: number; controlPort?: number }>> | undefined;
async function start(subject: string): Promise<Child<{ port: number; controlPort?: number }>> {
  if (toggled(subject)) {
    const bundle = await (thisTree ??= bundleNetlensPeer());
    return (toggleProcess ??= startChild<{ port: number; controlPort?: number }>(
      'recorder',
      process.execPath,
      [bundle, dataDir, '1', 'toggle', '1'],
      {
        env: { NODE_EXTRA_CA_CERTS: ca.certPath },
      },
    ));
  }
  if (subject === 'floor' || subject.startsWith('peer:')) {
    const file = subject === 'floor' ? 'peers/node-minimal-h2-mitm.ts' : subject.slice(5);
    const bundle = await bundleBenchEntry(file, `paired-peer-${proxies.length}`);
    return startChild<{ port: number }>(subject, process.execPath, [bundle, dataDir]);
  }
  // One bundle of this tree for both subjects when both are it (netlens and netlens-bare).
  const bundle = subject.startsWith('saved:') ? savedBundlePath(subject.slice(6)) : await (thisTree ??= bundleNetlensPeer());
  const state = NETLENS_STATE.exec(subject);
  const on = subject === 'netlens-bare' ? '0' : '1';
  const [record, timeline] = state ? [state[1]!, state[2]!] : [on, on];
  return startChild<{ port: number }>(subject, process.execPath, [bundle, dataDir, '1', record, timeline], {
    env: { NODE_EXTRA_CA_CERTS: ca.certPath },
  });
}

interface Window {
  cpuUsPerRequest: number;
  p50Ms: number;
  requests: number;
}

const proxies: Child<{ port: number; controlPort?: number }>[] = [];
let site: Awaited<ReturnType<typeof startTestSiteProcess>> | undefined;
try {
  // Started inside the try: a failure here must still remove the data directory.
  site = await startTestSiteProcess({ images: 200, latencyMs: 0, dataDir });
  const origin = site.url;
  for (const s of positionals) proxies.push(await start(s));
  const window = async (i: number, ms: number): Promise<Window> => {
    const proxy = proxies[i]!;
    const state = toggled(positionals[i]!) ? TOGGLE_STATES[positionals[i]!] : undefined;
    if (state) {
      const res = await fetch(`http://127.0.0.1:${proxy.info.controlPort}/recorder/${state}`, { method: 'POST' });
      if (!res.ok) throw new Error(`the recorder's control port refused "${state}": ${res.status} ${await res.text()}`);
    }
    const run = { origin, proxyPort: proxy.info.port, proxyPid: proxy.pid, caFiles: [ca.certPath], durationMs: ms };
    const { output, result: r } = await runH2Burst(run);
    if (!r) throw new Error(`h2-burst gave no result: ${output.trim().slice(-400)}`);
    return { cpuUsPerRequest: r.proxyCpuUsPerRequest, p50Ms: r.p50Ms, requests: r.requests };
  };
  // Warm-up: both proxies' code optimised by V8 before the first measured window (not measured).
  console.log(`warming up ${positionals.join(' and ')} …`);
  for (let i = 0; i < proxies.length; i++) await window(i, 3000);
  const ratios: { cpu: number; p50: number }[] = [];
  for (let r = 0; r < rounds; r++) {
    // Alternate which goes first, so drift within a round falls on both sides.
    const order = r % 2 === 0 ? [0, 1] : [1, 0];
    const got: Window[] = [];
    for (const i of order) got[i] = await window(i, seconds * 1000);
    const [a, b] = got as [Window, Window];
    ratios.push({ cpu: b.cpuUsPerRequest / a.cpuUsPerRequest, p50: b.p50Ms / a.p50Ms });
    console.log(
      `round ${r + 1}/${rounds}: CPU/request ${a.cpuUsPerRequest.toFixed(0)} vs ${b.cpuUsPerRequest.toFixed(0)} µs (${(b.cpuUsPerRequest / a.cpuUsPerRequest).toFixed(3)}), ` +
        `burst p50 ${a.p50Ms.toFixed(1)} vs ${b.p50Ms.toFixed(1)} ms, ${a.requests} / ${b.requests} requests`,
    );
  }
  const line = (label: string, xs: number[]) =>
    `${label} B/A: median ${median(xs).toFixed(3)} (rounds ${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)})`;
  console.log(`\nA = ${positionals[0]}, B = ${positionals[1]}, ${rounds} rounds of ${seconds} s windows`);
  console.log(
    line(
      'proxy CPU per request',
      ratios.map((x) => x.cpu),
    ),
  );
  console.log(
    line(
      'median request latency in a burst',
      ratios.map((x) => x.p50),
    ),
  );
  if (positionals.includes('recorder-timed')) {
    const control = proxies[positionals.indexOf('recorder-timed')]!.info.controlPort;
    const timed = (await (await fetch(`http://127.0.0.1:${control}/recorder/stats`)).json()) as { ms: number; exchanges: number };
    console.log(
      `recorder's own time in situ (recorder-timed windows and warm-up): ${((timed.ms * 1000) / timed.exchanges).toFixed(2)} µs per exchange over ${timed.exchanges} exchanges`,
    );
  }
} finally {
  for (const p of new Set(proxies)) await p.kill();
  await site?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
