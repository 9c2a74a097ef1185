/**
 * Marks browser-side `wait` (TTFB) values that Chrome's timing cannot support.
 *
 * chrome-har-capturer computes `wait = receiveHeadersEnd - sendEnd`. Over HTTP/2
 * Chrome may record `sendEnd` late: after the response's first header bytes had
 * already arrived (`receiveHeadersStart`), e.g. when the stream's send completion
 * is processed in the same task as the response. The difference is then ~0.1 ms,
 * not a real time to first byte, and a median over such entries reports a
 * server that answers in 0.1 ms. Such entries get `timings._waitUnknown: true`
 * (HAR requires a number, so `wait` itself stays) and, where Chrome gives
 * `receiveHeadersStart`, `timings._ttfbFromSendStart`: the first header byte
 * measured from the start of the send, a real upper bound of the wait.
 * Consumers (lab/measure.ts) leave unknown waits out.
 */
import type { CdpEvent } from 'chrome-har-capturer';
import type { Har } from '../har/types.js';

interface ResourceTiming {
  sendStart?: number;
  sendEnd?: number;
  receiveHeadersStart?: number;
  receiveHeadersEnd?: number;
}

/** Whether Chrome's timing puts the end of the send after the first response byte. */
export function sendEndIsLate(t: ResourceTiming): boolean {
  const first = t.receiveHeadersStart;
  return typeof first === 'number' && first > 0 && typeof t.sendEnd === 'number' && t.sendEnd > first;
}

/** Marks the entries of `har` (built from `log`) whose wait is unknown; returns how many. */
export function markUnknownWaits(log: readonly CdpEvent[], har: Har): number {
  // The last response timing per request id, in the order requests were first seen (the order of the HAR's entries).
  const urlOf = new Map<string, string>();
  const timingOf = new Map<string, ResourceTiming>();
  for (const ev of log) {
    const p = ev.params as { requestId?: string; request?: { url?: string }; response?: { url?: string; timing?: ResourceTiming } };
    if (!p.requestId) continue;
    if (ev.method === 'Network.requestWillBeSent' && p.request?.url) urlOf.set(p.requestId, p.request.url);
    else if (ev.method === 'Network.responseReceived' && p.response?.timing) timingOf.set(p.requestId, p.response.timing);
  }
  const byUrl = new Map<string, ResourceTiming[]>();
  for (const [id, url] of urlOf) {
    const t = timingOf.get(id);
    if (!t) continue;
    const list = byUrl.get(url) ?? [];
    list.push(t);
    byUrl.set(url, list);
  }
  let marked = 0;
  for (const e of har.log.entries) {
    const t = byUrl.get(e.request.url)?.shift();
    if (!t || !sendEndIsLate(t)) continue;
    e.timings._waitUnknown = true;
    if (typeof t.sendStart === 'number' && t.sendStart >= 0) {
      e.timings._ttfbFromSendStart = Math.round((t.receiveHeadersStart! - t.sendStart) * 1000) / 1000;
    }
    marked++;
  }
  return marked;
}
