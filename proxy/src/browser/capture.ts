/**
 * Loads one URL in a launched browser and returns its browser-side HAR.
 *
 * We drive DevTools ourselves (chrome-remote-interface) and hand the raw event
 * log to chrome-har-capturer's `fromLog`, rather than its `run()`, because of
 * the library's known caveats:
 *  - `run()` stops at the `load` event, so late requests (images lazily added,
 *    fetches after load) are missing: we wait for network idle instead (no
 *    request in flight for `quietMs` after `load`);
 *  - it drops failed requests from the HAR: we count them from the events and
 *    the caller fails a run whose HAR is shorter than the page;
 *  - entry `startedDateTime` is wall clock while durations are monotonic: the
 *    page-level numbers here (first request → last response end) come from the
 *    monotonic DevTools timestamps only.
 */
import type { CdpClient } from 'chrome-remote-interface';
import type { CdpEvent } from 'chrome-har-capturer';
import { lazyRequire } from '../lazy-require.js';
import type { Har } from '../har/types.js';
import { markUnknownWaits } from './unknown-waits.js';
import { ErrorCodes, NetlensError } from '../errors.js';
import type { BrowserHandle } from './launch.js';
import { plural } from '../plural.js';

const cdp = lazyRequire<(typeof import('chrome-remote-interface'))['default']>('chrome-remote-interface');
const harCapturer = lazyRequire<typeof import('chrome-har-capturer')>('chrome-har-capturer');

export interface CaptureOptions {
  url: string;
  /** Network idle: no request in flight for this long after `load`. Default 500 ms. */
  quietMs?: number;
  /** Whole page load limit. Default 60 s. */
  timeoutMs?: number;
  /** Fail when the HAR has fewer entries than this. Default 1. */
  expectedRequests?: number;
  signal?: AbortSignal;
}

export interface PageCapture {
  har: Har;
  /** Monotonic: first request sent → last response finished (or failed), ms. */
  loadMs: number;
  /** Requests that failed in the browser (not in the HAR). */
  failed: Array<{ url: string; errorText: string }>;
  /** DevTools events seen (for debugging a short HAR). */
  eventCount: number;
}

/** Events chrome-har-capturer's fromLog reads (see its README). */
const HAR_EVENTS = new Set([
  'Page.domContentEventFired',
  'Page.loadEventFired',
  'Network.requestWillBeSent',
  'Network.dataReceived',
  'Network.responseReceived',
  'Network.resourceChangedPriority',
  'Network.loadingFinished',
  'Network.loadingFailed',
]);

const POLL_MS = 25;

export async function capturePage(browser: Pick<BrowserHandle, 'port'>, options: CaptureOptions): Promise<PageCapture> {
  const quietMs = options.quietMs ?? 500;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const signal = options.signal;
  signal?.throwIfAborted();

  // One deadline for the whole capture, raced against every DevTools call: a
  // stalled server can leave Page.navigate (and even Network.enable on a busy
  // page) unanswered forever.
  let stage = 'connecting to the browser';
  let deadlineTimer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopper = new Promise<never>((_, reject) => {
    deadlineTimer = setTimeout(
      () => reject(new NetlensError(ErrorCodes.PAGE_LOAD, `${options.url} did not finish loading within ${timeoutMs} ms (${stage})`)),
      timeoutMs,
    );
    onAbort = () => reject(new NetlensError(ErrorCodes.LAB_ABORTED, 'Cancelled while the page was loading'));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  stopper.catch(() => undefined); // observed through the races below
  const bounded = <T>(p: Promise<T>): Promise<T> => Promise.race([p, stopper]);

  let client: CdpClient | undefined;
  try {
    client = await bounded(
      cdp()({
        host: '127.0.0.1',
        port: browser.port,
        // The first page target: the about:blank tab the browser was launched with.
        target: (targets) => targets.find((t) => t.type === 'page') ?? targets[0],
        local: true, // use the bundled protocol descriptor; do not fetch it from the browser
      }),
    );
    const log: CdpEvent[] = [];
    const inflight = new Map<string, string>();
    const failed: PageCapture['failed'] = [];
    let firstRequestS = Infinity;
    let lastEndS = -Infinity;
    let lastActivity = performance.now();
    let loaded = false;

    client.on('event', (message: { method: string; params: Record<string, unknown> }) => {
      if (!HAR_EVENTS.has(message.method)) return;
      log.push({ method: message.method, params: message.params });
      const p = message.params as { requestId?: string; timestamp?: number; request?: { url: string }; errorText?: string };
      lastActivity = performance.now();
      switch (message.method) {
        case 'Network.requestWillBeSent':
          if (p.request && !p.request.url.startsWith('data:')) {
            inflight.set(p.requestId!, p.request.url);
            firstRequestS = Math.min(firstRequestS, p.timestamp!);
          }
          break;
        case 'Network.loadingFinished':
        case 'Network.loadingFailed':
          if (inflight.has(p.requestId!)) {
            if (message.method === 'Network.loadingFailed')
              failed.push({ url: inflight.get(p.requestId!)!, errorText: p.errorText ?? 'failed' });
            inflight.delete(p.requestId!);
            lastEndS = Math.max(lastEndS, p.timestamp!);
          }
          break;
        case 'Page.loadEventFired':
          loaded = true;
          break;
      }
    });

    stage = 'enabling DevTools domains';
    await bounded(client.Network.enable());
    await bounded(client.Page.enable());
    // A fresh profile has an empty cache, but a page may load one URL twice: measure the network every time.
    await bounded(client.Network.setCacheDisabled({ cacheDisabled: true }));

    stage = 'no response head yet';
    const nav = await bounded(client.Page.navigate({ url: options.url }));
    if (nav.errorText) {
      throw new NetlensError(ErrorCodes.PAGE_LOAD, `${options.url} did not load: ${nav.errorText}`);
    }
    // Wait for load, then for the network to stay idle for quietMs.
    for (;;) {
      stage = `${loaded ? 'load fired' : 'no load event'}, ${inflight.size} request(s) still in flight${inflight.size ? `, e.g. ${[...inflight.values()].slice(0, 3).join(', ')}` : ''}`;
      if (loaded && inflight.size === 0 && performance.now() - lastActivity >= quietMs) break;
      await bounded(new Promise((r) => setTimeout(r, POLL_MS)));
    }

    let har: Har;
    try {
      har = await harCapturer().fromLog(options.url, log);
      markUnknownWaits(log, har);
    } catch (err) {
      throw new NetlensError(ErrorCodes.PAGE_LOAD, `Could not build a HAR for ${options.url}: ${(err as Error).message}`, { cause: err });
    }
    const expected = options.expectedRequests ?? 1;
    if (har.log.entries.length < expected) {
      const failedWhy = failed.length
        ? `; failed: ${failed
            .slice(0, 3)
            .map((f) => `${f.url} (${f.errorText})`)
            .join(', ')}`
        : '';
      // A page answered with an error (a proxy's 502, a 404) loads none of its subresources: say so, it is the cause.
      const doc = har.log.entries.find((e) => e.request.url === options.url);
      const status =
        doc && doc.response.status >= 400
          ? `; the page itself answered ${doc.response.status}${doc.response.statusText ? ` ${doc.response.statusText}` : ''}`
          : '';
      const why = status + failedWhy;
      throw new NetlensError(
        ErrorCodes.PAGE_LOAD,
        `The browser HAR of ${options.url} has ${plural(har.log.entries.length, 'entry', 'entries')}, fewer than the ${expected} the page loads${why}`,
      );
    }
    return { har, loadMs: (lastEndS - firstRequestS) * 1000, failed, eventCount: log.length };
  } finally {
    clearTimeout(deadlineTimer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    // Closing the DevTools socket must not hang either (the browser is killed next anyway).
    await Promise.race([client?.close().catch(() => undefined), new Promise((r) => setTimeout(r, 1000).unref())]);
  }
}
