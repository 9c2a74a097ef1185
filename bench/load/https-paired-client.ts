/**
 * Load generator for paired rounds (bench/scenarios/paired-cost.ts), its own process: HTTPS GETs through two
 * proxies in turn, `rounds` rounds of one short window each (A then B, B then A, …), with both proxies' keep-alive
 * connections open throughout. Each window reads its proxy's CPU (every thread's run time from
 * /proc/<pid>/task/<tid>/schedstat, nanoseconds) over the window and counts the requests that finished in it.
 *
 * Why two processes per side: in A/A runs (the same build twice, 40 rounds each, 2026-11-27) the process started
 * second cost 1.8–5.6% more CPU per request than the first in four runs of four, and 0.4–5.3% less with the roles
 * swapped in three of three, pinned to cores or not: something of a process's own, not of its code, that no number
 * of rounds averages away. Sides started A B B A, rounds alternating between the two pairs, balance it in part
 * (A/A so: 0.981× and 0.985×); where both sides can be one process (recording on and off, `before` below), they are.
 *
 * Why one client and short windows: a proxy's CPU per request on this shared machine drifts by ±20% within
 * seconds (8 rounds of 2 s windows, each from a fresh client process, ranged 0.75–1.52× for the same pair of
 * proxies in one run, 2026-11-27). Windows of half a second, back to back from one warm client, put both
 * conditions of a round within a second of each other, and many of them make the median of the rounds' ratios
 * hold still; a 10 ms CPU clock (/proc/<pid>/stat) would be too coarse for such windows.
 * argv: one JSON object, see Config. Prints `RESULT {json}`.
 */
import fs from 'node:fs';
import { ProxyAgent, request } from 'undici';
import { targetCycle } from './page-shape.js';
import { procCpuNs } from '../lib/proc.js';
import { exitOnHelp } from '../lib/usage.js';

exitOnHelp(`Usage: npx tsx bench/load/https-paired-client.ts <config JSON>

A child process of "npm run bench", started and killed by it; it prints RESULT JSON on stdout.
Run "npm run bench -- --help" for the benchmark itself.
`);

interface Config {
  url: string;
  caFiles: string[];
  concurrency: number;
  rounds: number;
  windowMs: number;
  /** Unmeasured load through each proxy first (connections, TLS, V8's optimisation). */
  warmupMs: number;
  /**
   * The subjects. `before`: a URL POSTed (directly, not through the proxy) before each of the subject's windows and
   * its warm-up, to put the proxy in the subject's state: two subjects can be one process, recording on and off.
   */
  proxies: { url: string; pid: number; before?: string }[];
  /**
   * Pairs of indices into `proxies`, [A (the feature on), B (off)]: round r measures pair r mod pairs.length. Two
   * processes per side started in the order A B B A balance what the start order does to a process (below).
   */
  pairs: [number, number][];
  /** The lab's page shape (https-paired.ts --page): these paths of `url`'s origin in turn, each with `headers`. */
  paths?: string[];
  headers?: Record<string, string>;
}

export interface PairedWindow {
  requests: number;
  errors: number;
  ms: number;
  cpuNs: number;
}

const cfg = JSON.parse(process.argv[2]!) as Config;
const ca = cfg.caFiles.map((f) => fs.readFileSync(f, 'utf8'));
const nextTarget = targetCycle(cfg.url, cfg.paths);
const agents = cfg.proxies.map((p) => new ProxyAgent({ uri: p.url, connections: cfg.concurrency, requestTls: { ca } }));

async function window(i: number, ms: number): Promise<PairedWindow> {
  const dispatcher = agents[i]!;
  const { pid, before } = cfg.proxies[i]!;
  if (before) {
    const res = await request(before, { method: 'POST' });
    await res.body.dump();
    if (res.statusCode >= 300) throw new Error(`POST ${before}: status ${res.statusCode}`);
  }
  let requests = 0;
  let errors = 0;
  const cpu0 = procCpuNs(pid);
  const t0 = performance.now();
  const end = t0 + ms;
  // Every worker stops issuing at the end and waits for its request: the window's CPU is all of its requests'.
  await Promise.all(
    Array.from({ length: cfg.concurrency }, async () => {
      while (performance.now() < end) {
        try {
          const res = await request(nextTarget(), { dispatcher, headers: cfg.headers });
          await res.body.dump({ limit: 1 << 20 });
          if (res.statusCode === 200) requests++;
          else errors++;
        } catch {
          errors++;
        }
      }
    }),
  );
  return { requests, errors, ms: performance.now() - t0, cpuNs: procCpuNs(pid) - cpu0 };
}

for (let i = 0; i < agents.length; i++) await window(i, cfg.warmupMs);
const rounds: PairedWindow[][] = [];
const n = cfg.pairs.length;
for (let r = 0; r < cfg.rounds; r++) {
  const [a, b] = cfg.pairs[r % n]!;
  // Each pair in both orders in turn, so what drifts within a round falls on both sides.
  const got = new Map<number, PairedWindow>();
  for (const i of Math.floor(r / n) % 2 ? [b, a] : [a, b]) got.set(i, await window(i, cfg.windowMs));
  rounds.push([got.get(a)!, got.get(b)!]);
}
process.stdout.write(`RESULT ${JSON.stringify({ rounds })}\n`);
await Promise.all(agents.map((a) => a.close().catch(() => {})));
process.exit(0);
