/**
 * Whether the app's readers of captured bodies hold the proxy up: the core service as `npm start` runs it (its
 * proxy on 127.0.0.1), brotli bombs captured through it, then their bodies viewed (the Body tab's getExchangeBody,
 * several at once) and the capture saved as a session (saveSession), while a small request goes through the proxy
 * every 20 ms. Prints, per phase, how long it took and the small requests' worst latency: how long an exchange in
 * flight waited for the event loop.
 *
 *   npx tsx bench/app-body-block.ts [--bombs N] [--mib M] [--views K]
 *
 * A check by hand, not part of `npm run bench` (docs/har.md, docs/benchmarks.md quote its numbers).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import zlib from 'node:zlib';
import { CoreService } from '../proxy/src/api/core-service.js';
import { coreBackends } from '../proxy/src/api/wiring.js';
import { intArg, scriptArgs } from './lib/usage.js';

const USAGE = `Usage: npx tsx bench/app-body-block.ts [--bombs N] [--mib M] [--views K]

The app's core service with its proxy: N brotli bodies that decode to M MiB each
are captured, then each is viewed K times at once (the Body tab) and the capture
is saved as a session, while a small request goes through the proxy every 20 ms.
Prints per phase its time and the small requests' worst latency.

  --bombs N   bodies captured (default 5)
  --mib M     MiB each decodes to (default 60; the decoding bound is 64)
  --views K   times each body is viewed at once (default 4)
`;
const { values } = scriptArgs(USAGE, { bombs: { type: 'string' }, mib: { type: 'string' }, views: { type: 'string' } });
const bombs = intArg(values.bombs, 5, '--bombs', USAGE, 1, 100);
const mib = intArg(values.mib, 60, '--mib', USAGE, 1, 64);
const views = intArg(values.views, 4, '--views', USAGE, 1, 100);

const bomb = zlib.brotliCompressSync(Buffer.alloc(mib * 1024 * 1024, 'a'), { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } });
const t0 = performance.now();
zlib.brotliDecompressSync(bomb);
const atOnceMs = performance.now() - t0;

const origin = http.createServer((req, res) => {
  const isBomb = req.url === '/bomb';
  res.writeHead(200, { 'content-type': 'text/plain', ...(isBomb ? { 'content-encoding': 'br' } : {}) });
  res.end(isBomb ? bomb : 'ok');
});
await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
const site = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;

/** Open file descriptors of this process (Linux), to see the core give back what it opened. */
const openFds = () => (fs.existsSync('/proc/self/fd') ? fs.readdirSync('/proc/self/fd').length : NaN);
const fdsBefore = openFds();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-app-body-'));
const core = new CoreService({ ...(await coreBackends(dataDir)), dataDir, proxy: { port: 0 } });
try {
  const status = await core.startProxy({});
  const proxyPort = status.address!.port;
  /** One GET through the proxy (absolute-form, a connection of its own). */
  const get = (p: string) =>
    new Promise<void>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: proxyPort, path: `${site}${p}`, agent: false }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end();
    });

  /** Runs `work` while a small request goes through the proxy every 20 ms; prints the worst of them. */
  const probeDuring = async (name: string, work: () => Promise<unknown>) => {
    let worst = 0;
    let sent = 0;
    let stop = false;
    const probe = (async () => {
      while (!stop) {
        const t = performance.now();
        await get('/small');
        worst = Math.max(worst, performance.now() - t);
        sent++;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const t = performance.now();
    await work();
    const took = performance.now() - t;
    stop = true;
    await probe;
    console.log(`${name}: ${took.toFixed(0)} ms; ${sent} small requests meanwhile, the slowest ${worst.toFixed(1)} ms`);
  };

  for (let i = 0; i < bombs; i++) await get('/bomb');
  // The capture's rows arrive in batches: wait until every body is there.
  let ids: string[] = [];
  for (let i = 0; i < 200 && ids.length < bombs; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    ids = (await core.listExchanges()).filter((s) => s.url.endsWith('/bomb') && s.state !== 'pending').map((s) => s.id);
  }
  if (ids.length < bombs) throw new Error(`only ${ids.length} of ${bombs} bodies reached the live capture`);
  console.log(`${bombs} brotli bodies of ${bomb.length} bytes, each decoding to ${mib} MiB (${atOnceMs.toFixed(0)} ms at once)`);
  await probeDuring('idle, 500 ms', () => new Promise((resolve) => setTimeout(resolve, 500)));
  await probeDuring(`each body viewed ${views} times at once`, () =>
    Promise.all(Array.from({ length: views }, () => ids.map((id) => core.getExchangeBody({ id, side: 'response' }))).flat()),
  );
  await probeDuring('the capture saved as a session', () => core.saveSession({ name: 'bombs' }));
  console.log(`core RSS now ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);
} finally {
  await core.close();
  await new Promise((resolve) => origin.close(resolve));
  fs.rmSync(dataDir, { recursive: true, force: true });
}
// Sockets close a turn or two after their servers: give them a moment before counting.
await new Promise((resolve) => setTimeout(resolve, 500));
console.log(`open file descriptors: ${fdsBefore} before the core started, ${openFds()} after it closed`);
