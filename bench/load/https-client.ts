/**
 * Load generator for HTTPS through a proxy (its own process): `c` workers
 * loop GETs over keep-alive connections for a fixed time, directly (undici
 * Agent) or via CONNECT (undici ProxyAgent). Warm-up first (every connection
 * opened, TLS done), then the measured window, during which it also reads the
 * proxy's CPU time from /proc so handshakes are not counted.
 * argv: one JSON object, see Config. Prints `RESULT {json}`.
 */
import fs from 'node:fs';
import { procCpuMs } from '../lib/proc.js';
import { Agent, ProxyAgent, request, type Dispatcher } from 'undici';
import { targetCycle } from './page-shape.js';
import { exitOnHelp } from '../lib/usage.js';

exitOnHelp(`Usage: npx tsx bench/load/https-client.ts <config JSON>

A child process of "npm run bench", started and killed by it; it prints READY (or RESULT) JSON on stdout.
Run "npm run bench -- --help" for the benchmark itself.
`);

interface Config {
  url: string;
  proxy?: string;
  proxyPid?: number;
  caFiles: string[];
  concurrency: number;
  durationMs: number;
  /** The lab's page shape (bench/profile.ts page): these paths of `url`'s origin in turn, each with `headers`. */
  paths?: string[];
  headers?: Record<string, string>;
}

const cfg = JSON.parse(process.argv[2]!) as Config;
const ca = cfg.caFiles.map((f) => fs.readFileSync(f, 'utf8'));
const dispatcher: Dispatcher = cfg.proxy
  ? new ProxyAgent({ uri: cfg.proxy, connections: cfg.concurrency, requestTls: { ca } })
  : new Agent({ connections: cfg.concurrency, connect: { ca } });

const nextTarget = targetCycle(cfg.url, cfg.paths);
const cpuMs = (pid?: number) => (pid ? procCpuMs(pid) : 0);

async function once(): Promise<void> {
  const res = await request(nextTarget(), { dispatcher, headers: cfg.headers });
  await res.body.dump({ limit: 1 << 20 });
  if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
}

// Warm-up: every worker opens its connection and makes a few requests.
const warmUntil = performance.now() + Math.min(1000, cfg.durationMs / 3);
await Promise.all(
  Array.from({ length: cfg.concurrency }, async () => {
    do await once();
    while (performance.now() < warmUntil);
  }),
);

const latencies: number[] = [];
let errors = 0;
const cpu0 = cpuMs(cfg.proxyPid);
const t0 = performance.now();
const end = t0 + cfg.durationMs;
await Promise.all(
  Array.from({ length: cfg.concurrency }, async () => {
    while (performance.now() < end) {
      const s = performance.now();
      try {
        await once();
        latencies.push(performance.now() - s);
      } catch {
        errors++;
      }
    }
  }),
);
const elapsed = performance.now() - t0;
const cpu1 = cpuMs(cfg.proxyPid);
latencies.sort((a, b) => a - b);
const pct = (p: number) =>
  latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]! * 1000 : NaN;
const result = {
  requests: latencies.length,
  errors,
  rps: latencies.length / (elapsed / 1000),
  p50us: pct(50),
  p99us: pct(99),
  proxyCpuMs: cpu1 - cpu0,
};
process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
await dispatcher.close().catch(() => {});
process.exit(0);
