/**
 * HTTP/2 requests taken in a few per event-loop turn (server/h2-admission.ts): the queue itself (order, arrival
 * times, a budget per turn), and through the proxy: a burst larger than one turn's budget is answered in full, a
 * request that waited is timed from its arrival, and a stream the client reset while it waited never reaches the
 * origin. The client of the last test writes its frames itself (reliability/raw-h2.ts), so that its HEADERS and
 * RST_STREAM frames reach the proxy in one TLS record, that is in one read: the resets are then seen before the
 * waiting requests are taken in.
 */
import http2 from 'node:http2';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIT_PER_TURN, createAdmission } from '../../src/server/h2-admission.js';
import { ErrorCodes } from '../../src/errors.js';
import { H2_MAX_CONCURRENT_STREAMS } from '../../src/server/intercept-servers.js';
import {
  httpsOrigin,
  holdingHandler,
  interceptedConnection,
  loadOrCreateCA,
  tempDataDir,
  testProxy,
  until,
  type Origin,
  type TestProxy,
} from './harness.js';
import { clientFrames, rawH2Exchange } from '../reliability/raw-h2.js';
import { eventually, fdCount, sleep } from '../reliability/lifecycle-helpers.js';

const nextTurn = () => new Promise((r) => setImmediate(r));

describe('the admission queue', () => {
  it('runs a turn’s budget at once and the rest in later turns, first come first served, with their arrival times', async () => {
    const admission = createAdmission(4);
    const ran: number[] = [];
    const arrivals: number[] = [];
    const before = performance.now();
    for (let i = 0; i < 10; i++)
      admission.admit((arrivedAt) => {
        ran.push(i);
        arrivals.push(arrivedAt);
      });
    const after = performance.now();
    expect(ran).toEqual([0, 1, 2, 3]);
    expect(admission.waiting).toBe(6);
    await nextTurn();
    expect(ran).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    await nextTurn();
    expect(ran).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(admission.waiting).toBe(0);
    // Each run got the time its request arrived, not the time it ran.
    for (const t of arrivals) expect(t >= before && t <= after).toBe(true);
    expect([...arrivals].sort((a, b) => a - b)).toEqual(arrivals);
  });

  it('refills the budget every turn, and a request arriving while others wait queues behind them', async () => {
    const admission = createAdmission(2);
    const ran: string[] = [];
    admission.admit(() => ran.push('a'));
    admission.admit(() => ran.push('b'));
    admission.admit(() => ran.push('c'));
    expect(ran).toEqual(['a', 'b']);
    // Same turn, budget spent: queued behind 'c' even though it could not run before it anyway.
    admission.admit(() => ran.push('d'));
    await nextTurn();
    expect(ran).toEqual(['a', 'b', 'c', 'd']);
    // A later turn: room again, so it runs at once.
    await nextTurn();
    admission.admit(() => ran.push('e'));
    expect(ran).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});

describe('HTTP/2 bursts through interception', () => {
  const dataDir = tempDataDir();
  const ca = loadOrCreateCA(dataDir);
  let origin: Origin;
  let tp: TestProxy;
  const seen: string[] = [];
  const { handler, held } = holdingHandler((req) => seen.push(req.url ?? ''));

  beforeAll(async () => {
    origin = await httpsOrigin(ca, { h2: true }, handler);
    tp = await testProxy({ dataDir, intercept: true, http2: true, upstreamCA: [ca.certPem] });
  }, 30_000);
  afterAll(async () => {
    await tp?.stop();
    await origin?.close();
  });

  /** A TLS connection (ALPN h2) to the origin through the proxy's interception. */
  const tunnel = (): Promise<tls.TLSSocket> => interceptedConnection(tp.proxy.address.port, origin.port, ca.certPem, ['h2']);

  it('answers a burst several turns long in full, each request timed from its arrival', async () => {
    const n = ADMIT_PER_TURN * 4 + 3;
    const socket = await tunnel();
    const session = http2.connect(origin.url, { createConnection: () => socket });
    const get = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const req = session.request({ ':path': path });
        req.on('response', (h) => resolve(Number(h[':status'])));
        req.on('error', reject);
        req.resume();
      });
    try {
      // The upstream session opened first, so no request of the burst waits for it.
      const initial = tp.exchanges().length;
      expect(await get('/warm')).toBe(200);
      await tp.waitFor(initial + 1);
      const before = initial + 1;
      const statuses = await Promise.all(Array.from({ length: n }, (_, i) => get(`/burst/${i}`)));
      expect(statuses).toEqual(Array(n).fill(200));
      const done = (await tp.waitFor(before + n)).slice(before);
      expect(done.map((x) => x.response?.status)).toEqual(Array(n).fill(200));
      // A bodiless request was received with its head: a wait to be taken in is the proxy's time, not the client's.
      for (const x of done) expect(x.clientTimings?.receiveRequest).toBe(0);
      // ...and shows upstream as `blocked` (docs/timings.md): the burst's last turn waited longer than its first.
      const blocked = (from: number, to: number) =>
        median(done.filter((x) => inRange(Number(/\/burst\/(\d+)$/.exec(x.request.url)?.[1]), from, to)).map((x) => x.timings!.blocked));
      expect(blocked(n - ADMIT_PER_TURN, n)).toBeGreaterThan(blocked(0, ADMIT_PER_TURN));
    } finally {
      session.close();
    }
  });

  it(`advertises ${H2_MAX_CONCURRENT_STREAMS} concurrent streams, as Chrome assumes of an origin that advertises none; more requests wait in the client`, async () => {
    const socket = await tunnel();
    const session = http2.connect(origin.url, { createConnection: () => socket });
    try {
      await new Promise((r) => session.once('remoteSettings', r));
      // The browser must schedule its requests as it would against the origin: 1,000 let Chrome keep 256 open (its cap).
      expect(session.remoteSettings.maxConcurrentStreams).toBe(100);
      const n = H2_MAX_CONCURRENT_STREAMS + 50;
      const statuses = await Promise.all(
        Array.from(
          { length: n },
          (_, i) =>
            new Promise<number>((resolve, reject) => {
              const req = session.request({ ':path': `/held/${i}` });
              req.on('response', (h) => resolve(Number(h[':status'])));
              req.on('error', reject);
              req.resume();
            }),
        ),
      );
      expect(statuses).toEqual(Array(n).fill(200));
      // Held 100 ms each: the first hundred were all open at the origin at once, and never more than that.
      expect(held.max).toBe(H2_MAX_CONCURRENT_STREAMS);
    } finally {
      session.close();
    }
  });

  it('never forwards a request whose stream the client reset while it waited to be taken in', async () => {
    const before = tp.exchanges().length;
    const socket = await tunnel();
    const total = ADMIT_PER_TURN * 3;
    const authority = `localhost:${origin.port}`;
    // `total` GETs, then RST_STREAM (CANCEL) for every stream past the first turn's budget: one write, one TLS
    // record, so the proxy reads the resets before it takes the waiting requests in.
    const streams = gets(total, authority, '/reset/').map((s, i) => (i >= ADMIT_PER_TURN ? { ...s, reset: 8 } : s));
    const ids = streams.map((_, i) => 2 * i + 1);
    const kept = ids.slice(0, ADMIT_PER_TURN);
    const reset = ids.slice(ADMIT_PER_TURN);
    const outcome = await rawH2Exchange(socket, streams);
    expect(outcome.hung).toBe(false);
    const answered = new Map(outcome.streams.filter((r) => r.status !== undefined).map((r) => [r.id, r.status]));
    expect(kept.map((id) => answered.get(id))).toEqual(kept.map(() => 200));
    expect(reset.filter((id) => answered.has(id))).toEqual([]);
    // None of the reset requests reached the origin; those the proxy recorded are the client's aborts.
    await until(() => tp.exchanges().length - before >= kept.length, 10_000);
    expect(seen.filter((p) => p.startsWith('/reset/')).sort()).toEqual(kept.map((id) => `/reset/${id}`).sort());
    for (const x of tp.exchanges().slice(before)) {
      const id = Number(/\/reset\/(\d+)$/.exec(x.request.url)?.[1]);
      if (reset.includes(id)) expect(x.error?.code).toBe(ErrorCodes.CLIENT_ABORTED);
      else expect(x.response?.status).toBe(200);
    }
  });

  it('a client that opens 1,000 streams in one write and cuts its connection: every exchange ends, fds return, the proxy keeps serving', async () => {
    const authority = `localhost:${origin.port}`;
    const flood = async () => {
      const socket = await tunnel();
      socket.on('error', () => {});
      socket.write(clientFrames(gets(1000, authority, '/flood/')));
      // Gone before most of them can have been taken in.
      setImmediate(() => socket.destroy());
    };
    // Warm-up (TLS contexts, the upstream session) with a normal request, then the baseline.
    expect(await getOnce('/before-flood')).toBe(200);
    await sleep(300);
    const base = fdCount();
    for (let i = 0; i < 4; i++) await flood();
    // Each connection's first turn is taken in at least (so there are exchanges to wait for)...
    expect(await eventually(() => started('/flood/') >= 4 * ADMIT_PER_TURN, 10_000, 20)).toBe(true);
    // ...and every request the proxy took in ends its exchange (the rest were never handled); nothing is left open.
    expect(await eventually(() => started('/flood/') === finished('/flood/'), 15_000, 50)).toBe(true);
    const settled = await eventually(() => fdCount() <= base + 5, 10_000, 100);
    console.log(`[h2-admission] 4 floods of 1,000 streams: ${started('/flood/')} taken in, all ended; fds ${base} → ${fdCount()}`);
    expect(settled).toBe(true);
    // Still serving: a normal request on a new connection.
    expect(await getOnce('/after-flood')).toBe(200);
  });

  /** The status of one GET over a new intercepted HTTP/2 connection. */
  async function getOnce(path: string): Promise<number> {
    const socket = await tunnel();
    const session = http2.connect(origin.url, { createConnection: () => socket });
    try {
      return await new Promise<number>((resolve, reject) => {
        const req = session.request({ ':path': path });
        req.on('response', (h) => resolve(Number(h[':status'])));
        req.on('error', reject);
        req.resume();
      });
    } finally {
      session.close();
    }
  }

  /** Exchanges the proxy started / finished (complete or error) whose path starts with `prefix`. */
  function started(prefix: string): number {
    return tp.events.filter((e) => e.type === 'request' && new URL(e.exchange.url).pathname.startsWith(prefix)).length;
  }
  function finished(prefix: string): number {
    return tp.exchanges().filter((x) => new URL(x.request.url).pathname.startsWith(prefix)).length;
  }
});

/** `n` GETs of `${prefix}${id}` for the raw HTTP/2 client (stream ids 1, 3, 5, …). */
function gets(n: number, authority: string, prefix: string): { headers: [string, string][] }[] {
  return Array.from({ length: n }, (_, i) => ({
    headers: [
      [':method', 'GET'],
      [':scheme', 'https'],
      [':authority', authority],
      [':path', `${prefix}${2 * i + 1}`],
    ],
  }));
}

const inRange = (v: number, from: number, to: number) => v >= from && v < to;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
