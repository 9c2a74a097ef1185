/**
 * One HTTP/2 connection per origin, however many requests ask for it at once (upstream/pool.ts h2Session). Before,
 * every request that found no open session opened a connection of its own and the pool kept only the last: the
 * others stayed open for good. A client resetting half its streams at once made the origin end the pooled session
 * again and again (its rapid-reset guard), each time followed by a burst of requests, and a proxy left 98–207
 * connections to the origin open after 20,000 such requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamPool } from '../../src/upstream/pool.js';
import { sendUpstream } from '../../src/upstream/forward.js';
import { httpsOrigin, loadOrCreateCA, tempDataDir, type Origin } from './harness.js';

describe('the upstream pool opens one HTTP/2 connection per origin', () => {
  const ca = loadOrCreateCA(tempDataDir());
  let origin: Origin;
  beforeAll(async () => {
    origin = await httpsOrigin(ca, { h2: true }, (_req, res) => res.end('ok'));
  });
  afterAll(() => origin.close());

  it('shares one connection among requests that ask at once, and opens a new one after it closed', async () => {
    const pool = new UpstreamPool({ nagle: false, http2: true, rejectUnauthorized: true, extraCA: [ca.certPem] });
    try {
      const before = origin.connections;
      const sessions = await Promise.all(Array.from({ length: 20 }, () => pool.h2Session('localhost', origin.port, 'localhost')));
      expect(new Set(sessions).size).toBe(1);
      expect(origin.connections - before).toBe(1);
      expect(pool.openH2Session('localhost', origin.port)).toBe(sessions[0]);
      // Gone (the origin's GOAWAY, a reset connection): the next burst opens one new connection, again shared.
      sessions[0]!.destroy();
      const again = await Promise.all(Array.from({ length: 20 }, () => pool.h2Session('localhost', origin.port, 'localhost')));
      expect(new Set(again).size).toBe(1);
      expect(again[0] === sessions[0]).toBe(false);
      expect(origin.connections - before).toBe(2);
    } finally {
      pool.close();
    }
  });

  it('lets go of the listeners on an upstream stream once it closed (a closed stream outlives its close)', async () => {
    const pool = new UpstreamPool({ nagle: false, http2: true, rejectUnauthorized: true, extraCA: [ca.certPem] });
    try {
      const res = await sendUpstream(pool, {
        method: 'GET',
        url: new URL(`https://localhost:${origin.port}/`),
        headers: [['host', `localhost:${origin.port}`]],
        body: null,
        timestamps: { start: performance.now() },
        exchangeId: 'x1',
        timeoutMs: 5000,
        retries: 0,
      });
      expect(res.protocol).toBe('h2');
      const stream = res.body;
      let text = '';
      stream.on('data', (c: Buffer) => (text += c));
      await new Promise((r) => stream.on('close', r));
      expect(text).toBe('ok');
      expect(stream.eventNames()).toEqual(['error']);
      expect(stream.listenerCount('error')).toBe(1);
    } finally {
      pool.close();
    }
  });

  it('gives every waiting request the error when the connection cannot be made, and tries again on the next request', async () => {
    const pool = new UpstreamPool({ nagle: false, http2: true, rejectUnauthorized: true });
    try {
      // Not trusted (no extraCA): every waiter gets the verification error of the one attempt.
      const before = origin.connections;
      const results = await Promise.allSettled(Array.from({ length: 5 }, () => pool.h2Session('localhost', origin.port, 'localhost')));
      expect(results.every((r) => r.status === 'rejected')).toBe(true);
      expect(origin.connections - before).toBe(1);
      await expect(pool.h2Session('localhost', origin.port, 'localhost')).rejects.toThrow();
      expect(origin.connections - before).toBe(2);
    } finally {
      pool.close();
    }
  });
});
