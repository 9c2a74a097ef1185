/**
 * Child-process entry of the test site (see site-process.ts). Starts the site
 * with the options it receives over IPC, reports its address, and exits when
 * told to or when the parent goes away (IPC disconnect), so it never outlives the lab.
 */
import { loadOrCreateCA } from '../../tls/ca.js';
import { startTestSite, type TestSite, type TestSiteOptions } from './test-site.js';

type Options = Omit<TestSiteOptions, 'ca'> & { dataDir: string };

let site: TestSite | undefined;

process.on('disconnect', () => process.exit(0));
process.on('message', (msg: { type: 'start'; options: Options } | { type: 'close' }) => {
  void (async () => {
    try {
      if (msg.type === 'start') {
        site = await startTestSite({ ...msg.options, ca: msg.options.tls === false ? undefined : loadOrCreateCA(msg.options.dataDir) });
        const { url, port, images, latencyMs, connectionLatencyMs, expectedRequests } = site;
        process.send?.({ type: 'started', site: { url, port, images, latencyMs, connectionLatencyMs, expectedRequests } });
      } else if (msg.type === 'close') {
        await site?.close();
        process.send?.({ type: 'closed', stats: site?.stats }, () => process.exit(0));
      }
    } catch (err) {
      const e = err as Error & { code?: string };
      process.send?.({ type: 'error', code: e.code, message: e.message }, () => process.exit(1));
    }
  })();
});
