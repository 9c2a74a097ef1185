/**
 * Real Chromium over HTTP/2 (issue 13 item 6): each disposed browser context used
 * to leave about one proxy socket in CLOSE-WAIT (Chromium drops its connections
 * without a TLS close_notify). Ten contexts, each loading a page through the
 * intercepting proxy, then disposed: no CLOSE-WAIT, fds back to baseline.
 */
import http from 'node:http';
import CDP from 'chrome-remote-interface';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type BrowserHandle } from '../../src/browser/launch.js';
import { chromePath } from '../browser/chrome-available.js';
import { httpsOrigin, tempDataDir, testProxy, type Origin, type TestProxy } from '../proxy/harness.js';
import { closeWaitCount, eventually, fdCount, sleep } from './lifecycle-helpers.js';

const CONTEXTS = 10;

/** The Target domain calls used here (the vendored CdpClient type lists only what the core uses). */
interface TargetDomain {
  createBrowserContext(params: object): Promise<{ browserContextId: string }>;
  createTarget(params: { url: string; browserContextId: string }): Promise<{ targetId: string }>;
  disposeBrowserContext(params: { browserContextId: string }): Promise<void>;
}

describe.skipIf(!chromePath)('real Chromium browser contexts (HTTP/2 through the proxy)', () => {
  let tp: TestProxy;
  let origin: Origin;
  let browser: BrowserHandle;

  beforeAll(async () => {
    tp = await testProxy({ dataDir: tempDataDir() });
    origin = await httpsOrigin(tp.proxy.ca, { h2: true }, (_req, anyRes) => {
      const res = anyRes as http.ServerResponse;
      res.setHeader('content-type', 'text/html');
      res.end('<html><body>hi<img src="/a.png"><img src="/b.png"></body></html>');
    });
    browser = await launchBrowser({ chromePath, proxyUrl: tp.proxy.address.url, trustSpkiHashes: [tp.proxy.ca.leafSpkiHash] });
  });
  afterAll(async () => {
    await browser?.close();
    await tp?.stop();
    await origin?.close();
  });

  it(`${CONTEXTS} disposed contexts leave no socket in CLOSE-WAIT`, { timeout: 120_000 }, async () => {
    const client = await CDP({ port: browser.port, target: browser.wsEndpoint });
    const Target = (client as unknown as { Target: TargetDomain }).Target;
    try {
      const base = fdCount();
      for (let i = 0; i < CONTEXTS; i++) {
        const { browserContextId } = await Target.createBrowserContext({});
        await Target.createTarget({ url: `https://localhost:${origin.port}/ctx${i}`, browserContextId });
        // Dispose once the page's request went through the proxy (a loaded machine can take longer than a second).
        await eventually(() => tp.exchanges().some((x) => x.request.url.endsWith(`/ctx${i}`)), 15_000, 100);
        await sleep(300);
        await Target.disposeBrowserContext({ browserContextId });
      }
      expect(tp.exchanges().filter((x) => x.request.url.includes('/ctx') && x.clientProtocol === 'h2').length).toBeGreaterThanOrEqual(
        CONTEXTS,
      );
      const port = tp.proxy.address.port;
      const clean = await eventually(() => closeWaitCount(port) === 0 && fdCount() <= base + 5, 10_000, 200);
      expect(clean, `fds ${base} → ${fdCount()}, CLOSE-WAIT ${closeWaitCount(port)}`).toBe(true);
    } finally {
      await client.close();
    }
  });
});
