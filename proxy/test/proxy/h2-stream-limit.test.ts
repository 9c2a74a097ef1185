/**
 * The browser leg's concurrent-stream limit follows the origin's (server/h2-stream-limit.ts): the value itself,
 * then through the proxy: an origin's larger and smaller limits reach the client, one that advertises none leaves
 * the default, a change the origin makes mid-connection is passed on, and with a small limit the requests wait in
 * the client, not inside the proxy.
 */
import { EventEmitter } from 'node:events';
import http2 from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserLegStreams, createStreamLimitMirror, MAX_MIRRORED_STREAMS } from '../../src/server/h2-stream-limit.js';
import { H2_MAX_CONCURRENT_STREAMS } from '../../src/server/intercept-servers.js';
import type { UpstreamPool } from '../../src/upstream/pool.js';
import {
  httpsOrigin,
  holdingHandler,
  interceptedConnection,
  loadOrCreateCA,
  tempDataDir,
  testProxy,
  type Origin,
  type TestProxy,
} from './harness.js';

describe('the browser leg’s limit for an origin’s', () => {
  it('is the origin’s, within [1, MAX_MIRRORED_STREAMS]; the default when the origin advertises none', () => {
    expect(browserLegStreams(250)).toBe(250);
    expect(browserLegStreams(20)).toBe(20);
    // nghttp2 reports an origin that sent no limit as 2^32 - 1: the browser then assumes 100, and so do we.
    expect(browserLegStreams(2 ** 32 - 1)).toBe(H2_MAX_CONCURRENT_STREAMS);
    expect(browserLegStreams(undefined)).toBe(H2_MAX_CONCURRENT_STREAMS);
    // 0 would stop the client from sending the request that opens the next upstream session.
    expect(browserLegStreams(0)).toBe(1);
    expect(browserLegStreams(5000)).toBe(MAX_MIRRORED_STREAMS);
  });
});

/** A stand-in for a client session: what the mirror calls and listens to. */
class FakeSession extends EventEmitter {
  closed = false;
  destroyed = false;
  sent: number[] = [];
  /** Acknowledgement callbacks of the SETTINGS sent, oldest first (the client acks them in order). */
  acks: (() => void)[] = [];
  failWith?: Error;
  settings(s: http2.Settings, ack?: () => void): void {
    if (this.failWith) throw this.failWith;
    this.sent.push(s.maxConcurrentStreams!);
    if (ack) this.acks.push(ack);
  }
}

describe('the mirror', () => {
  /** A pool whose origins' last SETTINGS are `known.settings` (changed by the test as the origin would). */
  function fakePool(known: { settings?: http2.Settings } = {}) {
    return { originSettings: () => known.settings } as unknown as UpstreamPool & {
      onOriginSettings?: (host: string, port: number, s: http2.Settings) => void;
    };
  }

  it('sends the origin’s limit to every client session of that origin, once per change, and forgets closed sessions', () => {
    const pool = fakePool();
    const mirror = createStreamLimitMirror(pool);
    const a = new FakeSession();
    const b = new FakeSession();
    const other = new FakeSession();
    mirror.watch(a as unknown as http2.ServerHttp2Session, { host: 'example.test', port: 443 });
    mirror.watch(b as unknown as http2.ServerHttp2Session, { host: 'example.test', port: 443 });
    mirror.watch(other as unknown as http2.ServerHttp2Session, { host: 'other.test', port: 443 });
    expect(mirror.watched).toBe(3);
    // Nothing known yet: nothing sent (the sessions keep the 100 they started with).
    expect([a.sent, b.sent, other.sent]).toEqual([[], [], []]);
    pool.onOriginSettings!('example.test', 443, { maxConcurrentStreams: 250 });
    pool.onOriginSettings!('example.test', 443, { maxConcurrentStreams: 250 });
    expect([a.sent, b.sent, other.sent]).toEqual([[250], [250], []]);
    // The origin stops advertising a limit (a new session after a GOAWAY): back to the default.
    pool.onOriginSettings!('example.test', 443, { maxConcurrentStreams: 2 ** 32 - 1 });
    expect(a.sent).toEqual([250, H2_MAX_CONCURRENT_STREAMS]);
    a.closed = true;
    a.emit('close');
    b.emit('close');
    expect(mirror.watched).toBe(1);
    pool.onOriginSettings!('example.test', 443, { maxConcurrentStreams: 30 });
    expect(a.sent).toEqual([250, H2_MAX_CONCURRENT_STREAMS]);
  });

  it('applies a limit already known when a session starts, and survives a session that refuses SETTINGS', () => {
    const origin = { settings: { maxConcurrentStreams: 64 } };
    const pool = fakePool(origin);
    const mirror = createStreamLimitMirror(pool);
    const s = new FakeSession();
    mirror.watch(s as unknown as http2.ServerHttp2Session, { host: 'example.test', port: 443 });
    expect(s.sent).toEqual([64]);
    const refusing = new FakeSession();
    refusing.failWith = Object.assign(new Error('too many pending settings'), { code: 'ERR_HTTP2_MAX_PENDING_SETTINGS_ACK' });
    expect(() => mirror.watch(refusing as unknown as http2.ServerHttp2Session, { host: 'example.test', port: 443 })).not.toThrow();
    // It is tried again at the next change.
    refusing.failWith = undefined;
    origin.settings = { maxConcurrentStreams: 80 };
    pool.onOriginSettings!('example.test', 443, origin.settings);
    expect(refusing.sent).toEqual([80]);
  });

  it('catches up when the client acknowledges: a limit refused while SETTINGS were pending is sent then', () => {
    const origin: { settings?: http2.Settings } = {};
    const pool = fakePool(origin);
    const mirror = createStreamLimitMirror(pool);
    const s = new FakeSession();
    mirror.watch(s as unknown as http2.ServerHttp2Session, { host: 'example.test', port: 443 });
    origin.settings = { maxConcurrentStreams: 50 };
    pool.onOriginSettings!('example.test', 443, origin.settings);
    expect(s.sent).toEqual([50]);
    // The origin changes twice more while the client has not acknowledged: both refused (too many pending).
    s.failWith = Object.assign(new Error('too many pending settings'), { code: 'ERR_HTTP2_MAX_PENDING_SETTINGS_ACK' });
    for (const n of [60, 70]) {
      origin.settings = { maxConcurrentStreams: n };
      pool.onOriginSettings!('example.test', 443, origin.settings);
    }
    expect(s.sent).toEqual([50]);
    // The client acknowledges the first: the origin's latest limit goes out, not the ones in between.
    s.failWith = undefined;
    s.acks.shift()!();
    expect(s.sent).toEqual([50, 70]);
    // Acknowledging that one sends nothing more: the client has the origin's limit.
    s.acks.shift()!();
    expect(s.sent).toEqual([50, 70]);
  });
});

describe('through interception', () => {
  const dataDir = tempDataDir();
  const ca = loadOrCreateCA(dataDir);
  let tp: TestProxy;
  const origins: Origin[] = [];
  /** Requests the latest origin holds ('/held/…', answered after 100 ms). */
  let held = { now: 0, max: 0 };

  /** An HTTP/2 origin advertising `settings`; '/held/…' is answered after 100 ms, '/limit/N' sets its limit to N. */
  async function origin(settings?: http2.Settings): Promise<Origin> {
    const holding = holdingHandler((req) => {
      const limit = /^\/limit\/(\d+)$/.exec(req.url ?? '');
      if (limit) (req as http2.Http2ServerRequest).stream.session!.settings({ maxConcurrentStreams: Number(limit[1]) });
    });
    held = holding.held;
    const o = await httpsOrigin(ca, { h2: true, settings }, holding.handler);
    origins.push(o);
    return o;
  }

  beforeAll(async () => {
    tp = await testProxy({ dataDir, intercept: true, http2: true, upstreamCA: [ca.certPem] });
  }, 30_000);
  afterAll(async () => {
    await tp?.stop();
    for (const o of origins) await o.close();
  });

  /** An HTTP/2 client session to `o` through the proxy's interception. */
  async function client(o: Origin): Promise<http2.ClientHttp2Session> {
    const socket = await interceptedConnection(tp.proxy.address.port, o.port, ca.certPem, ['h2']);
    return http2.connect(o.url, { createConnection: () => socket });
  }

  const get = (session: http2.ClientHttp2Session, path: string) =>
    new Promise<number>((resolve, reject) => {
      const req = session.request({ ':path': path });
      req.on('response', (h) => resolve(Number(h[':status'])));
      req.on('error', reject);
      req.resume();
    });

  /** Resolves when the client's view of the proxy's limit is `n` (checked at each SETTINGS frame), or fails after 5 s. */
  function limitBecomes(session: http2.ClientHttp2Session, n: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (session.remoteSettings.maxConcurrentStreams !== n) return;
        clearTimeout(timer);
        session.off('remoteSettings', check);
        resolve();
      };
      const timer = setTimeout(() => {
        session.off('remoteSettings', check);
        reject(new Error(`the client's limit stayed ${session.remoteSettings.maxConcurrentStreams}, expected ${n}`));
      }, 5000);
      session.on('remoteSettings', check);
      check();
    });
  }

  it('passes an origin’s larger limit on to the client', async () => {
    const session = await client(await origin({ maxConcurrentStreams: 250 }));
    try {
      expect(await get(session, '/first')).toBe(200);
      await limitBecomes(session, 250);
    } finally {
      session.close();
    }
  });

  it('keeps the default for an origin that advertises none', async () => {
    const session = await client(await origin());
    try {
      expect(await get(session, '/first')).toBe(200);
      // By then the upstream session has the origin's SETTINGS (the request went over it).
      expect(await get(session, '/second')).toBe(200);
      expect(session.remoteSettings.maxConcurrentStreams).toBe(H2_MAX_CONCURRENT_STREAMS);
    } finally {
      session.close();
    }
  });

  it('passes a smaller limit on, so that requests past it wait in the client, not inside the proxy', async () => {
    const limit = 20;
    const o = await origin({ maxConcurrentStreams: limit });
    const session = await client(o);
    try {
      expect(await get(session, '/first')).toBe(200);
      await limitBecomes(session, limit);
      const before = tp.exchanges().length;
      const n = limit * 2;
      const statuses = await Promise.all(Array.from({ length: n }, (_, i) => get(session, `/held/${i}`)));
      expect(statuses).toEqual(Array(n).fill(200));
      expect(held.max).toBeLessThanOrEqual(limit);
      // The most exchanges the proxy held at once, from their recorded start and end: at most the limit, because the
      // client sent no more than that at a time (with 100 advertised, all 40 would arrive at once and half of them
      // wait inside the proxy for an upstream stream, their clock running).
      const done = (await tp.waitFor(before + n)).slice(before);
      const edges = done.flatMap((x) => [
        [x.timestamps.start, 1],
        [x.timestamps.clientResponseEnd!, -1],
      ]);
      edges.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
      let open = 0;
      let most = 0;
      for (const [, d] of edges) most = Math.max(most, (open += d!));
      expect(most).toBeGreaterThan(1);
      expect(most).toBeLessThanOrEqual(limit);
    } finally {
      session.close();
    }
  });

  it('passes on a change the origin makes during the connection', async () => {
    const session = await client(await origin({ maxConcurrentStreams: 250 }));
    try {
      expect(await get(session, '/first')).toBe(200);
      await limitBecomes(session, 250);
      expect(await get(session, '/limit/50')).toBe(200);
      await limitBecomes(session, 50);
    } finally {
      session.close();
    }
  });
});
