import { describe, expect, it } from 'vitest';
import type { Har } from '../../src/har/types.js';
import { markUnknownWaits, sendEndIsLate } from '../../src/browser/unknown-waits.js';
import { browserMetrics } from '../../src/lab/measure.js';

const entry = (url: string, wait: number) =>
  ({
    startedDateTime: '',
    time: wait,
    request: { url, method: 'GET', httpVersion: 'h2', headers: [] },
    response: { status: 200, httpVersion: 'h2', headers: [] },
    timings: { send: 0, wait, receive: 1 },
  }) as never;

function event(method: string, params: Record<string, unknown>) {
  return { method, params };
}

describe('unknown browser waits (Chrome HTTP/2 sendEnd after the first response byte)', () => {
  it('flags a sendEnd later than receiveHeadersStart, not a normal timing', () => {
    expect(sendEndIsLate({ sendStart: 1, sendEnd: 21.9, receiveHeadersStart: 21, receiveHeadersEnd: 22 })).toBe(true);
    expect(sendEndIsLate({ sendStart: 1, sendEnd: 1.2, receiveHeadersStart: 21, receiveHeadersEnd: 22 })).toBe(false);
    // Older Chrome without receiveHeadersStart: nothing to judge by.
    expect(sendEndIsLate({ sendStart: 1, sendEnd: 21.9, receiveHeadersEnd: 22 })).toBe(false);
  });

  it('marks the matching entries and the lab leaves them out of the TTFB median', () => {
    const log = [
      event('Network.requestWillBeSent', { requestId: 'a', request: { url: 'https://x/a' } }),
      event('Network.requestWillBeSent', { requestId: 'b', request: { url: 'https://x/b' } }),
      event('Network.requestWillBeSent', { requestId: 'c', request: { url: 'https://x/b' } }),
      event('Network.responseReceived', {
        requestId: 'a',
        response: { timing: { sendStart: 1, sendEnd: 1.1, receiveHeadersStart: 21, receiveHeadersEnd: 21.2 } },
      }),
      event('Network.responseReceived', {
        requestId: 'b',
        response: { timing: { sendStart: 1, sendEnd: 25.9, receiveHeadersStart: 25, receiveHeadersEnd: 26 } },
      }),
      event('Network.responseReceived', {
        requestId: 'c',
        response: { timing: { sendStart: 2, sendEnd: 30.95, receiveHeadersStart: 30, receiveHeadersEnd: 31 } },
      }),
    ];
    const har = {
      log: {
        version: '1.2',
        creator: { name: 't', version: '1' },
        entries: [entry('https://x/a', 20.1), entry('https://x/b', 0.1), entry('https://x/b', 0.05)],
      },
    } as unknown as Har;
    expect(markUnknownWaits(log, har)).toBe(2);
    const [a, b, c] = har.log.entries;
    expect(a.timings._waitUnknown).toBeUndefined();
    expect(b.timings._waitUnknown).toBe(true);
    expect(b.timings._ttfbFromSendStart).toBe(24);
    expect(c.timings._ttfbFromSendStart).toBe(28);
    const m = browserMetrics(har);
    expect(m.ttfbMedianMs).toBe(20.1);
  });
});

describe('lab analysis of unknown TTFB', () => {
  it('leaves runs whose TTFB is unknown (-1) out instead of averaging them', async () => {
    const { metricValues } = await import('../../src/lab/analyze.js');
    const runs = [
      { ok: true, ttfbMedianMs: 20 },
      { ok: true, ttfbMedianMs: -1 },
      { ok: true, ttfbMedianMs: 22 },
    ] as never[];
    expect(metricValues(runs, 'ttfbMedianMs')).toEqual([20, 22]);
  });
});
