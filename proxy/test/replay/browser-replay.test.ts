/**
 * The scenario in a real browser: headless Chromium loads the test site
 * through the proxy (recorded to a HAR), the site is stopped, and Chromium loads
 * the page again through the replay proxy: every request is answered from the
 * recording and the page loads completely.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../src/browser/launch.js';
import { capturePage } from '../../src/browser/capture.js';
import { startTestSite, type TestSite } from '../../src/lab/site/test-site.js';
import { loadOrCreateCA } from '../../src/tls/ca.js';
import { loadReplayHar } from '../../src/replay/load.js';
import { startReplayServer } from '../../src/replay/server-replay.js';
import { tempDataDir } from '../proxy/harness.js';
import { chromePath } from '../browser/chrome-available.js';
import { recordHar } from './helpers.js';

const dataDir = tempDataDir();
const harFile = path.join(dataDir, 'site.har');
let site: TestSite;

beforeAll(async () => {
  site = await startTestSite({ images: 6, ca: loadOrCreateCA(dataDir) });
});
afterAll(async () => {
  await site.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function loadThrough(proxyUrl: string, spki: string) {
  const browser = await launchBrowser({ headless: true, http2: true, proxyUrl, trustSpkiHashes: [spki] });
  try {
    return await capturePage(browser, { url: site.url, quietMs: 200, timeoutMs: 20_000, expectedRequests: site.expectedRequests });
  } finally {
    await browser.close();
  }
}

describe.skipIf(!chromePath)('server replay in headless Chromium', () => {
  it('loads the recorded page with the origin stopped, every request from the recording', async () => {
    await recordHar(dataDir, harFile, site.expectedRequests, async (proxy) => {
      const first = await loadThrough(proxy.address.url, proxy.ca.leafSpkiHash);
      expect(first.failed).toEqual([]);
    });
    const { entries } = await loadReplayHar(harFile);
    expect(entries.length).toBe(site.expectedRequests);
    await site.close();

    // kill: anything not in the recording would fail in the browser and show in `failed`.
    const { proxy, replay } = await startReplayServer(entries, { extra: 'kill' }, { port: 0, dataDir, http2: true });
    try {
      const again = await loadThrough(proxy.address.url, proxy.ca.leafSpkiHash);
      expect(again.failed).toEqual([]);
      expect(again.har.log.entries.length).toBe(site.expectedRequests);
      expect(again.har.log.entries.every((e) => e.response.status === 200)).toBe(true);
      const report = replay.report();
      expect(report.served).toBe(site.expectedRequests);
      expect(report.unmatched).toEqual({ forward: 0, '404': 0, kill: 0 });
      expect(report.unused).toBe(0);
    } finally {
      await proxy.stop();
    }
  }, 90_000);
});
