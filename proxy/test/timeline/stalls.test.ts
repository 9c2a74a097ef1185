/**
 * Nagle meeting delayed ACK, reproduced on loopback: an origin flushes its response
 * head, then writes the body in small writes a millisecond apart; the proxy relays
 * each write to a keep-alive client. With Nagle on the proxy's client socket, a
 * small write behind an unacknowledged one waits for the client's delayed ACK, and
 * the stall detector must flag it; with Nagle off it must flag nothing.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionStalls, stallWallMs, summarizeStalls } from '../../src/timeline/stalls.js';
import type { ConnectionTimeline } from '../../src/timeline/types.js';
import { httpOrigin, testProxy, type Origin } from '../proxy/harness.js';

const PARTS = 4;
let origin: Origin;

beforeAll(async () => {
  origin = await httpOrigin((_req, res) => {
    const r = res as http.ServerResponse;
    r.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(PARTS * 100) });
    r.flushHeaders();
    let i = 0;
    const next = () => {
      r.write(Buffer.alloc(100, 97 + i));
      if (++i < PARTS) setTimeout(next, 1);
      else r.end();
    };
    setTimeout(next, 1);
  });
});
afterAll(() => origin.close());

/** Sequential GETs on one keep-alive connection; returns each one's client-side time, ms. */
async function run(port: number, n: number): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await new Promise<void>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path: `${origin.url}/s${i}`, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve());
      });
      req.once('error', reject);
    });
    times.push(performance.now() - t0);
  }
  agent.destroy();
  return times;
}

async function session(nagle: boolean) {
  const tp = await testProxy({ nagle });
  try {
    const warmup = 5;
    const times = await run(tp.proxy.address.port, warmup + 15);
    const xs = await tp.waitFor(warmup + 15);
    const conns = tp.proxy.timeline!.toLog()._connections;
    return { times: times.slice(warmup), summary: summarizeStalls(conns), xs };
  } finally {
    await tp.stop();
  }
}

const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];

describe('stall detection', () => {
  it('flags Nagle + delayed-ACK stalls with Nagle on, none with Nagle off (side by side)', async () => {
    const off = await session(false);
    const on = await session(true);
    console.log(
      `median client time: nagle off ${median(off.times).toFixed(1)} ms, on ${median(on.times).toFixed(1)} ms; ` +
        `stalls off ${off.summary.count}, on ${on.summary.count} (${on.summary.ms} ms)`,
    );
    expect(off.summary.count).toBe(0);
    expect(on.summary.count).toBeGreaterThan(0);
    // The stalls show in what the client saw: Nagle on is slower.
    expect(median(on.times)).toBeGreaterThan(median(off.times));
    const s = on.summary.stalls[0];
    expect(s.message).toMatch(/Nagle/);
    expect(s.message).toMatch(/delayed ACK/);
    expect(s.exchangeId).toBeDefined();
    expect(on.summary.byExchange.get(s.exchangeId!)!.count).toBeGreaterThan(0);
  }, 30_000);

  it('the rule on synthetic timelines: small write behind an unacknowledged one, then silence', () => {
    const c = (events: ConnectionTimeline['events']): ConnectionTimeline => ({ id: 'c1', leg: 'client', opened: 0, events });
    const held = c([
      { t: 0, d: 'r', n: 80, x: 'x1' },
      { t: 1, d: 'w', n: 300, nagle: true, x: 'x1' },
      { t: 2, d: 'w', n: 100, nagle: true, x: 'x1' },
      { t: 3, d: 'w', n: 100, nagle: true, x: 'x1' },
      { t: 43, d: 'r', n: 80 },
    ]);
    const stalls = connectionStalls(held);
    expect(stalls).toHaveLength(1);
    expect(stalls[0]).toMatchObject({ exchangeId: 'x1', ms: 41, bytes: 100 });
    // The same writes with Nagle off, or with the peer answering at once, or a peer idle for seconds: nothing.
    expect(connectionStalls(c(held.events.map((e) => (e.d === 'w' ? { ...e, nagle: false } : e))))).toHaveLength(0);
    expect(connectionStalls(c(held.events.map((e) => (e.t === 43 ? { ...e, t: 4 } : e))))).toHaveLength(0);
    expect(connectionStalls(c(held.events.map((e) => (e.t === 43 ? { ...e, t: 5000 } : e))))).toHaveLength(0);
    // An empty write (res.end() after the body left in an earlier turn) is never held, nor does it hold a later one.
    const empty = c([
      { t: 0, d: 'r', n: 80, x: 'x1' },
      { t: 1, d: 'w', n: 300, nagle: true, x: 'x1' },
      { t: 2, d: 'w', n: 0, nagle: true, x: 'x1' },
      { t: 43, d: 'r', n: 80 },
    ]);
    expect(connectionStalls(empty)).toHaveLength(0);
    // A write after the peer's data (which carried the ACK) is not held.
    expect(
      connectionStalls(
        c([
          { t: 0, d: 'w', n: 10, nagle: true },
          { t: 1, d: 'r', n: 5 },
          { t: 2, d: 'w', n: 10, nagle: true },
          { t: 50, d: 'r', n: 5 },
        ]),
      ),
    ).toHaveLength(0);
  });
});

describe('stalls per lab run', () => {
  it('proxyMetrics counts the stalls of the run’s timeline', async () => {
    const { proxyMetrics } = await import('../../src/lab/measure.js');
    const conn: ConnectionTimeline = {
      id: 'c1',
      leg: 'client',
      opened: 0,
      events: [
        { t: 1, d: 'w', n: 300, nagle: true, x: 'x1' },
        { t: 2, d: 'w', n: 100, nagle: true, x: 'x1' },
        { t: 42, d: 'r', n: 80 },
      ],
    };
    expect(proxyMetrics([], [conn])).toMatchObject({ stalls: 1, stallWallMs: 40 });
    expect(proxyMetrics([]).stalls).toBeUndefined();
  });

  it('the time figure is the wall-clock union of the stalls: stalls on parallel connections during the same wait count once', async () => {
    const { proxyMetrics } = await import('../../src/lab/measure.js');
    // Three connections, each stalled 40 ms after a held write at t = 1, 11 and 101: the first two overlap (1..41, 11..51).
    const conn = (id: string, t: number): ConnectionTimeline => ({
      id,
      leg: 'client',
      opened: 0,
      events: [
        { t, d: 'w', n: 300, nagle: true, x: id },
        { t: t + 1, d: 'w', n: 100, nagle: true, x: id },
        { t: t + 41, d: 'r', n: 80 },
      ],
    });
    const conns = [conn('c1', 0), conn('c2', 10), conn('c3', 100)];
    const summary = summarizeStalls(conns);
    expect(summary.count).toBe(3);
    expect(summary.ms).toBe(120);
    // 1..51 merged (50 ms) + 101..141 (40 ms).
    expect(summary.wallMs).toBe(90);
    expect(proxyMetrics([], conns)).toMatchObject({ stalls: 3, stallWallMs: 90 });
  });

  it('stallWallMs merges overlapping and nested intervals, in any order, and adds disjoint ones', () => {
    expect(stallWallMs([])).toBe(0);
    expect(stallWallMs([{ at: 0, ms: 40 }])).toBe(40);
    // Six connections stalled over the same 40 ms: 40 ms, not 240.
    expect(stallWallMs(Array.from({ length: 6 }, () => ({ at: 100, ms: 40 })))).toBe(40);
    // Nested (10..20 inside 0..50), overlapping (40..90), touching (90..100), disjoint (200..230), unsorted.
    const spans = [
      { at: 200, ms: 30 },
      { at: 40, ms: 50 },
      { at: 10, ms: 10 },
      { at: 90, ms: 10 },
      { at: 0, ms: 50 },
    ];
    expect(stallWallMs(spans)).toBe(130);
    expect(spans.reduce((n, s) => n + s.ms, 0)).toBe(150);
  });
});
