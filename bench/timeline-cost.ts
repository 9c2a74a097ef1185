/**
 * What the socket timeline costs: proxy CPU per request with the timeline on vs
 * off (goal: ≤ 10% more). Two proxies run side by side in child processes; rounds
 * alternate between them (and alternate which goes first), each round sending the
 * same number of keep-alive GETs through one proxy to a local origin. CPU is the
 * proxy process's own (user + system, /proc), divided by requests.
 *
 *   npx tsx bench/timeline-cost.ts [--rounds N] [--requests N] [--concurrency N]
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startChild, tsArgs, type Child } from './lib/child.js';
import { intArg, scriptArgs } from './lib/usage.js';

const USAGE = `Usage: npx tsx bench/timeline-cost.ts [--rounds N] [--requests N] [--concurrency N]

Proxy CPU per request with the socket timeline on vs off, interleaved rounds.
`;
const { values } = scriptArgs(USAGE, { rounds: { type: 'string' }, requests: { type: 'string' }, concurrency: { type: 'string' } });
const rounds = intArg(values.rounds, 8, '--rounds', USAGE);
const perRound = intArg(values.requests, 2000, '--requests', USAGE);
const concurrency = intArg(values.concurrency, 8, '--concurrency', USAGE);

const body = Buffer.alloc(2048, 120);
const origin = http.createServer((_req, res) => {
  res.setHeader('content-type', 'application/octet-stream');
  res.end(body);
});
await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
const originPort = (origin.address() as import('node:net').AddressInfo).port;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-timeline-cost-'));
const start = (on: boolean) =>
  startChild<{ port: number }>(`netlens timeline ${on ? 'on' : 'off'}`, ...tsArgs('timeline-proxy.ts', [dataDir, on ? '1' : '0']));
const proxies: Record<'on' | 'off', Child<{ port: number }>> = { on: await start(true), off: await start(false) };

async function load(port: number, n: number): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  let left = n;
  const worker = async () => {
    while (left-- > 0) {
      await new Promise<void>((resolve, reject) => {
        const req = http.get({ host: '127.0.0.1', port, path: `http://127.0.0.1:${originPort}/x`, agent }, (res) => {
          res.resume();
          res.on('end', resolve);
        });
        req.once('error', reject);
        req.setTimeout(10_000, () => req.destroy(new Error('request timed out')));
      });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
}

const perRequestUs: Record<'on' | 'off', number[]> = { on: [], off: [] };
try {
  // Warm-up: JIT, pools, connections.
  for (const k of ['on', 'off'] as const) await load(proxies[k].info.port, 500);
  for (let r = 0; r < rounds; r++) {
    const order: ('on' | 'off')[] = r % 2 ? ['on', 'off'] : ['off', 'on'];
    for (const k of order) {
      const p = proxies[k];
      const before = p.cpuMs();
      await load(p.info.port, perRound);
      perRequestUs[k].push(((p.cpuMs() - before) * 1000) / perRound);
    }
  }
} finally {
  await Promise.all(Object.values(proxies).map((p) => p.kill()));
  origin.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

const median = (a: number[]) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const on = median(perRequestUs.on);
const off = median(perRequestUs.off);
const pct = ((on / off - 1) * 100).toFixed(1);
console.log(
  `proxy CPU per request (median of ${rounds} interleaved rounds × ${perRound} requests, ` +
    `concurrency ${concurrency}, plain HTTP, 2 KiB bodies):`,
);
// Each round's on and off ran back to back: the median of their ratios is less sensitive to the machine's drift.
const paired = ((median(perRequestUs.on.map((v, i) => v / perRequestUs.off[i])) - 1) * 100).toFixed(1);
console.log(
  `  timeline off: ${off.toFixed(1)} µs   timeline on: ${on.toFixed(1)} µs   cost: ${pct}% (goal ≤ 10%)   per-round pairs: ${paired}%`,
);
console.log(
  `  rounds off: ${perRequestUs.off.map((v) => v.toFixed(0)).join(' ')}   on: ${perRequestUs.on.map((v) => v.toFixed(0)).join(' ')}`,
);
