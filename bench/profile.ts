/**
 * `npx tsx bench/profile.ts [https|plain|h2] [seconds]` — runs the recording,
 * intercepting Netlens (bundled, as it ships) under `node --cpu-prof`, drives it with the bench's own
 * load (undici via CONNECT at c=16, wrk GET c=64, or h2: bursts of 200 image
 * GETs on one HTTP/2 connection to the lab's test site), and prints the functions
 * with the most self time, by file:function, plus the .cpuprofile path (open it
 * in Chrome DevTools or speedscope for a flame graph).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { appPathsFor, setAppPaths } from '../proxy/src/app-paths.js';
import { loadOrCreateCA } from '../proxy/src/tls/ca.js';
import { BENCH_DIR, ROOT_DIR, startChild, tsArgs } from './lib/child.js';
import { runWrk } from './load/wrk.js';
import { runH2Burst } from './load/run-h2-burst.js';
import { pageShape } from './load/page-shape.js';
import { bundleNetlensPeer } from './lib/bundle.js';
import { startTestSiteProcess } from '../proxy/src/lab/site/site-process.js';
import { exitOnHelp, intArg, usageError } from './lib/usage.js';
import { chargeAllocations, chargeToNearest, type AllocNode, summarizeGc, type CpuProfile, type GcStat } from './lib/profile-breakdown.js';

const USAGE = `Usage: npx tsx bench/profile.ts [https|plain|h2|page] [seconds] [minimal]

Runs the recording, intercepting Netlens (bundled) under node --cpu-prof, drives it
with the bench's load and prints the functions with the most self time, plus the
.cpuprofile path (open it in Chrome DevTools or speedscope). Then, per request: the
busy time charged to the nearest Netlens function on the stack (Node's work to the
Netlens function that asked for it), and what each garbage collection found and kept
(V8's heap statistics before and after it).

Arguments:
  https | plain | h2 | page
                       load: undici via CONNECT c=16 (default), wrk GET c=64, bursts of
                       200 image GETs on one HTTP/2 connection, or the lab's page shape
                       over HTTP/1.1 (undici via CONNECT c=16, the test site's 200 images
                       in turn with Chromium's request headers, the site HTTP/1.1 only)
  seconds              how long to drive the load (default 8)
  minimal              profile the minimal node:http proxy instead of Netlens

Environment:
  NETLENS_PROFILE_RECORD=0   profile Netlens without recording
  NETLENS_PROFILE_NODE_ARGS='--flag …' extra node/V8 flags for the profiled process
  NETLENS_PROFILE_ALLOC=1    also sample allocations (V8's sampling heap profiler): KB allocated per request by the
                             nearest Netlens (or floor) function; the sampling adds CPU of its own
  NETLENS_PROFILE_ALLOC=survivors  the same for objects that outlived a scavenge only (those the young
                             generation's collections copy or promote): where what a scavenge keeps is made
  NETLENS_PROFILE_BARE_HEADERS=1  h2: send only :path instead of Chromium's request headers
  NETLENS_PROFILE_PAGE_H2=1  page: the test site offers HTTP/2 too, so Netlens's upstream leg speaks it (what it
                             does for an HTTP/1.1 client of such an origin; the floor stays on HTTP/1.1)
  NETLENS_PROFILE_TIMELINE=0 profile Netlens with the socket timeline off (its cost: run both, interleaved)
  NETLENS_PROFILE_CONCURRENCY=N  https: N keep-alive connections instead of 16 (1: each exchange alone, as in a page load)
  NETLENS_PROFILE_TOP=N      how many functions the per-request list shows (default 30)
`;
exitOnHelp(USAGE);
// Entry point: the test site runs as a lab child process, found through the app paths.
setAppPaths(appPathsFor({ root: ROOT_DIR }));
const argv = process.argv.slice(2);
if (argv.length > 3 || argv.some((a) => a.startsWith('-'))) usageError(`unexpected arguments: ${argv.join(' ')}`, USAGE);
if (argv[0] !== undefined && !['https', 'plain', 'h2', 'page'].includes(argv[0]))
  usageError(`the load is https, plain, h2 or page (got "${argv[0]}")`, USAGE);
if (argv[2] !== undefined && argv[2] !== 'minimal') usageError(`the third argument can only be "minimal" (got "${argv[2]}")`, USAGE);
const mode = argv[0] === 'plain' || argv[0] === 'h2' || argv[0] === 'page' ? argv[0] : 'https';
const seconds = intArg(argv[1], 8, 'seconds', USAGE, 1, 3600);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-prof-'));
const profDir = path.join(os.tmpdir(), `netlens-cpuprof-${Date.now()}`);
const gcFile = path.join(profDir, 'gc.json');
// Allocation sampling (alloc-profile-preload.mjs) costs CPU of its own: only when asked, and read its CPU figures with that in mind.
const allocMode = process.env.NETLENS_PROFILE_ALLOC;
const allocFile = allocMode === '1' || allocMode === 'survivors' ? path.join(profDir, 'alloc.json') : undefined;
fs.mkdirSync(profDir, { recursive: true });
const ca = loadOrCreateCA(dataDir);
const [ocmd, oargs] = tsArgs('servers/origin.ts', [dataDir]);
const origin = await startChild<{ httpPort: number; httpsPort: number }>('origin', ocmd, oargs);
// `minimal` as the third argument profiles the floor instead: bench/peers/node-minimal-mitm.ts, or node-minimal-h2-mitm.ts for h2.
const floor = mode === 'h2' ? 'peers/node-minimal-h2-mitm.ts' : 'peers/node-minimal-mitm.ts';
const subject =
  process.argv[4] === 'minimal'
    ? [path.join(BENCH_DIR, floor), dataDir]
    : [await bundleNetlensPeer(), dataDir, '1', process.env.NETLENS_PROFILE_RECORD ?? '1', process.env.NETLENS_PROFILE_TIMELINE ?? '1'];
const proxy = await startChild<{ port: number }>(
  'netlens',
  process.execPath,
  [
    '--cpu-prof',
    `--cpu-prof-dir=${profDir}`,
    '--import',
    path.join(BENCH_DIR, 'lib', 'gc-profile-preload.mjs'),
    ...(allocFile ? ['--import', path.join(BENCH_DIR, 'lib', 'alloc-profile-preload.mjs')] : []),
    ...(process.env.NETLENS_PROFILE_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    ...(process.argv[4] === 'minimal' ? ['--import', 'tsx'] : []),
    ...subject,
  ],
  {
    env: {
      NODE_EXTRA_CA_CERTS: ca.certPath,
      NETLENS_GC_PROFILE_FILE: gcFile,
      ...(allocFile ? { NETLENS_ALLOC_PROFILE_FILE: allocFile } : {}),
      ...(allocMode === 'survivors' ? { NETLENS_ALLOC_PROFILE_SURVIVORS: '1' } : {}),
    },
  },
);
/** Requests the load completed (from its RESULT line, or wrk's count), for the per-request readings. */
let requests: number | undefined;
try {
  if (mode === 'h2') {
    // The lab's page shape: HTTP/2 on both legs, bursts of 200 small images from the test site.
    const site = await startTestSiteProcess({ images: 200, latencyMs: 0, dataDir });
    try {
      const { output, result } = await runH2Burst({
        origin: site.url,
        proxyPort: proxy.info.port,
        proxyPid: proxy.pid,
        caFiles: [ca.certPath],
        durationMs: seconds * 1000,
        bareHeaders: process.env.NETLENS_PROFILE_BARE_HEADERS === '1',
      });
      console.log(output.trim());
      requests = result?.requests ?? 0;
    } finally {
      await site.close();
    }
  } else if (mode === 'plain') {
    const r = await runWrk({
      originPort: origin.info.httpPort,
      proxyPort: proxy.info.port,
      method: 'GET',
      path: '/small',
      connections: 64,
      durationS: seconds,
    });
    console.log(`wrk GET c=64: ${Math.round(r.rps)} req/s`);
    requests = r.requests;
  } else {
    // page: the lab's HTTP/1.1 cells' shape (load/page-shape.ts).
    const site =
      mode === 'page'
        ? await startTestSiteProcess({ images: 200, latencyMs: 0, http2: process.env.NETLENS_PROFILE_PAGE_H2 === '1', dataDir })
        : undefined;
    const page = site ? pageShape(site.url) : undefined;
    const cfg = {
      url: `https://localhost:${origin.info.httpsPort}/small`,
      ...page,
      proxy: `http://127.0.0.1:${proxy.info.port}`,
      proxyPid: proxy.pid,
      caFiles: [ca.certPath],
      concurrency: Number(process.env.NETLENS_PROFILE_CONCURRENCY) || 16,
      durationMs: seconds * 1000,
    };
    const [cmd, args] = tsArgs('load/https-client.ts', [JSON.stringify(cfg)]);
    const out = await new Promise<string>((resolve) =>
      execFile(cmd, args, { cwd: ROOT_DIR, timeout: seconds * 1000 + 30_000 }, (_e, stdout) => resolve(stdout)),
    );
    await site?.close();
    console.log(out.trim());
    requests = resultRequests(out);
  }
} finally {
  await proxy.kill(); // SIGTERM → process.exit(0) → the profile is written
  await origin.kill();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
function resultRequests(out: string): number {
  return Number(/"requests":(\d+)/.exec(out)?.[1] ?? 0);
}

// The main thread's profile (under tsx, the loader thread writes one too: the larger file is the main thread's).
const file = fs
  .readdirSync(profDir)
  .filter((f) => f.endsWith('.cpuprofile'))
  .map((f) => path.join(profDir, f))
  .sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
if (!file) throw new Error('no profile written');
const prof = JSON.parse(fs.readFileSync(file, 'utf8')) as { nodes: Node[] };
const self = new Map<string, number>();
let total = 0;
for (const n of prof.nodes) {
  const hits = n.hitCount ?? 0;
  total += hits;
  const url = n.callFrame.url.replace(`file://${ROOT_DIR}/`, '').replace(/^node:/, 'node:');
  const k = `${url || '(native)'}:${n.callFrame.lineNumber + 1} ${n.callFrame.functionName || '(anonymous)'}`;
  self.set(k, (self.get(k) ?? 0) + hits);
}
// Inclusive time of our own functions (and the Node entry points they call): where a request's CPU goes.
const parent = new Map<number, Node>();
const byId = new Map<number, Node>();
for (const n of prof.nodes) {
  byId.set(n.id, n);
  for (const c of n.children ?? []) parent.set(c, n);
}
const keyOf = (n: Node) =>
  `${n.callFrame.url.replace(`file://${ROOT_DIR}/`, '') || '(native)'} ${n.callFrame.functionName || '(anonymous)'}`;
const incl = new Map<string, number>();
for (const n of prof.nodes) {
  const hits = n.hitCount ?? 0;
  if (!hits) continue;
  const seen = new Set<string>();
  for (let a: Node | undefined = n; a; a = parent.get(a.id)) seen.add(keyOf(a));
  for (const k of seen) incl.set(k, (incl.get(k) ?? 0) + hits);
}
const byFile = new Map<string, number>();
for (const [k, v] of self) {
  const f = k.split(':')[0]!.replace(/node_modules\/([^/]+).*/, 'node_modules/$1');
  byFile.set(f, (byFile.get(f) ?? 0) + v);
}
const pct = (v: number) => `${((100 * v) / total).toFixed(1)}%`.padStart(6);
console.log(`\nprofile: ${file}\n\ntop self time by function:`);
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${pct(v)}  ${k}`);
console.log('\nself time by file / module:');
for (const [k, v] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`${pct(v)}  ${k}`);
console.log('\ninclusive time, Netlens (the bundled peer, or proxy/src under tsx) and node:internal entry points:');
for (const [k, v] of [...incl]
  .filter(([k]) => k.startsWith('proxy/src') || k.includes('netlens-peer-') || /^node:(_http|https|_tls|tls|net|internal\/stream)/.test(k))
  .sort((a, b) => b[1] - a[1])
  .slice(0, 40))
  console.log(`${pct(v)}  ${k}`);

if (requests) {
  // The bundled Netlens (dist/bench/netlens-peer-*.mjs), or a floor's own code (bench/peers, bench/lib) under tsx.
  const ours = (url: string) => url.includes('/bench/') || url.includes('/proxy/src/');
  const { busy, by } = chargeToNearest(prof as CpuProfile, requests, ours);
  console.log(
    `\nper request (${requests} requests): ${busy.toFixed(1)} µs busy, charged to the nearest Netlens (or floor) function on the stack:`,
  );
  for (const [k, us] of by.slice(0, Number(process.env.NETLENS_PROFILE_TOP ?? 30))) console.log(`${us.toFixed(2).padStart(8)} µs  ${k}`);
  const gc = fs.existsSync(gcFile) ? summarizeGc(JSON.parse(fs.readFileSync(gcFile, 'utf8')) as GcStat[]) : [];
  if (gc.length) console.log('\ngarbage collections (v8.GCProfiler):');
  for (const g of gc) {
    const kept = g.copiedMB + g.promotedMB;
    const perReq = g.count > 0 ? (kept * 2 ** 10 * g.count) / requests : 0;
    console.log(
      `  ${g.type}: ${g.count} taking ${g.ms.toFixed(0)} ms (${((g.ms * 1000) / requests).toFixed(1)} µs per request)` +
        (g.type === 'Scavenge'
          ? `; each found ${g.youngBeforeMB.toFixed(1)} MB young and kept ${kept.toFixed(2)} MB (${g.copiedMB.toFixed(2)} copied, ${g.promotedMB.toFixed(2)} promoted): ${perReq.toFixed(1)} KB per request`
          : ''),
    );
  }
}
if (allocFile && requests) {
  if (!fs.existsSync(allocFile)) console.log('\nallocations: no sampling profile written');
  else {
    const ours = (url: string) => url.includes('/bench/') || url.includes('/proxy/src/');
    const head = (JSON.parse(fs.readFileSync(allocFile, 'utf8')) as { head: AllocNode }).head;
    const { total, by } = chargeAllocations(head, requests, ours);
    console.log(
      allocMode === 'survivors'
        ? `\noutlived a scavenge, per request (sampled): ${total.toFixed(1)} KB, by the nearest Netlens (or floor) function:`
        : `\nallocated per request (sampled, freed objects included): ${total.toFixed(1)} KB, by the nearest Netlens (or floor) function:`,
    );
    for (const [k, kb] of by.slice(0, 30)) console.log(`${kb.toFixed(2).padStart(8)} KB  ${k}`);
  }
}
