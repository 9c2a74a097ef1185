import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { loadOrCreateCA } from '../../src/tls/ca.js';
import { startTestSite, type TestSite } from '../../src/lab/site/test-site.js';
import { chromePath } from './chrome-available.js';
import { connectionsOf } from '../../src/timeline/har.js';

let dir: string;
let site: TestSite;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nl-record-'));
  site = await startTestSite({ images: 6, ca: loadOrCreateCA(path.join(dir, 'data')) });
});
afterAll(async () => {
  await site.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!chromePath)('netlens record (real Chromium through the real proxy)', () => {
  it('saves the proxy-side HAR and the browser-side HAR of the page', async () => {
    const out = path.join(dir, 'page.har');
    const browserHar = path.join(dir, 'page.browser.har');
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let text = '';
    stdout.on('data', (c) => (text += c));
    stderr.on('data', (c) => (text += c));
    const code = await main(
      [
        'record',
        site.url,
        '--out',
        out,
        '--browser-har',
        browserHar,
        '--quiet-ms',
        '200',
        '--timeout-ms',
        '15000',
        '--data-dir',
        path.join(dir, 'data'),
      ],
      {
        stdout: stdout as unknown as typeof process.stdout,
        stderr: stderr as unknown as typeof process.stderr,
      },
    );
    expect(code, text).toBe(0);
    const proxyHar = JSON.parse(fs.readFileSync(out, 'utf8'));
    const urls = proxyHar.log.entries.map((e: { request: { url: string } }) => new URL(e.request.url).pathname);
    expect(urls).toEqual(expect.arrayContaining(['/', '/style.css', '/app.js', '/chunked.js', '/img/0.png', '/img/5.png']));
    expect(proxyHar.log.entries).toHaveLength(site.expectedRequests);
    // The proxy's socket timeline is stored with the recording (docs/timings.md).
    expect(connectionsOf(proxyHar.log).length).toBeGreaterThan(0);
    const browser = JSON.parse(fs.readFileSync(browserHar, 'utf8'));
    expect(browser.log.entries).toHaveLength(site.expectedRequests);
    expect(fs.existsSync(`${out}.journal`)).toBe(false);
    expect(text).toMatch(/Proxy HAR: .*page\.har \(10 entries\)/);
    // Browser and proxy side by side (har/align.ts): each matched request's browser time cut into five parts.
    const alignment = proxyHar.log._alignment;
    expect(alignment.matched).toBeGreaterThanOrEqual(Math.ceil(0.9 * browser.log.entries.length));
    const sides = proxyHar.log.entries.map((e: { _browser?: unknown }) => e._browser).filter(Boolean);
    expect(sides).toHaveLength(alignment.matched);
    for (const side of sides as { time: number; breakdown: Record<string, number> }[]) {
      const parts = ['queue', 'clientLeg', 'proxy', 'upstream', 'back'].map((k) => side.breakdown[k]!);
      for (const n of parts) expect(n).toBeGreaterThanOrEqual(0);
      expect(Math.abs(parts.reduce((a, b) => a + b, 0) - side.time)).toBeLessThanOrEqual(1);
    }
    expect(text).toMatch(/Browser and proxy: matched \d+ of 10 browser requests \(proxy entries 10\); median ms: queue [\d.]+, client leg/);
  }, 60_000);
});
