/**
 * Renderer performance with a 100,000-entry session (not a test: it prints numbers).
 *
 *   npx tsx bench/render-100k.ts [--entries N]
 *
 * Starts `netlens serve` (no proxy), imports a generated HAR through the API,
 * then drives Debian Chromium (Playwright) to open it and measures, in the page:
 * time from "Open" to the list painted, JS heap after GC, scroll frame times,
 * a filter over all rows, and the Waterfall view's first render.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { intArg, scriptArgs } from './lib/usage.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const USAGE = `Usage: npx tsx bench/render-100k.ts [--entries N]

Starts netlens serve, imports a generated N-entry session (default 100,000) and drives
Debian Chromium to measure opening, scrolling, filtering and the Waterfall (not a test).

Environment:
  PROFILE=1   also record a CPU profile of the scroll
`;
const N = intArg(scriptArgs(USAGE, { entries: { type: 'string' } }).values.entries, 100_000, '--entries', USAGE, 1, 10_000_000);
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

function generateHar(n: number): string {
  const hosts = ['www.example.test', 'cdn.example.test', 'api.example.test', 'img.example.test', 'fonts.example.test'];
  const kinds = [
    ['text/html', 'document', '/index.html'],
    ['application/javascript', 'script', '/static/app.js'],
    ['text/css', 'stylesheet', '/static/site.css'],
    ['image/png', 'image', '/img/photo.png'],
    ['application/json', 'xhr', '/api/items'],
    ['font/woff2', 'font', '/fonts/inter.woff2'],
  ] as const;
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  const entries = [];
  for (let i = 0; i < n; i++) {
    const [mime, type, p] = kinds[i % kinds.length]!;
    const status = i % 97 === 0 ? 404 : i % 211 === 0 ? 500 : 200;
    const wait = 5 + (i % 50);
    entries.push({
      startedDateTime: new Date(t0 + i * 0.6).toISOString(),
      time: wait + 3,
      request: {
        method: i % 13 === 0 ? 'POST' : 'GET',
        url: `https://${hosts[i % hosts.length]}${p}?n=${i}`,
        httpVersion: 'HTTP/2.0',
        headers: [{ name: 'accept', value: '*/*' }],
        queryString: [],
        cookies: [],
        headersSize: -1,
        bodySize: 0,
      },
      response: {
        status,
        statusText: status === 200 ? 'OK' : 'Error',
        httpVersion: 'HTTP/2.0',
        headers: [{ name: 'content-type', value: mime }],
        cookies: [],
        content: { size: 1000 + (i % 5000), mimeType: mime },
        redirectURL: '',
        headersSize: -1,
        bodySize: 1000 + (i % 5000),
      },
      cache: {},
      timings: { blocked: 1, dns: -1, connect: -1, ssl: -1, send: 0.5, wait, receive: 1.5 },
      _resourceType: type,
    });
  }
  return JSON.stringify({ log: { version: '1.2', creator: { name: 'netlens-bench', version: '1' }, pages: [], entries } });
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-bench-'));
  const serve = spawn(
    process.execPath,
    [path.join(ROOT, 'bin', 'netlens.js'), 'serve', '--port', '0', '--no-proxy', '--data-dir', dataDir],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    serve.stdout!.on('data', (c) => {
      out += c;
      const m = /Netlens UI: (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    serve.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
  });
  const token = new URL(url).searchParams.get('token')!;
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
  try {
    const har = generateHar(N);
    const tImport = performance.now();
    const res = await fetch(new URL('/api/importHar', url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ fileName: 'bench.har', text: har }),
    });
    const imported = (await res.json()) as { ok: boolean; result: { id: string; entryCount: number }; error?: unknown };
    if (!imported.ok) throw new Error(`import failed: ${JSON.stringify(imported.error)}`);
    const importMs = performance.now() - tImport;
    // The core's share of "open": the same command from Node, without the browser.
    const tOpen = performance.now();
    const opened = await fetch(new URL('/api/openSession', url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ id: imported.result.id }),
    });
    const openBytes = (await opened.arrayBuffer()).byteLength;
    const coreOpenMs = performance.now() - tOpen;

    const page = await browser.newPage({ viewport: { width: 1440, height: 860 } });
    // tsx (esbuild keepNames) wraps functions in __name(); the page needs a no-op for evaluate() callbacks.
    await page.addInitScript('window.__name = (f) => f');
    const cdp = await page.context().newCDPSession(page);
    await page.goto(url);
    await page.getByTestId('tab-sessions').click();
    await page.getByTestId('session-open').first().waitFor();
    const heapBefore = await heap(cdp);

    // Time from the click to the list painted with all N rows counted.
    const label = N.toLocaleString('en-US');
    const openMs = await page.evaluate(async (label) => {
      const done = new Promise<number>((resolve) => {
        const check = () => {
          const bar = document.querySelector('[data-testid=statusbar]')?.textContent ?? '';
          if (bar.includes(`${label} requests`) && document.querySelector('[data-testid=traffic-row]')) {
            requestAnimationFrame(() => resolve(performance.now()));
            return true;
          }
          return false;
        };
        const mo = new MutationObserver(() => check() && mo.disconnect());
        mo.observe(document.body, { subtree: true, childList: true, characterData: true });
      });
      const t0 = performance.now();
      (document.querySelector('[data-testid=session-open]') as HTMLButtonElement).click();
      return (await done) - t0;
    }, label);
    const heapAfter = await heap(cdp);
    const domRows = await page.getByTestId('traffic-row').count();

    // Scroll through the list: 60 jumps of 5,000 px, one per frame; frame durations.
    const frames = await page.evaluate(async () => {
      const el = document.querySelector('[data-testid=traffic-scroller]') as HTMLElement;
      const times: number[] = [];
      let last = performance.now();
      for (let i = 0; i < 60; i++) {
        el.scrollTop += 5000;
        await new Promise((r) => requestAnimationFrame(() => r(null)));
        const now = performance.now();
        times.push(now - last);
        last = now;
      }
      return times;
    });
    frames.sort((a, b) => a - b);

    // A filter over all rows: type it and wait for the status bar to change.
    const filterMs = await page.evaluate(async () => {
      const input = document.querySelector('[data-testid=filter-text]') as HTMLInputElement;
      const bar = document.querySelector('[data-testid=statusbar]')!;
      const before = bar.textContent;
      const done = new Promise<number>((resolve) => {
        const mo = new MutationObserver(() => {
          if (bar.textContent !== before) {
            mo.disconnect();
            requestAnimationFrame(() => resolve(performance.now()));
          }
        });
        mo.observe(bar, { subtree: true, childList: true, characterData: true });
      });
      const t0 = performance.now();
      const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
      setter.call(input, 'status:404');
      input.dispatchEvent(new Event('input', { bubbles: true }));
      return (await done) - t0;
    });
    const filtered = await page.getByTestId('statusbar').textContent();
    await page.getByTestId('filter-text').fill('');
    if (process.env.PROFILE) await profileScroll(page, cdp);

    const waterfallMs = await page.evaluate(async () => {
      const done = new Promise<number>((resolve) => {
        const mo = new MutationObserver(() => {
          if (document.querySelector('[data-testid=waterfall-row]')) {
            mo.disconnect();
            requestAnimationFrame(() => resolve(performance.now()));
          }
        });
        mo.observe(document.body, { subtree: true, childList: true });
      });
      const t0 = performance.now();
      (document.querySelector('[data-testid=tab-waterfall]') as HTMLButtonElement).click();
      return (await done) - t0;
    });

    const q = (p: number) => frames[Math.min(frames.length - 1, Math.floor(p * frames.length))]!;
    console.log(
      `Netlens renderer with a ${N.toLocaleString('en-US')}-entry session (HAR ${(har.length / 1e6).toFixed(1)} MB), Chromium headless, ${os.cpus().length} CPUs`,
    );
    console.log(`  import through the API (core: parse, validate, store):   ${importMs.toFixed(0)} ms`);
    console.log(`  openSession in the core alone (read + answer ${(openBytes / 1e6).toFixed(1)} MB):  ${coreOpenMs.toFixed(0)} ms`);
    console.log(`  open → list painted (core + transfer + parse + rows + render): ${openMs.toFixed(0)} ms`);
    console.log(`  JS heap after GC: before open ${(heapBefore / 1e6).toFixed(1)} MB, after ${(heapAfter / 1e6).toFixed(1)} MB`);
    console.log(`  rows in the DOM (virtualized):                           ${domRows}`);
    console.log(
      `  scroll, 60 jumps of 5000 px: frame median ${q(0.5).toFixed(1)} ms, p95 ${q(0.95).toFixed(1)} ms, max ${frames.at(-1)!.toFixed(1)} ms`,
    );
    console.log(
      `  filter "status:404" over all rows → painted:             ${filterMs.toFixed(0)} ms (${filtered?.match(/[\d,]+ \/ [\d,]+ requests/)?.[0]})`,
    );
    console.log(`  Waterfall view first render:                             ${waterfallMs.toFixed(0)} ms`);
  } finally {
    await browser.close();
    serve.kill('SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** NETLENS_PROFILE=1: where scrolling spends its time (CPU profile, top self times). */
async function profileScroll(page: import('playwright-core').Page, cdp: import('playwright-core').CDPSession): Promise<void> {
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.start');
  await page.evaluate(async () => {
    const el = document.querySelector('[data-testid=traffic-scroller]') as HTMLElement;
    el.scrollTop = 0;
    for (let i = 0; i < 60; i++) {
      el.scrollTop += 5000;
      await new Promise((r) => requestAnimationFrame(() => r(null)));
    }
  });
  const { profile } = (await cdp.send('Profiler.stop')) as {
    profile: {
      nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
      samples: number[];
      timeDeltas: number[];
    };
  };
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const f = byId.get(id)!.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber}`;
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  console.log('  CPU profile of the scroll, top self times:');
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`    ${v.toFixed(0).padStart(6)} ms  ${k}`);
}

async function heap(cdp: import('playwright-core').CDPSession): Promise<number> {
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
  return usedSize;
}

await main();
