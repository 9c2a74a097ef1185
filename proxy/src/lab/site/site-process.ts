/**
 * Runs the test site in its own Node process.
 *
 * Why: an origin sharing an event loop with the proxy (or with the lab's
 * browser capture) would make every proxy cell also pay for the origin's TLS
 * and small writes queued behind other work (and the reverse), a cost no real
 * deployment has and direct cells do not pay. A separate process gives the
 * origin its own event loop, as a real server would have.
 */
import { appPaths } from '../../app-paths.js';
import { startLabChild } from '../child-process.js';
import type { TestSiteOptions, TestSiteStats } from './test-site.js';

export interface TestSiteProcess {
  url: string;
  port: number;
  images: number;
  latencyMs: number;
  connectionLatencyMs: number;
  expectedRequests: number;
  pid: number;
  /** Stops the site and its process; resolves with what it served. Idempotent. */
  close(): Promise<TestSiteStats | undefined>;
}

export type SiteInfo = Omit<TestSiteProcess, 'pid' | 'close'>;

export async function startTestSiteProcess(options: Omit<TestSiteOptions, 'ca'> & { dataDir: string }): Promise<TestSiteProcess> {
  const child = await startLabChild<SiteInfo, TestSiteStats>('test site', appPaths().labChildren.site, options);
  return { ...child.info, pid: child.pid, close: child.close };
}
