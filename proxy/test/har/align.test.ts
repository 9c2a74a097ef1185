import { describe, expect, it } from 'vitest';
import {
  alignHars,
  BREAKDOWN_PARTS,
  estimateOffset,
  formatAlignment,
  matchEntries,
  withBrowserSide,
  type Breakdown,
} from '../../src/har/align.js';
import type { Har, HarEntry, HarTimings } from '../../src/har/types.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();

function entry(method: string, url: string, startMs: number, timings: Partial<HarTimings>, extra: Partial<HarEntry> = {}): HarEntry {
  const t: HarTimings = { blocked: -1, dns: -1, connect: -1, send: 0, wait: 0, receive: 0, ...timings };
  const time = [t.blocked, t.dns, t.connect, t.send, t.wait, t.receive].reduce<number>((s, n) => s + (n && n > 0 ? n : 0), 0);
  return {
    startedDateTime: iso(startMs),
    time,
    request: { method, url, httpVersion: 'HTTP/1.1', cookies: [], headers: [], queryString: [], headersSize: -1, bodySize: 0 },
    response: {
      status: 200,
      statusText: 'OK',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [],
      content: { size: 0, mimeType: 'text/plain' },
      redirectURL: '',
      headersSize: -1,
      bodySize: 0,
    },
    cache: {},
    timings: t,
    ...extra,
  };
}

/** A browser entry: `blocked` ms queued, then sent at `start + blocked`, ending after `time` ms in all. */
function browserEntry(url: string, start: number, blocked: number, total: number, more: Partial<HarTimings> = {}, method = 'GET') {
  return entry(method, url, start, { blocked, send: 0.1, wait: total - blocked - 0.1 - 1, receive: 1, ...more });
}

/** A proxy entry starting at `start` (proxy clock): upstream blocked/dns/connect/send/wait/receive and client leg total. */
function proxyEntry(url: string, start: number, up: Partial<HarTimings>, clientTotal: number, receiveRequest = 0.2, method = 'GET') {
  return entry(method, url, start, up, { _clientTimings: { receiveRequest, proxyOverhead: 0, respond: 0.1, total: clientTotal } });
}

const har = (entries: HarEntry[]): Har => ({ log: { version: '1.2', creator: { name: 't', version: '1' }, entries } }) as Har;
const sum = (b: Breakdown) => BREAKDOWN_PARTS.reduce((s, k) => s + b[k], 0);

describe('alignHars', () => {
  it('cuts a request into queue, client leg, proxy, upstream and back that add up to the browser time', () => {
    // Browser: start 0, queued 2 ms, sent at 2; proxy (same clock) parses the head at 3, request end 3.5,
    // upstream blocked 1 (work starts at 4), upstream ends at 3 + 11 = 14, last byte to the client at 15; browser end 16.
    const b = browserEntry('http://a/x', 0, 2, 16);
    const p = proxyEntry('http://a/x', 3, { blocked: 1, send: 1, wait: 8, receive: 1 }, 12, 0.5);
    const a = alignHars(har([b]), har([p]), { offsetMs: 0 });
    expect(a.summary.matched).toBe(1);
    const bd = a.pairs[0]!.side.breakdown;
    expect(bd).toEqual({ queue: 2, clientLeg: 1.5, proxy: 0.5 + 1, upstream: 10, back: 1 });
    expect(sum(bd)).toBeCloseTo(16, 6);
    expect(a.pairs[0]!.side.clampedMs).toBe(0);
  });

  it('counts the browser connection setup to the proxy (dns, connect) in the client leg, and -1 phases as 0', () => {
    const b = entry('GET', 'http://a/', 0, { blocked: 1, dns: -1, connect: 4, ssl: 3, send: 0.5, wait: 10, receive: 0.5 });
    const p = proxyEntry('http://a/', 6, { blocked: -1, dns: -1, connect: -1, send: 0.5, wait: 9, receive: 0.5 }, 10);
    const bd = alignHars(har([b]), har([p]), { offsetMs: 0 }).pairs[0]!.side.breakdown;
    expect(bd.queue).toBe(1);
    // Connect 4 (from 1 to 5), send, the head parsed at 6, the request received by 6.2. The upstream request
    // starts with the head (6) while the proxy still receives the request: that overlap is client leg.
    expect(bd.clientLeg).toBeCloseTo(5.2, 6);
    expect(bd.upstream).toBeCloseTo(9.8, 6);
    expect(alignHars(har([b]), har([p]), { offsetMs: 0 }).pairs[0]!.side.clampedMs).toBe(0);
    expect(sum(bd)).toBeCloseTo(16, 6);
    expect(Object.values(bd).every((n) => n >= 0)).toBe(true);
  });

  it('estimates the clock offset between browser and proxy and removes it', () => {
    // The proxy clock runs 5,000 ms ahead; each request has 1 ms to the proxy and 1 ms back.
    const browser = [0, 50, 100].map((s, i) => browserEntry(`http://a/${i}`, s, 1, 20));
    const proxy = [0, 50, 100].map((s, i) => proxyEntry(`http://a/${i}`, 5000 + s + 2, { send: 1, wait: 15, receive: 1 }, 17, 0));
    expect(estimateOffset(browser.map((b, i) => [b, proxy[i]!] as const))).toBeCloseTo(5000, 6);
    const a = alignHars(har(browser), har(proxy));
    expect(a.summary.offsetMs).toBeCloseTo(5000, 6);
    for (const x of a.pairs) {
      expect(x.side.breakdown).toEqual({ queue: 1, clientLeg: 1, proxy: 0, upstream: 17, back: 1 });
      expect(x.side.clampedMs).toBe(0);
    }
  });

  it('keeps the clocks as they are when the pairs allow it, even if one proxy end is noted late', () => {
    // Same clock; 30 ms from browser send to proxy head (a busy proxy), 1 ms back; one pair's proxy end is 5 ms late.
    const browser = [0, 50, 100, 150].map((s, i) => browserEntry(`http://a/${i}`, s, 1, 50));
    const proxy = [0, 50, 100, 150].map((s, i) => proxyEntry(`http://a/${i}`, s + 31, { wait: 18 }, i === 3 ? 23 : 18, 0));
    const a = alignHars(har(browser), har(proxy));
    expect(a.summary.offsetMs).toBe(0);
    expect(a.pairs[0]!.side.breakdown).toEqual({ queue: 1, clientLeg: 30, proxy: 0, upstream: 18, back: 1 });
    expect(a.pairs[3]!.side.clampedMs).toBe(4);
  });

  it('matches repeats of one URL by order, and by nearest start when the counts differ; reports the unmatched of both sides', () => {
    const browser = [
      browserEntry('http://a/r', 0, 0, 10),
      browserEntry('http://a/r', 100, 0, 10),
      browserEntry('http://a/r', 200, 0, 10), // served from the cache: the proxy never saw it
      browserEntry('http://a/only-browser', 5, 0, 10),
      browserEntry('http://a/p', 0, 0, 10, {}, 'POST'),
    ];
    const proxy = [
      proxyEntry('http://a/r', 101, { wait: 8 }, 8),
      proxyEntry('http://a/r', 1, { wait: 8 }, 8),
      proxyEntry('http://a/p', 1, { wait: 8 }, 8, 0.2, 'POST'),
      proxyEntry('http://a/p', 1, { wait: 8 }, 8, 0.2, 'GET'), // same URL, other method
      proxyEntry('http://a/only-proxy', 50, { wait: 8 }, 8),
    ];
    const a = alignHars(har(browser), har(proxy), { offsetMs: 0 });
    expect(a.summary.matched).toBe(3);
    const byStart = a.pairs.map((x) => [x.browser.startedDateTime, x.proxy.startedDateTime, x.proxy.request.method]);
    expect(byStart).toContainEqual([iso(0), iso(1), 'GET']);
    expect(byStart).toContainEqual([iso(100), iso(101), 'GET']);
    expect(byStart).toContainEqual([iso(0), iso(1), 'POST']);
    expect(a.summary.unmatchedBrowser.map((u) => [u.url, u.startedDateTime]).sort()).toEqual([
      ['http://a/only-browser', iso(5)],
      ['http://a/r', iso(200)],
    ]);
    expect(a.summary.unmatchedProxy.map((u) => `${u.method} ${u.url}`).sort()).toEqual(['GET http://a/only-proxy', 'GET http://a/p']);
  });

  it('pairs equal counts by order even when starts are far apart', () => {
    const m = matchEntries(
      [browserEntry('http://a/', 0, 0, 5), browserEntry('http://a/', 10, 0, 5)],
      [proxyEntry('http://a/', 1000, {}, 1), proxyEntry('http://a/', 2000, {}, 1)],
    );
    expect(m.pairs.map(([b, p]) => [b.startedDateTime, p.startedDateTime])).toEqual([
      [iso(0), iso(1000)],
      [iso(10), iso(2000)],
    ]);
  });

  it('keeps parts ≥ 0 and the sum exact when the proxy times do not fit the browser span (clamped, and says by how much)', () => {
    // The proxy claims 30 ms of client leg for a request the browser saw take 10 ms.
    const b = browserEntry('http://a/', 0, 1, 10);
    const p = proxyEntry('http://a/', 0, { wait: 25 }, 30);
    const side = alignHars(har([b]), har([p]), { offsetMs: 0 }).pairs[0]!.side;
    expect(Object.values(side.breakdown).every((n) => n >= 0)).toBe(true);
    expect(sum(side.breakdown)).toBeCloseTo(10, 6);
    expect(side.clampedMs).toBeGreaterThan(0);
  });

  it('does not use the browser wait, so entries with _waitUnknown align as any other', () => {
    const b = entry('GET', 'http://a/', 0, { blocked: 2, send: 12, wait: 0.1, receive: 1, _waitUnknown: true, _ttfbFromSendStart: 12 });
    const p = proxyEntry('http://a/', 3, { send: 0.5, wait: 9, receive: 0.5 }, 11, 0);
    const side = alignHars(har([b]), har([p]), { offsetMs: 0 }).pairs[0]!.side;
    expect(side.timings._waitUnknown).toBe(true);
    expect(side.breakdown).toEqual({ queue: 2, clientLeg: 1, proxy: 1, upstream: 10, back: 1.1 });
    expect(sum(side.breakdown)).toBeCloseTo(b.time, 6);
  });

  it('writes _browser on matched proxy entries and _alignment on the log, and formats a summary', () => {
    const browser = har([browserEntry('http://a/', 0, 1, 10), browserEntry('http://a/b', 0, 1, 10)]);
    const proxy = har([proxyEntry('http://a/', 2, { wait: 6 }, 7), proxyEntry('http://a/zzz', 2, { wait: 6 }, 7)]);
    const a = alignHars(browser, proxy, { offsetMs: 0 });
    const out = withBrowserSide(proxy, a);
    expect(out.log.entries[0]!._browser).toMatchObject({ time: 10, breakdown: a.pairs[0]!.side.breakdown });
    expect(out.log.entries[1]!._browser).toBeUndefined();
    expect(out.log._alignment).toMatchObject({ matched: 1, browserEntries: 2, proxyEntries: 2 });
    expect(proxy.log.entries[0]!._browser).toBeUndefined(); // the input is left alone
    expect(formatAlignment(a.summary)).toMatch(/^matched 1 of 2 browser requests \(proxy entries 2\); median ms: queue 1\.0, client leg/);
  });
});
