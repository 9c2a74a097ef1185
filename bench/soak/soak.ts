/**
 * `npm run soak -- --requests 200000 [--concurrency 32] [--interval 5]` (not in CI).
 *
 * A long day in a few minutes: a recording, intercepting proxy in its own process
 * (proxy/test/reliability/recording-child.ts: startProxy + SessionStore recording,
 * as `netlens proxy --har` runs) under mixed load — plain HTTP/1.1, intercepted
 * HTTP/1.1 and HTTP/2, a third of them POSTs with bodies, response bodies from
 * 3 bytes to 32 KiB. Every few seconds it prints the proxy's RSS, heap, fds and
 * journaled entries. At the end it checks that:
 *   - every request was answered with the body the origin served;
 *   - the proxy's fds are back to their idle baseline (±5) within 10 s of the clients closing;
 *   - stopping the recording gives a HAR with exactly the served exchanges: same count,
 *     each request id once, request and response bodies byte for byte.
 * Exits 1 when a check fails.
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { intArg, scriptArgs } from '../lib/usage.js';
import { scanHarFile } from '../../proxy/src/har/stream-reader.js';
import { loadOrCreateCA } from '../../proxy/src/tls/ca.js';
import { KINDS, LoadClient, sha1, startOrigins, type Kind } from '../../proxy/test/reliability/load.js';

const USAGE = `Usage: npm run soak -- [--requests N] [--concurrency N] [--interval S] [--keep]

A long day in a few minutes: a recording, intercepting proxy in its own process under
mixed load, its RSS, heap, fds and journaled entries printed every few seconds; then
checks every answer, the fds back to idle and the HAR byte for byte. Exits 1 when a
check fails. Not part of npm test.

Flags:
  --requests N      requests to send (default 200000)
  --concurrency N   requests in flight (default 32)
  --interval S      seconds between resource samples (default 5)
  --keep            keep the data directory (HAR, journal) afterwards
  -h, --help        this help
`;
const { values } = scriptArgs(USAGE, {
  requests: { type: 'string' },
  concurrency: { type: 'string' },
  interval: { type: 'string' },
  keep: { type: 'boolean' },
});
const REQUESTS = intArg(values.requests, 200_000, '--requests', USAGE, 1, 100_000_000);
const CONCURRENCY = intArg(values.concurrency, 32, '--concurrency', USAGE, 1, 10_000);
const INTERVAL_MS = intArg(values.interval, 5, '--interval', USAGE, 1, 3600) * 1000;
const CHILD = path.resolve(import.meta.dirname, '../../proxy/test/reliability/recording-child.ts');

interface Stats {
  rss: number;
  heapUsed: number;
  external: number;
  fds: number;
  entries: number;
}
const MiB = (n: number) => (n / 2 ** 20).toFixed(0).padStart(4);
const failures: string[] = [];
const check = (ok: boolean, what: string) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
};

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-soak-'));
const ca = loadOrCreateCA(dataDir);
const origins = await startOrigins(ca);
const child = fork(CHILD, [dataDir], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const ready = await new Promise<{ port: number; pid: number; journal: string }>((resolve, reject) => {
  child.once('message', (m) => resolve(m as { port: number; pid: number; journal: string }));
  child.once('exit', (code) => reject(new Error(`proxy exited with ${code}`)));
});
const ask = <T>(what: 'stats' | 'stop', key: string): Promise<T> =>
  new Promise((resolve) => {
    const on = (m: Record<string, T>) => {
      if (!(key in m)) return;
      child.off('message', on);
      resolve(m[key]!);
    };
    child.on('message', on);
    child.send(what);
  });
const baseline = await ask<Stats>('stats', 'stats');
console.log(`soak: ${REQUESTS} requests, concurrency ${CONCURRENCY}, proxy pid ${ready.pid} (node ${process.version}), data ${dataDir}`);
console.log(`idle proxy: rss ${MiB(baseline.rss)} MiB, heap ${MiB(baseline.heapUsed)} MiB, fds ${baseline.fds}`);

const client = new LoadClient(ready.port, origins, ca.certPem);
let nextId = 1;
let done = 0;
const perKind: Record<Kind, number> = { 'plain-h1': 0, 'https-h1': 0, 'https-h2': 0 };
const bad: string[] = [];
const t0 = performance.now();
let lastDone = 0;
let lastAt = t0;
const trend: string[] = [];
const timer = setInterval(async () => {
  const s = await ask<Stats>('stats', 'stats');
  const now = performance.now();
  const rate = ((done - lastDone) / ((now - lastAt) / 1000)).toFixed(0);
  const line =
    `${((now - t0) / 1000).toFixed(0).padStart(5)} s ${String(done).padStart(7)} done ${rate.padStart(6)} req/s  ` +
    `rss ${MiB(s.rss)} MiB  heap ${MiB(s.heapUsed)} MiB  ext ${MiB(s.external)} MiB  fds ${String(s.fds).padStart(4)}  journaled ${s.entries}`;
  trend.push(line);
  console.log(line);
  lastDone = done;
  lastAt = now;
}, INTERVAL_MS);
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    for (let id = nextId++; id <= REQUESTS; id = nextId++) {
      const kind = KINDS[id % KINDS.length]!;
      const a = await client.send(id, kind);
      done++;
      perKind[kind]++;
      if (!a.ok && bad.length < 20) bad.push(`#${id} ${kind}: ${a.error}`);
      else if (!a.ok) bad.push('');
    }
  }),
);
clearInterval(timer);
const loadSeconds = (performance.now() - t0) / 1000;
const mix = KINDS.map((k) => `${k} ${perKind[k]}`).join(', ');
console.log(`load: ${done} requests in ${loadSeconds.toFixed(1)} s (${(done / loadSeconds).toFixed(0)} req/s): ${mix}`);
const firstBad = bad.length ? `: ${bad.filter(Boolean).slice(0, 5).join('; ')}` : '';
check(bad.length === 0, `every request answered with the served body (${bad.length} failed${firstBad})`);

await client.close();
let after = await ask<Stats>('stats', 'stats');
const fdDeadline = Date.now() + 10_000;
while (after.fds > baseline.fds + 5 && Date.now() < fdDeadline) {
  await new Promise((r) => setTimeout(r, 250));
  after = await ask<Stats>('stats', 'stats');
}
check(after.fds <= baseline.fds + 5, `proxy fds back to baseline after the clients closed: ${after.fds} (idle ${baseline.fds})`);
console.log(`after load: rss ${MiB(after.rss)} MiB, heap ${MiB(after.heapUsed)} MiB, journaled ${after.entries}`);

interface Stopped {
  proxyStopMs: number;
  recordingStopMs: number;
  entries: number;
  failed: number;
  harFile: string;
}
const stopped = await ask<Stopped>('stop', 'stopped');
console.log(
  `stop: proxy ${stopped.proxyStopMs.toFixed(0)} ms, recording (journal → HAR) ${stopped.recordingStopMs.toFixed(0)} ms ` +
    `for ${stopped.entries} entries; HAR ${MiB(fs.statSync(stopped.harFile).size)} MiB`,
);
check(stopped.failed === 0, `no entry failed to be recorded (${stopped.failed})`);

const seen = new Map<number, number>();
let mismatched = 0;
const scan = await scanHarFile(stopped.harFile, (e) => {
  const id = Number(e.request.headers.find((h) => h.name.toLowerCase() === 'x-soak-id')?.value);
  seen.set(id, (seen.get(id) ?? 0) + 1);
  const served = origins.served.byId.get(id);
  const same = served && served.response === sha1(e.response.content.text ?? '') && served.request === sha1(e.request.postData?.text ?? '');
  if (!same) mismatched++;
});
check(scan.errors.length === 0, `the HAR reads back without errors (${scan.errors.map((e) => e.message).join('; ')})`);
const servedCount = origins.served.byId.size;
check(
  scan.entries === servedCount && scan.entries === REQUESTS,
  `HAR entries ${scan.entries} = served ${servedCount} = requests ${REQUESTS}`,
);
check([...seen.values()].every((n) => n === 1) && seen.size === REQUESTS, `each request id exactly once (${seen.size} distinct)`);
check(mismatched === 0, `request and response bodies in the HAR are what was sent and served (${mismatched} differ)`);

await origins.close();
if (!values.keep) fs.rmSync(dataDir, { recursive: true, force: true });
console.log(failures.length ? `soak FAILED: ${failures.length} check(s)` : 'soak passed');
process.exit(failures.length ? 1 : 0);
