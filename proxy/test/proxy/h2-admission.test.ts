/**
 * HTTP/2 requests taken in a few per event-loop turn (server/h2-admission.ts): the queue itself (order, arrival
 * times, a budget per turn), and through the proxy: a burst larger than one turn's budget is answered in full, a
 * request that waited is timed from its arrival, and a stream the client reset while it waited never reaches the
 * origin. The client of the last test writes its frames by hand, so that its HEADERS and RST_STREAM frames reach
 * the proxy in one TLS record, that is in one read: the resets are then seen before the waiting requests are taken in.
 */
import http from 'node:http';
import http2 from 'node:http2';
import type net from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIT_PER_TURN, createAdmission } from '../../src/server/h2-admission.js';
import { ErrorCodes } from '../../src/errors.js';
import { httpsOrigin, loadOrCreateCA, tempDataDir, testProxy, until, type Origin, type TestProxy } from './harness.js';

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

  beforeAll(async () => {
    origin = await httpsOrigin(ca, { h2: true }, (req, res) => {
      seen.push(req.url ?? '');
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
    tp = await testProxy({ dataDir, intercept: true, http2: true, upstreamCA: [ca.certPem] });
  }, 30_000);
  afterAll(async () => {
    await tp?.stop();
    await origin?.close();
  });

  /** A TLS connection (ALPN h2) to the origin through the proxy's interception. */
  async function tunnel(): Promise<tls.TLSSocket> {
    const raw = await new Promise<net.Socket>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: tp.proxy.address.port, method: 'CONNECT', path: `localhost:${origin.port}` });
      req.once('connect', (_res, socket) => resolve(socket));
      req.once('error', reject);
      req.end();
    });
    const socket = tls.connect({ socket: raw, servername: 'localhost', ALPNProtocols: ['h2'], ca: ca.certPem });
    await new Promise((r) => socket.once('secureConnect', r));
    return socket;
  }

  it('answers a burst several turns long in full, each request timed from its arrival', async () => {
    const before = tp.exchanges().length;
    const n = ADMIT_PER_TURN * 4 + 3;
    const socket = await tunnel();
    const session = http2.connect(origin.url, { createConnection: () => socket });
    try {
      const statuses = await Promise.all(
        Array.from(
          { length: n },
          (_, i) =>
            new Promise<number>((resolve, reject) => {
              const req = session.request({ ':path': `/burst/${i}` });
              req.on('response', (h) => resolve(Number(h[':status'])));
              req.on('error', reject);
              req.resume();
            }),
        ),
      );
      expect(statuses).toEqual(Array(n).fill(200));
      const done = (await tp.waitFor(before + n)).slice(before);
      expect(done.map((x) => x.response?.status)).toEqual(Array(n).fill(200));
      // A bodiless request was received with its head: a wait to be taken in is the proxy's time, not the client's.
      for (const x of done) expect(x.clientTimings?.receiveRequest).toBe(0);
    } finally {
      session.close();
    }
  });

  it('never forwards a request whose stream the client reset while it waited to be taken in', async () => {
    const before = tp.exchanges().length;
    const socket = await tunnel();
    const total = ADMIT_PER_TURN * 3;
    const authority = `localhost:${origin.port}`;
    // Client preface, an empty SETTINGS, `total` GET HEADERS frames (END_STREAM | END_HEADERS), then RST_STREAM
    // (CANCEL) for every stream past the first turn's budget: one write, one TLS record.
    const frames: Buffer[] = [Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), frame(4, 0, 0, Buffer.alloc(0))];
    const ids = Array.from({ length: total }, (_, i) => 2 * i + 1);
    for (const id of ids) frames.push(frame(1, 0x5, id, getHeaderBlock(`/reset/${id}`, authority)));
    const reset = ids.slice(ADMIT_PER_TURN);
    for (const id of reset) frames.push(frame(3, 0, id, Buffer.from([0, 0, 0, 8])));
    const answered = new Set<number>();
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 9) {
        const length = pending.readUIntBE(0, 3);
        if (pending.length < 9 + length) break;
        const type = pending[3]!;
        const flags = pending[4]!;
        const stream = pending.readUInt32BE(5) & 0x7fffffff;
        if (type === 1) answered.add(stream);
        // The server's SETTINGS wants an ACK.
        if (type === 4 && !(flags & 0x1)) socket.write(frame(4, 0x1, 0, Buffer.alloc(0)));
        pending = pending.subarray(9 + length);
      }
    });
    try {
      socket.write(Buffer.concat(frames));
      const kept = ids.slice(0, ADMIT_PER_TURN);
      await until(() => kept.every((id) => answered.has(id)), 10_000);
      // Every request the proxy took in has ended its exchange; none of the reset ones reached the origin.
      await until(() => tp.exchanges().length - before >= kept.length, 10_000);
      await new Promise((r) => setTimeout(r, 200));
      const mine = tp.exchanges().slice(before);
      expect(seen.filter((p) => p.startsWith('/reset/')).sort()).toEqual(kept.map((id) => `/reset/${id}`).sort());
      for (const x of mine) {
        const id = Number(/\/reset\/(\d+)$/.exec(x.request.url)?.[1]);
        if (reset.includes(id)) expect(x.error?.code).toBe(ErrorCodes.CLIENT_ABORTED);
        else expect(x.response?.status).toBe(200);
      }
      expect(reset.some((id) => answered.has(id))).toBe(false);
    } finally {
      socket.destroy();
    }
  });
});

/** An HTTP/2 frame: 9-byte header and payload. */
function frame(type: number, flags: number, stream: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(stream, 5);
  return Buffer.concat([head, payload]);
}

/** HPACK for GET https://authority/path: :method GET and :scheme https from the static table, :path and :authority literal. */
function getHeaderBlock(path: string, authority: string): Buffer {
  const literal = (index: number, value: string) => Buffer.concat([Buffer.from([index, value.length]), Buffer.from(value, 'latin1')]);
  return Buffer.concat([Buffer.from([0x82, 0x87]), literal(0x04, path), literal(0x01, authority)]);
}
