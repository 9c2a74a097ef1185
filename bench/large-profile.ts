/**
 * Where the time of a large transfer goes (see USAGE): the bench's large-body transfers, interleaved, with each
 * process's CPU per transfer; with --floor the client leg's floor in the same rounds, so a gap between Netlens and the
 * floor is measured on the same machine minutes apart at most (issue 17's large bodies).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { scriptResult, startChild, tsArgs } from './lib/child.js';
import { bundleBenchEntry, bundleNetlensPeer } from './lib/bundle.js';
import { loadOrCreateCA } from '../proxy/src/tls/ca.js';
import { intArg, scriptArgs, usageError } from './lib/usage.js';

const USAGE = `Usage: npx tsx bench/large-profile.ts [flags]

The bench's large-body transfers (curl, direct and through the bundled recording
Netlens), interleaved, with each process's CPU per transfer (curl, proxy, origin),
the proxy's RSS, and the medians per condition. A profiling aid, not part of
npm run bench; it prints the proxy's pid first so perf or strace can attach.

Flags:
  --mib N          size of each transfer in MiB (default 256)
  --rounds N       rounds (default 3)
  --only LIST      transfers: up-http,up-https,down-http,down-https (default all)
  --h1             curl --http1.1 (the intercepted client leg over HTTP/1.1)
  --floor          also measure the bench's floor for that client leg in the same rounds:
                   the node:http2 minimal MITM (HTTP/1.1 upstream), with --h1 the node:https one
  --base FILE      also measure another Netlens bundle in the same rounds (A/B of a change)
  --pause S        wait S seconds after start and --age (to attach a profiler)
  --record 0|1     recording on the Netlens proxies (default 1)
  --timeline 0|1   the socket timeline on the Netlens proxies (default 1)
  --node-args STR  node/V8 flags for the proxies, space-separated
  --trace-file F   append the proxies' stdout (V8's --trace-gc lines, say) to F, each
                   line after its proxy's name, with a line where each transfer starts
  --age S          first send S seconds of small intercepted HTTPS GETs (16 at a time)
                   through each proxy, so the transfers meet a proxy that has served
                   traffic, as in npm run bench, not a fresh one
`;
const TRANSFERS = ['up-http', 'up-https', 'down-http', 'down-https'];

const { values } = scriptArgs(USAGE, {
  mib: { type: 'string', default: '256' },
  rounds: { type: 'string', default: '3' },
  only: { type: 'string', default: 'up-http,up-https,down-http,down-https' },
  h1: { type: 'boolean', default: false },
  pause: { type: 'string', default: '0' },
  record: { type: 'string', default: '1' },
  timeline: { type: 'string', default: '1' },
  'node-args': { type: 'string', default: '' },
  age: { type: 'string', default: '0' },
  'trace-file': { type: 'string' },
  /** A second Netlens bundle (e.g. the previous commit's) measured in the same rounds, for A/B. */
  base: { type: 'string' },
  /**
   * Measure the bench's floor for the client leg in the same rounds instead (as "base"): the node:http2 minimal MITM
   * with HTTP/1.1 upstream (curl's default HTTP/2 leg), or with --h1 the node:https minimal MITM.
   */
  floor: { type: 'boolean', default: false },
});
const bytes = intArg(values.mib, 256, '--mib', USAGE, 1, 65536) * 2 ** 20;
const rounds = intArg(values.rounds, 3, '--rounds', USAGE, 1, 1000);
const only = new Set(values.only!.split(','));
const unknown = [...only].filter((t) => !TRANSFERS.includes(t));
if (unknown.length) usageError(`--only takes ${TRANSFERS.join(',')} (got "${unknown.join(',')}")`, USAGE);
if (values.floor && values.base) usageError('--floor and --base each add a second proxy: give one of them', USAGE);
if (!['0', '1'].includes(values.record!)) usageError(`--record takes 0 or 1 (got "${values.record}")`, USAGE);
if (!['0', '1'].includes(values.timeline!)) usageError(`--timeline takes 0 or 1 (got "${values.timeline}")`, USAGE);
if (!/^\d+(\.\d+)?$/.test(values.pause!)) usageError(`--pause takes seconds (got "${values.pause}")`, USAGE);
const ageSeconds = intArg(values.age, 0, '--age', USAGE, 0, 3600);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nl-large-'));
const ca = loadOrCreateCA(dataDir);
const [ocmd, oargs] = tsArgs('servers/origin.ts', [dataDir]);
const origin = await startChild<{ httpPort: number; httpsPort: number }>('origin', ocmd, oargs);
const bundle = await bundleNetlensPeer();
const nodeArgs = values['node-args'] ? values['node-args'].split(' ') : [];
/** A Netlens bundle's command line (bench/peers/netlens.ts: intercepting, recording and timeline as the flags say). */
const netlensArgs = (file: string) => [...nodeArgs, file, dataDir, '1', values.record!, values.timeline!];
const proxy = await startChild<{ port: number }>('netlens', process.execPath, netlensArgs(bundle));
const floorArgs = async () =>
  values.h1
    ? [await bundleBenchEntry('peers/node-minimal-mitm.ts', 'node-floor'), dataDir]
    : [await bundleBenchEntry('peers/node-minimal-h2-mitm.ts', 'node-h2-floor'), dataDir, 'h1-upstream'];
const baseProxy = values.floor
  ? // The floors trust the origin through Node's extra CA list, as the bench starts them (bench/peers/index.ts).
    await startChild<{ port: number }>('floor', process.execPath, [...nodeArgs, ...(await floorArgs())], {
      env: { NODE_EXTRA_CA_CERTS: ca.certPath },
    })
  : values.base
    ? await startChild<{ port: number }>('netlens-base', process.execPath, netlensArgs(values.base))
    : undefined;
console.log(`proxy pid ${proxy.pid}, origin pid ${origin.pid}${baseProxy ? `, base pid ${baseProxy.pid}` : ''}`);
const proxies = baseProxy
  ? [
      { name: values.floor ? 'floor' : 'base', p: baseProxy },
      { name: 'new ', p: proxy },
    ]
  : [{ name: 'proxy', p: proxy }];
const traceFile = values['trace-file'];
if (traceFile) {
  for (const { name, p } of proxies) {
    let rest = '';
    p.proc.stdout!.on('data', (d: Buffer) => {
      const lines = (rest + d.toString()).split('\n');
      rest = lines.pop()!;
      if (lines.length) fs.appendFileSync(traceFile, lines.map((l) => `${name.trim()} ${l}\n`).join(''));
    });
  }
}
const cpuSum = new Map<string, number[]>();
const file = path.join(dataDir, 'up.bin');
const fd = fs.openSync(file, 'w');
const chunk = Buffer.alloc(1 << 20, 0x62);
for (let i = 0; i < bytes / chunk.length; i++) fs.writeSync(fd, chunk);
fs.closeSync(fd);

const ticks = (pid: number) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10; // ms at 100 Hz
};
const sysTicks = (pid: number) => Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[12]) * 10;
const rss = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

function curl(args: string[]): Promise<{ wall: number; cpu: number }> {
  return new Promise((resolve, reject) => {
    execFile(
      '/usr/bin/time',
      ['-f', 'TIME %U %S', 'curl', '-sS', '--fail', '-o', '/dev/null', '-w', '%{time_total}\n', ...args],
      (err, stdout, stderr) => {
        if (err) return reject(new Error(stderr));
        const m = /TIME ([\d.]+) ([\d.]+)/.exec(stderr)!;
        resolve({ wall: Number(stdout.trim()), cpu: Number(m[1]) + Number(m[2]) });
      },
    );
  });
}

if (ageSeconds > 0) {
  // The bench's own HTTPS load client (a process of its own), through each proxy in turn.
  for (const { name, p } of proxies) {
    if (traceFile) fs.appendFileSync(traceFile, `== age ${name.trim()}\n`);
    const aged = await scriptResult<{ requests: number }>(
      'load/https-client.ts',
      [
        JSON.stringify({
          url: `https://localhost:${origin.info.httpsPort}/small`,
          proxy: `http://127.0.0.1:${p.info.port}`,
          caFiles: [ca.certPath],
          concurrency: 16,
          durationMs: ageSeconds * 1000,
        }),
      ],
      'age',
      ageSeconds * 1000 + 30_000,
    );
    console.log(`aged ${name.trim()}: ${aged.requests} requests in ${ageSeconds} s, rss ${rss(p.pid).toFixed(0)} MiB`);
  }
}
if (Number(values.pause) > 0) await new Promise((r) => setTimeout(r, Number(values.pause) * 1000));
const results = new Map<string, number[]>();
let direct = 0;
for (let r = 0; r < rounds; r++) {
  for (const dir of ['up', 'down']) {
    for (const scheme of ['http', 'https']) {
      if (!only.has(`${dir}-${scheme}`)) continue;
      const order = r % 2 === 0 ? proxies : [...proxies].reverse();
      for (const via of [undefined, ...order]) {
        const base = scheme === 'http' ? `http://127.0.0.1:${origin.info.httpPort}` : `https://localhost:${origin.info.httpsPort}`;
        const args = dir === 'up' ? ['-X', 'POST', '-T', file, `${base}/upload`] : [`${base}/download?bytes=${bytes}`];
        if (scheme === 'https') args.push('--cacert', ca.certPath);
        if (values.h1) args.push('--http1.1');
        const pid = via?.p.pid ?? proxy.pid;
        if (via) args.push('-x', `http://127.0.0.1:${via.p.info.port}`);
        if (traceFile) fs.appendFileSync(traceFile, `== r${r + 1} ${dir}-${scheme} ${via ? via.name.trim() : 'direct'}\n`);
        const p0 = ticks(pid);
        const s0 = sysTicks(pid);
        const o0 = ticks(origin.pid);
        const rss0 = rss(pid);
        let peak = rss0;
        const poll = setInterval(() => (peak = Math.max(peak, rss(pid))), 20);
        const c = await curl(args);
        clearInterval(poll);
        const pcpu = ticks(pid) - p0;
        const psys = sysTicks(pid) - s0;
        const ocpu = ticks(origin.pid) - o0;
        const key = `${dir}-${scheme}`;
        if (!via) direct = c.wall;
        else {
          const k = `${key} ${via.name}`;
          (results.get(k) ?? results.set(k, []).get(k)!).push(direct / c.wall);
          (cpuSum.get(k) ?? cpuSum.set(k, []).get(k)!).push(pcpu / 1000, c.cpu);
        }
        console.log(
          `r${r + 1} ${key} ${via ? via.name : 'direct'} wall ${c.wall.toFixed(3)} s  curl cpu ${c.cpu.toFixed(2)}  ` +
            `origin cpu ${(ocpu / 1000).toFixed(2)}` +
            (via
              ? `  proxy cpu ${(pcpu / 1000).toFixed(2)} (sys ${(psys / 1000).toFixed(2)})  rss ${rss0.toFixed(0)}→${peak.toFixed(0)} MiB` +
                `  ratio ${(direct / c.wall).toFixed(2)}`
              : ''),
        );
      }
    }
  }
}
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
for (const [k, v] of results) {
  const c = cpuSum.get(k)!;
  const proxyCpu = c.filter((_, i) => i % 2 === 0);
  const curlCpu = c.filter((_, i) => i % 2 === 1);
  console.log(
    `${k}: ratios ${v.map((x) => x.toFixed(2)).join(' ')} (median ${med(v).toFixed(2)}); ` +
      `proxy cpu ${proxyCpu.map((x) => x.toFixed(2)).join(' ')} (median ${med(proxyCpu).toFixed(2)}); curl cpu median ${med(curlCpu).toFixed(2)}`,
  );
}
/** Resident MiB by kind of mapping: glibc's main arena ([heap]), other anonymous memory (V8's heap, thread arenas, mmapped chunks), files. */
function smaps(pid: number): string {
  const kinds = { brk: 0, anon: 0, file: 0 };
  let kind: keyof typeof kinds = 'anon';
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (head) kind = head[2] === '[heap]' ? 'brk' : head[1] !== '0' ? 'file' : 'anon';
    const m = /^Rss:\s+(\d+) kB/.exec(line);
    if (m) kinds[kind] += Number(m[1]) / 1024;
  }
  return Object.entries(kinds)
    .map(([k, v]) => `${k} ${v.toFixed(1)}`)
    .join(', ');
}
await new Promise((r) => setTimeout(r, 1000));
// The floors report no memory on SIGUSR2 (it would end them): Netlens bundles only.
const netlens = proxies.filter(({ name }) => name !== 'floor');
for (const { p } of netlens) {
  p.proc.stderr!.on('data', (d: Buffer) =>
    process.stdout.write(
      d
        .toString()
        .split('\n')
        .filter((l) => l.startsWith('MEM'))
        .map((l) => `  ${l}\n`)
        .join(''),
    ),
  );
  p.proc.kill('SIGUSR2');
}
await new Promise((r) => setTimeout(r, 500));
for (const { name, p } of netlens) console.log(`${name} RSS after: ${rss(p.pid).toFixed(1)} MiB (${smaps(p.pid)})`);
await baseProxy?.kill();
await proxy.kill();
await origin.kill();
fs.rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
