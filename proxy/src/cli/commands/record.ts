import fs from 'node:fs';
import path from 'node:path';
import { capturePage } from '../../browser/capture.js';
import { launchBrowser, type BrowserHandle } from '../../browser/launch.js';
import { exportJournal } from '../../har/journal.js';
import { HarRecorder } from '../../har/recorder.js';
import { alignHars, formatAlignment, withBrowserSide } from '../../har/align.js';
import type { Har } from '../../har/types.js';
import { startProxy, type ProxyHandle } from '../../server/proxy-server.js';
import { EXIT_OK, intFlag, UsageError, type CliCommand } from '../command.js';
import { dataDirFlag, insecureFlag, upstreamCAFlag } from '../flags.js';
import { rulesFlag, rulesHelp } from '../rules-flag.js';
import { plural } from '../format.js';
import { collectFailures, formatFailures } from '../failed-requests.js';
import { ErrorCodes } from '../../errors.js';

export const recordCommand: CliCommand = {
  name: 'record',
  summary: 'load a URL in Chrome through the proxy and save the HAR (proxy side, optionally browser side)',
  help: `Usage: netlens record URL [flags]

Starts the proxy on a free port, launches Chrome through it (fresh profile,
trusting only the Netlens certificates), loads URL, waits until the network is
idle, and saves what the proxy recorded as a HAR 1.2 file. With --headed the
window stays open: browse on, then press Ctrl-C (or close the window) to save.

Flags:
  --out FILE          proxy-side HAR (default netlens-<time>.har in the current directory)
  --browser-har FILE  also save the browser-side HAR (chrome-har-capturer) of the first page load
                      and add each matched request's browser side to the proxy HAR (_browser)
  --headed            show the browser window and keep recording until Ctrl-C or the window closes
  --no-intercept      CONNECT as a blind tunnel: HTTPS requests are not recorded inside
  --no-http2          HTTP/1.1 only (browser and proxy)
  --nagle             leave Nagle's algorithm on for the proxy's sockets
  --quiet-ms MS       network idle that ends the page load (default 500)
  --timeout-ms MS     give up on the page load after MS (default 60000)
  --upstream-ca FILE  also trust this CA (PEM) for upstream TLS; repeatable
  --insecure          do not verify upstream certificates (testing only; prints a warning)
  --data-dir DIR      data directory holding the CA
${rulesHelp(22)}

Examples:
  netlens record https://example.com/ --out example.har --browser-har example.browser.har
  netlens record https://127.0.0.1:8443/ --no-http2 --nagle
`,
  options: {
    out: { type: 'string' },
    'browser-har': { type: 'string' },
    headed: { type: 'boolean' },
    'no-intercept': { type: 'boolean' },
    'no-http2': { type: 'boolean' },
    nagle: { type: 'boolean' },
    'quiet-ms': { type: 'string' },
    'timeout-ms': { type: 'string' },
    'upstream-ca': { type: 'string', multiple: true },
    insecure: { type: 'boolean' },
    'data-dir': { type: 'string' },
    rules: { type: 'string' },
  },
  maxPositionals: 1,
  async run({ values, positionals, stdout, stderr, env, stopSignal }) {
    const url = positionals[0];
    if (!url) throw new UsageError('give the URL to record, e.g. "netlens record https://example.com/"');
    try {
      if (!/^https?:$/.test(new URL(url).protocol)) throw new Error();
    } catch {
      throw new UsageError(`"${url}" is not an http:// or https:// URL`);
    }
    const out = path.resolve(values.out ? String(values.out) : `netlens-${new Date().toISOString().replace(/[:.]/g, '-')}.har`);
    const browserHarFile = values['browser-har'] ? path.resolve(String(values['browser-har'])) : undefined;
    const quietMs = intFlag(values, 'quiet-ms', 500, 0, 60_000);
    const timeoutMs = intFlag(values, 'timeout-ms', 60_000, 1000, 3_600_000);
    const dataDir = dataDirFlag(values, env);
    const upstreamCA = upstreamCAFlag(values);
    const insecureUpstream = insecureFlag(values, stderr);
    const http2 = !values['no-http2'];
    const headed = Boolean(values.headed);
    const rules = rulesFlag(values, stderr);

    const abort = new AbortController();
    let stopped = false;
    void stopSignal.then(() => {
      stopped = true;
      abort.abort();
    });
    const journal = `${out}.journal`;
    let proxy: ProxyHandle | undefined;
    let recorder: HarRecorder | undefined;
    let browser: BrowserHandle | undefined;
    let failures: ReturnType<typeof collectFailures> | undefined;
    let browserHar: Har | undefined;
    try {
      proxy = await startProxy({
        port: 0,
        intercept: !values['no-intercept'],
        http2,
        nagle: Boolean(values.nagle),
        dataDir,
        upstreamCA,
        insecureUpstream,
        rules: rules?.holder,
      });
      fs.rmSync(journal, { force: true });
      recorder = new HarRecorder(proxy.events, { journalFile: journal, name: `record ${url}`, timeline: proxy.timeline });
      failures = collectFailures(proxy.events);
      stderr.write(`Proxy on ${proxy.address.url}; launching Chrome${headed ? '' : ' (headless)'}…\n`);
      browser = await launchBrowser({
        headless: !headed,
        http2,
        proxyUrl: proxy.address.url,
        trustSpkiHashes: [proxy.ca.leafSpkiHash],
        signal: abort.signal,
      });
      const capture = await capturePage(browser, { url, quietMs, timeoutMs, signal: abort.signal });
      stderr.write(
        `Loaded ${url}: ${plural(capture.har.log.entries.length, 'request')} in ${capture.loadMs.toFixed(0)} ms${capture.failed.length ? `, ${capture.failed.length} failed` : ''}\n`,
      );
      browserHar = capture.har;
      if (browserHarFile) {
        fs.writeFileSync(browserHarFile, JSON.stringify(capture.har, null, 2));
        stdout.write(`Browser HAR: ${browserHarFile}\n`);
      }
      if (headed && !stopped) {
        stderr.write('Recording: browse in the window, then press Ctrl-C or close the window to save.\n');
        await Promise.race([stopSignal, browser.exited]);
      }
    } catch (err) {
      if (!(stopped && (err as { code?: string }).code === ErrorCodes.LAB_ABORTED)) throw err;
    } finally {
      await browser?.close();
      recorder?.stop();
      failures?.stop();
      await proxy?.stop();
      rules?.close();
    }
    if (recorder) {
      const written = await exportJournal(journal, out);
      fs.rmSync(journal, { force: true });
      stdout.write(
        `Proxy HAR: ${out} (${plural(recorder.stats.entries, 'entry', 'entries')}${written.skipped ? `, ${written.skipped} unreadable` : ''})\n`,
      );
      // Browser and proxy side by side (har/align.ts): each matched proxy entry gets `_browser`, the log `_alignment`.
      if (browserHar && browserHarFile) {
        const proxyHar = JSON.parse(fs.readFileSync(out, 'utf8')) as Har;
        const alignment = alignHars(browserHar, proxyHar);
        fs.writeFileSync(out, JSON.stringify(withBrowserSide(proxyHar, alignment), null, 2));
        stdout.write(`Browser and proxy: ${formatAlignment(alignment.summary)}`);
      }
    }
    // Each URL the proxy could not fetch, with its code: the HAR has them too, but nobody should have to dig.
    if (failures) stdout.write(formatFailures(failures.failures, failures.total()));
    return EXIT_OK;
  },
};
