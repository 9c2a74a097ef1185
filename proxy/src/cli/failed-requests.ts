/**
 * The requests a recording saw fail, as `netlens record` names them: one line each,
 * the stable NL_* code then the URL and the reason. Through the proxy a permanent
 * upstream failure reaches the browser as a 502 (not a failed load), so the list
 * comes from the proxy's own error events, not the browser's.
 */
import type { EventStream } from '../events.js';

/** Kept in memory at most (a headed recording can run for hours); the rest are only counted. */
const KEEP = 1000;

export interface FailedRequest {
  url: string;
  code: string;
  message: string;
}

/** Collects upstream and proxy failures (the client's own aborts are not the page's failures). */
export function collectFailures(events: EventStream): { failures: FailedRequest[]; total: () => number; stop: () => void } {
  const failures: FailedRequest[] = [];
  let total = 0;
  const stop = events.subscribe((e) => {
    if (e.type !== 'error' || !e.exchange.error || e.exchange.error.side === 'client') return;
    total++;
    if (failures.length < KEEP)
      failures.push({ url: e.exchange.request.url, code: e.exchange.error.code, message: e.exchange.error.message });
  });
  return { failures, total: () => total, stop: () => void stop() };
}

/** "Failed requests (n):" and one line per request, at most `max` of them (the rest counted). */
export function formatFailures(failures: FailedRequest[], total = failures.length, max = 20): string {
  if (total === 0) return '';
  const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
  const lines = failures.slice(0, max).map((f) => `  ${f.code} ${cut(f.url, 200)}: ${cut(f.message.replace(/[\r\n]+/g, ' '), 300)}\n`);
  const shown = Math.min(max, failures.length);
  const more = total > shown ? `  … and ${total - shown} more (see _errorCode in the HAR)\n` : '';
  return `Failed requests (${total}):\n${lines.join('')}${more}`;
}
