/**
 * Child process for the per-host memory check: starts a proxy (from NETLENS_ROOT,
 * default this checkout, so the same script measures an older checkout too),
 * intercepts N distinct host names (CONNECT + TLS handshake with SNI, then an
 * abrupt close), lets it go idle, and prints RSS before and after as JSON.
 * Run with --expose-gc so the figures are what is retained, not garbage.
 */
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { pathToFileURL } from 'node:url';

const root = process.env.NETLENS_ROOT ?? path.resolve(import.meta.dirname, '../../..');
const hosts = Number(process.argv[2] ?? 10_000);
const width = 20;
const serverModule = pathToFileURL(path.join(root, 'proxy/src/server/proxy-server.ts')).href;
const { startProxy } = (await import(serverModule)) as typeof import('../../src/server/proxy-server.js');
const dataDir = process.argv[3]!;
const cache = process.env.NETLENS_HOST_CACHE ? { hostCacheSize: Number(process.env.NETLENS_HOST_CACHE) } : {};
const proxy = await startProxy({ port: 0, dataDir, ...cache });
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const rssMiB = () => process.memoryUsage().rss / 1024 / 1024;
const heapMiB = () => process.memoryUsage().heapUsed / 1024 / 1024;

async function visit(host: string): Promise<void> {
  const s = net.connect(proxy.address.port, '127.0.0.1');
  s.on('error', () => {});
  await new Promise((r) => s.once('connect', r));
  s.write(`CONNECT ${host}:443 HTTP/1.1\r\nHost: ${host}:443\r\n\r\n`);
  await new Promise((r) => s.once('data', r));
  await new Promise<void>((resolve) => {
    const t = tls.connect({ socket: s, servername: host, rejectUnauthorized: false, ALPNProtocols: ['h2', 'http/1.1'] }, () => resolve());
    t.on('error', () => resolve());
  });
  s.destroy();
}

async function run(from: number, n: number): Promise<void> {
  for (let i = 0; i < n; i += width) {
    await Promise.all(Array.from({ length: Math.min(width, n - i) }, (_, j) => visit(`h${from + i + j}.lifecycle.test`)));
  }
}

const settle = async () => {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 300));
  }
};
await run(0, 100); // warm-up: code paths, TLS, one batch of contexts
await settle();
const before = rssMiB();
const heapBefore = heapMiB();
const t0 = Date.now();
await run(100, hosts);
const seconds = (Date.now() - t0) / 1000;
await settle();
const after = rssMiB();
const heapAfter = heapMiB();
const round = (n: number) => Math.round(n * 10) / 10;
const growth = after - before;
const figures = {
  hosts,
  beforeMiB: round(before),
  afterMiB: round(after),
  growthMiB: round(growth),
  perHostKiB: round((growth * 1024) / hosts),
};
console.log(JSON.stringify({ ...figures, heapGrowthMiB: round(heapAfter - heapBefore), seconds }));
await proxy.stop();
process.exit(0);
