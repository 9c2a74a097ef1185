/**
 * Live capture performance: 100,000 exchanges streamed into the UI (not a test: it prints numbers).
 *
 *   npx tsx bench/live-100k.ts [--entries N] [--rate PER_SECOND]
 *
 * An in-process core service fed by a fake proxy event stream (no sockets on
 * the proxy side, so the numbers are the API transport's and the renderer's),
 * served with the real HTTP/WebSocket transport to Debian Chromium. Measures
 * how long the UI lags behind the stream, frame gaps while rows pour in, and
 * the page's JS heap at the end.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { appPaths, appPathsFor, setAppPaths } from '../proxy/src/app-paths.js';
import { CoreService } from '../proxy/src/api/core-service.js';
import { startHttpTransport } from '../proxy/src/api/http-transport.js';
import { coreBackends } from '../proxy/src/api/wiring.js';
import { EventStream } from '../proxy/src/events.js';
import type { Exchange } from '../proxy/src/model.js';
import type { ProxyHandle } from '../proxy/src/server/proxy-server.js';
import { intArg, scriptArgs } from './lib/usage.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const USAGE = `Usage: npx tsx bench/live-100k.ts [--entries N] [--rate PER_SECOND]

Streams N fake exchanges (default 100,000) into the UI served to Debian Chromium and
prints how far the UI lags behind, frame gaps and the page's JS heap (not a test).
`;
setAppPaths(appPathsFor({ root: ROOT }));
const { values: flags } = scriptArgs(USAGE, { entries: { type: 'string' }, rate: { type: 'string' } });
const arg = (name: 'entries' | 'rate', fallback: number) => intArg(flags[name], fallback, `--${name}`, USAGE, 1, 10_000_000);
const N = arg('entries', 100_000);
const RATE = arg('rate', 5_000);
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-extensions',
  '--disable-pings',
  '--no-default-browser-check',
  '--disable-features=NetworkTimeServiceQuerying',
  '--gaia-url=http://127.0.0.1:9',
  '--component-updater=url-source=http://127.0.0.1:9/',
];

function exchange(i: number, t0: number): Exchange {
  const body = new TextEncoder().encode(`{"n":${i}}`);
  return {
    id: `x${i}`,
    clientConnectionId: 'c1',
    upstreamConnectionId: `u${i % 6}`,
    startedDateTime: new Date(t0 + i).toISOString(),
    transport: 'intercepted',
    clientProtocol: 'h2',
    upstreamProtocol: 'h2',
    nagle: false,
    request: {
      method: 'GET',
      url: `https://host${i % 20}.example.test/api/items/${i}`,
      httpVersion: 'h2',
      headers: [[':authority', 'example.test']],
      body: { size: 0, bytes: new Uint8Array(), truncated: false },
    },
    response: {
      status: i % 50 === 0 ? 404 : 200,
      statusText: 'OK',
      httpVersion: 'h2',
      headers: [['content-type', 'application/json']],
      body: { size: body.length, bytes: body, truncated: false },
    },
    retries: 0,
    timestamps: { start: i },
    timings: { blocked: 0.2, dns: -1, connect: -1, ssl: -1, send: 0.1, wait: 3 + (i % 7), receive: 0.5, total: 4 },
    clientTimings: { receiveRequest: 0, proxyOverhead: 0.2, respond: 0.1, total: 4.5 },
  };
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-live-bench-'));
  const events = new EventStream();
  const fake = async (): Promise<ProxyHandle> => ({
    address: { host: '127.0.0.1', port: 1, url: 'http://127.0.0.1:1' },
    settings: { host: '127.0.0.1', port: 1, intercept: true, http2: true, nagle: false, dataDir },
    events,
    ca: { certPath: path.join(dataDir, 'ca.pem'), fingerprint: '-', leafSpkiHash: '-' } as ProxyHandle['ca'],
    stop: async () => undefined,
  });
  // The app's own backends (session store in the temp data directory), as serve.ts wires them; only the proxy is fake.
  const service = new CoreService({ dataDir, startProxy: fake, version: 'bench', ...(await coreBackends(dataDir)) });
  await service.startProxy();
  const transport = await startHttpTransport({ service, staticDir: appPaths().rendererDir });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 860 } });
    await page.addInitScript('window.__name = (f) => f');
    const cdp = await page.context().newCDPSession(page);
    await page.goto(transport.url);
    await page.getByTestId('traffic-empty').waitFor();
    // Frame gaps while rows stream in, and when the status bar reaches N.
    await page.evaluate((label) => {
      const w = window as unknown as { gaps: number[]; doneAt?: number };
      w.gaps = [];
      let last = performance.now();
      const tick = (now: number) => {
        w.gaps.push(now - last);
        last = now;
        if ((document.querySelector('[data-testid=statusbar]')?.textContent ?? '').includes(`${label} requests`))
          w.doneAt = performance.now();
        else requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    }, N.toLocaleString('en-US'));

    const t0 = Date.now();
    const start = performance.now();
    const perTick = Math.max(1, Math.round(RATE / 100));
    for (let i = 0; i < N;) {
      for (let k = 0; k < perTick && i < N; k++, i++) events.emit({ type: 'complete', exchange: exchange(i, t0) });
      await new Promise((r) => setTimeout(r, 10));
    }
    const streamMs = performance.now() - start;
    const pageStart = await page.evaluate(() => performance.now());
    await page.waitForFunction(() => (window as unknown as { doneAt?: number }).doneAt !== undefined, undefined, {
      timeout: 300_000,
      polling: 100,
    });
    const lagMs = (await page.evaluate(() => (window as unknown as { doneAt: number }).doneAt)) - pageStart;
    const gaps = (await page.evaluate(() => (window as unknown as { gaps: number[] }).gaps)).sort((a, b) => a - b);
    await cdp.send('HeapProfiler.collectGarbage');
    const { usedSize } = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
    const q = (p: number) => gaps[Math.min(gaps.length - 1, Math.floor(p * gaps.length))]!;
    console.log(
      `Netlens live capture: ${N.toLocaleString('en-US')} exchanges streamed at ~${RATE.toLocaleString('en-US')}/s, Chromium headless, ${os.cpus().length} CPUs`,
    );
    console.log(`  stream duration (core side):                     ${(streamMs / 1000).toFixed(1)} s`);
    console.log(`  UI shows all rows, after the last event:         ${Math.max(0, lagMs).toFixed(0)} ms`);
    console.log(
      `  frame gaps while streaming: median ${q(0.5).toFixed(1)} ms, p95 ${q(0.95).toFixed(1)} ms, max ${gaps.at(-1)!.toFixed(0)} ms (${gaps.length} frames)`,
    );
    console.log(`  page JS heap after GC:                           ${(usedSize / 1e6).toFixed(1)} MB`);
    console.log(`  core process RSS:                                ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`);
  } finally {
    await browser.close();
    await transport.close();
    await service.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
