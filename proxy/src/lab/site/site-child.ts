/** Child-process entry of the test site (see site-process.ts and ../child-process.ts). */
import { loadOrCreateCA } from '../../tls/ca.js';
import { serveLabChild } from '../child-process.js';
import type { SiteInfo } from './site-process.js';
import { startTestSite, type TestSite, type TestSiteOptions, type TestSiteStats } from './test-site.js';

type Options = Omit<TestSiteOptions, 'ca'> & { dataDir: string };

let site: TestSite | undefined;

serveLabChild<Options, SiteInfo, TestSiteStats | undefined>(
  async (options) => {
    site = await startTestSite({ ...options, ca: options.tls === false ? undefined : loadOrCreateCA(options.dataDir) });
    const { url, port, images, latencyMs, connectionLatencyMs, expectedRequests } = site;
    return { url, port, images, latencyMs, connectionLatencyMs, expectedRequests };
  },
  async () => {
    await site?.close();
    return site?.stats;
  },
);
