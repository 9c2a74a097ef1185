import { describe, expect, it } from 'vitest';
import type { ExchangeTimestamps, Timings } from '../../src/model.js';
import { computeClientTimings, computeTimings } from '../../src/upstream/timings.js';

const phaseSum = (t: Timings) => [t.blocked, t.dns, t.connect, t.send, t.wait, t.receive].filter((n) => n > 0).reduce((a, b) => a + b, 0);

describe('computeTimings', () => {
  it('a new connection dialled by the request: dns, connect and ssl are its setup, blocked only the wait before the dial', () => {
    const t = computeTimings({
      start: 100,
      dialStart: 102,
      dnsEnd: 103,
      connectEnd: 105,
      tlsEnd: 110,
      upstreamAssigned: 110.5,
      requestSent: 111,
      responseHeaders: 131,
      responseEnd: 140,
    });
    expect(t).toEqual({ blocked: 2.5, dns: 1, connect: 7, ssl: 5, send: 0.5, wait: 20, receive: 9, total: 40 });
    expect(phaseSum(t)).toBeCloseTo(t.total, 6);
  });

  it('the reported bug: a setup over before the connection was assigned is still connect, not blocked, never counted twice', () => {
    // The old code took upstreamAssigned after the protocol probe: connect 0, ssl 0, blocked = the handshake, send from tlsEnd.
    const t = computeTimings({
      start: 0,
      dialStart: 0.2,
      connectEnd: 5,
      tlsEnd: 19,
      upstreamAssigned: 19.5,
      requestSent: 19.6,
      responseHeaders: 30,
      responseEnd: 35,
    });
    expect(t.connect).toBe(18.8);
    expect(t.ssl).toBe(14);
    expect(t.blocked).toBe(0.7);
    expect(t.total).toBe(35);
    expect(phaseSum(t)).toBeCloseTo(35, 6);
  });

  it('a reused connection (set up before the request started): dns, connect, ssl are -1', () => {
    const t = computeTimings({
      start: 50,
      dialStart: 1,
      dnsEnd: 2,
      connectEnd: 3,
      tlsEnd: 4,
      upstreamAssigned: 50.2,
      requestSent: 50.3,
      responseHeaders: 60,
      responseEnd: 61,
    });
    expect([t.dns, t.connect, t.ssl]).toEqual([-1, -1, -1]);
    expect(t.blocked).toBe(0.2);
    expect(t.total).toBe(11);
  });

  it('waiting for a preconnect (or an HTTP/2 session) already in flight counts only the part after the request started', () => {
    const t = computeTimings({
      start: 10,
      dialStart: 2,
      dnsEnd: 3,
      connectEnd: 8,
      tlsEnd: 16,
      upstreamAssigned: 16,
      requestSent: 16,
      responseHeaders: 20,
      responseEnd: 20,
    });
    expect(t.dns).toBe(-1); // the lookup was over before the request came
    expect(t.connect).toBe(6);
    expect(t.ssl).toBe(6); // the TCP connect was over too: only TLS was waited for
    expect(t.blocked).toBe(0);
    expect(t.total).toBe(10);
  });

  it('a retry: the failed attempt and the backoff are blocked; dns/connect are the new connection', () => {
    // forward.ts clears the attempt's timestamps; the second attempt's connection was dialled at 30.
    const t = computeTimings({
      start: 0,
      dialStart: 30,
      connectEnd: 31,
      upstreamAssigned: 31.5,
      requestSent: 32,
      responseHeaders: 40,
      responseEnd: 41,
    });
    expect(t.blocked).toBe(30.5);
    expect(t.connect).toBe(1);
    expect(t.ssl).toBe(-1);
    expect(t.dns).toBe(-1);
    expect(phaseSum(t)).toBeCloseTo(41, 6);
  });

  it('an origin answering before the request body was sent: send ends at the response head, wait is 0', () => {
    const t = computeTimings({ start: 0, upstreamAssigned: 1, requestSent: 50, responseHeaders: 10, responseEnd: 60 });
    expect(t).toMatchObject({ send: 9, wait: 0, receive: 50, total: 60 });
  });

  it('clock jitter (a timestamp a hair before the previous one) gives 0, never a negative phase', () => {
    const t = computeTimings({ start: 5, upstreamAssigned: 4.9999, requestSent: 4.9998, responseHeaders: 6, responseEnd: 5.9 });
    for (const v of [t.blocked, t.send, t.wait, t.receive, t.total]) expect(v).toBeGreaterThanOrEqual(0);
    expect(phaseSum(t)).toBeCloseTo(t.total, 6);
  });

  it('phases that did not happen are -1 (failed before a connection)', () => {
    const t = computeTimings({ start: 0 });
    expect(t).toEqual({ blocked: -1, dns: -1, connect: -1, ssl: -1, send: -1, wait: -1, receive: -1, total: 0 });
  });

  it('random timestamp orders: phases ≥ 0 or -1, sum = total, client total ≥ upstream total', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 50;
    for (let i = 0; i < 2000; i++) {
      const ts: ExchangeTimestamps = { start: rnd() };
      const keys = [
        'dialStart',
        'dnsEnd',
        'connectEnd',
        'tlsEnd',
        'upstreamAssigned',
        'requestSent',
        'responseHeaders',
        'responseEnd',
        'clientResponseEnd',
      ] as const;
      for (const k of keys) if (rnd() > 10) ts[k] = rnd();
      const t = computeTimings(ts);
      for (const [k, v] of Object.entries(t)) if (k !== 'total') expect(v === -1 || v >= 0, `${k}=${v}`).toBe(true);
      expect(Math.abs(phaseSum(t) - t.total)).toBeLessThan(0.01);
      const c = computeClientTimings(ts, t);
      if (c.total >= 0) expect(c.total).toBeGreaterThanOrEqual(t.total);
    }
  });
});
