/**
 * Load generator shaped like a browser loading the lab's image page over
 * HTTP/2 (its own process): one h2 connection to the test site through the
 * proxy's CONNECT, then bursts of N concurrent GETs (/img/0.png … /img/N-1.png),
 * the next burst when the last response of the previous one has arrived.
 * Each request carries Chromium's request headers for an image (browser-headers.ts).
 * Reads the proxy's CPU time from /proc over the measured window.
 * argv: one JSON object, see Config. Prints `RESULT {json}`.
 */
import fs from 'node:fs';
import { procCpuMs } from '../lib/proc.js';
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import tls from 'node:tls';
import { exitOnHelp } from '../lib/usage.js';
import { browserImageHeaders } from './browser-headers.js';

exitOnHelp(`Usage: npx tsx bench/load/h2-burst.ts <config JSON>

A child process of "npm run bench", started and killed by it; it prints READY (or RESULT) JSON on stdout.
Run "npm run bench -- --help" for the benchmark itself.
`);

interface Config {
  /** https://host:port of the test site. */
  origin: string;
  /** Absent: straight to the origin (the baseline). */
  proxy?: string;
  proxyPid?: number;
  caFiles: string[];
  burst: number;
  durationMs: number;
  /** Send only :path, not the browser's request headers (the default sends Chromium's). */
  bareHeaders?: boolean;
}

const cfg = JSON.parse(process.argv[2]!) as Config;
const ca = cfg.caFiles.map((f) => fs.readFileSync(f, 'utf8'));
const target = new URL(cfg.origin);

const headers = cfg.bareHeaders ? {} : browserImageHeaders(target);
const cpuMs = (pid?: number) => (pid ? procCpuMs(pid) : 0);

const socket = await new Promise<net.Socket>((resolve, reject) => {
  if (!cfg.proxy) return resolve(net.connect(Number(target.port), target.hostname));
  const proxy = new URL(cfg.proxy);
  const req = http.request({
    host: proxy.hostname,
    port: proxy.port,
    method: 'CONNECT',
    path: target.host,
    headers: { host: target.host },
  });
  req.once('connect', (res, s) => (res.statusCode === 200 ? resolve(s) : reject(new Error(`CONNECT ${res.statusCode}`))));
  req.once('error', reject);
  req.end();
});
const session = http2.connect(cfg.origin, {
  createConnection: () =>
    tls.connect({
      socket,
      host: target.hostname,
      servername: target.hostname === '127.0.0.1' ? undefined : target.hostname,
      ALPNProtocols: ['h2'],
      ca,
    }),
});
session.on('error', (e) => {
  console.error(e);
  process.exit(1);
});

function get(path: string): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const s = session.request({ ':path': path, ...headers });
    s.on('response', (h) => {
      if (h[':status'] !== 200) reject(new Error(`${path}: status ${h[':status']}`));
    });
    s.on('data', () => {});
    s.once('end', () => resolve(performance.now() - t0));
    s.once('error', reject);
  });
}

const burst = () => Promise.all(Array.from({ length: cfg.burst }, (_, i) => get(`/img/${i}.png`)));
// The first burst is the warm-up (upstream connection, certificates, JIT); its time and the proxy's CPU
// during it are reported apart: the lab starts a fresh proxy per run, so a page load meets a cold proxy.
const cold0 = cpuMs(cfg.proxyPid);
const coldT0 = performance.now();
const coldLatencies = (await burst()).sort((a, b) => a - b);
const coldMs = performance.now() - coldT0;
const coldCpuMs = cpuMs(cfg.proxyPid) - cold0;
const latencies: number[] = [];
let bursts = 0;
const cpu0 = cpuMs(cfg.proxyPid);
const t0 = performance.now();
while (performance.now() - t0 < cfg.durationMs) {
  latencies.push(...(await burst()));
  bursts++;
}
const elapsed = performance.now() - t0;
const cpu = cpuMs(cfg.proxyPid) - cpu0;
latencies.sort((a, b) => a - b);
const requests = bursts * cfg.burst;
console.log(
  'RESULT ' +
    JSON.stringify({
      bursts,
      requests,
      burstMs: elapsed / bursts,
      rps: (requests / elapsed) * 1000,
      p50Ms: latencies[Math.floor(latencies.length / 2)],
      proxyCpuUsPerRequest: cfg.proxyPid ? (cpu * 1000) / requests : undefined,
      firstBurstMs: coldMs,
      firstBurstP50Ms: coldLatencies[Math.floor(coldLatencies.length / 2)],
      firstBurstProxyCpuUsPerRequest: cfg.proxyPid ? (coldCpuMs * 1000) / cfg.burst : undefined,
    }),
);
session.close();
process.exit(0);
