/**
 * `relay: 'naive'` seen on the socket timeline: an origin flushes a response head, then
 * writes a 1,000-byte body in one write on the next turn (as the lab site does for images).
 * By default the proxy's HTTP/1.1 client leg sends head and body in one write (nothing for
 * Nagle to hold); in naive mode the head leaves alone, then the body, and with Nagle on the
 * body waits for the client's delayed ACK of the head: stalls flagged, none with Nagle off.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarizeStalls } from '../../src/timeline/stalls.js';
import type { RelayMode } from '../../src/options.js';
import { httpOrigin, testProxy, type Origin } from '../proxy/harness.js';

// Under the stall rule's 1,460-byte "small write" (the lab site's 8×8 PNGs are ~130 bytes).
const BODY = 1000;
const REQUESTS = 15;
let origin: Origin;

beforeAll(async () => {
  origin = await httpOrigin((_req, res) => {
    const r = res as http.ServerResponse;
    r.writeHead(200, { 'content-type': 'image/png', 'content-length': String(BODY) });
    r.flushHeaders();
    setImmediate(() => r.end(Buffer.alloc(BODY, 120)));
  });
});
afterAll(() => origin.close());

/** Sequential GETs through the proxy on one keep-alive connection; each response's length and client time. */
async function run(port: number, n: number): Promise<{ lengths: number[]; times: number[] }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const lengths: number[] = [];
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    lengths.push(
      await new Promise<number>((resolve, reject) => {
        const req = http.get({ host: '127.0.0.1', port, path: `${origin.url}/img/${i}.png`, agent }, (res) => {
          let len = 0;
          res.on('data', (c: Buffer) => (len += c.length));
          res.on('end', () => resolve(len));
        });
        req.once('error', reject);
      }),
    );
    times.push(performance.now() - t0);
  }
  agent.destroy();
  return { lengths, times };
}

async function session(relay: RelayMode | undefined, nagle: boolean) {
  const tp = await testProxy({ nagle, ...(relay ? { relay } : {}) });
  try {
    const { lengths, times } = await run(tp.proxy.address.port, REQUESTS);
    const xs = await tp.waitFor(REQUESTS);
    const conns = tp.proxy.timeline!.toLog()._connections;
    const client = conns.filter((c) => c.leg === 'client');
    // Writes of each exchange on the client leg, in order (sizes).
    const writes = xs.map((x) => client.flatMap((c) => c.events.filter((e) => e.d === 'w' && e.x === x.id).map((e) => e.n)));
    return { lengths, times, writes, stalls: summarizeStalls(conns) };
  } finally {
    await tp.stop();
  }
}

const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];

describe('relay: naive', () => {
  it('coalesce (default) sends head + body in one write; naive sends the head alone, then the body', async () => {
    const coalesce = await session(undefined, false);
    const naive = await session('naive', false);
    expect(coalesce.lengths.every((n) => n === BODY)).toBe(true);
    expect(naive.lengths.every((n) => n === BODY)).toBe(true);
    for (const w of coalesce.writes) {
      expect(w).toHaveLength(1);
      expect(w[0]).toBeGreaterThan(BODY);
    }
    for (const w of naive.writes) {
      expect(w).toHaveLength(2);
      expect(w[0]).toBeLessThan(500); // the head alone
      expect(w[1]).toBe(BODY);
    }
  }, 30_000);

  it('side by side: naive + Nagle on stalls, naive + Nagle off and coalesce + Nagle on do not', async () => {
    const naiveOff = await session('naive', false);
    const naiveOn = await session('naive', true);
    const coalesceOn = await session('coalesce', true);

    console.log(
      `median per request: naive+nagle off ${median(naiveOff.times).toFixed(1)} ms, ` +
        `naive+nagle on ${median(naiveOn.times).toFixed(1)} ms, ` +
        `coalesce+nagle on ${median(coalesceOn.times).toFixed(1)} ms; stalls ${naiveOff.stalls.count} / ${naiveOn.stalls.count} ` +
        `(${naiveOn.stalls.ms} ms) / ${coalesceOn.stalls.count}`,
    );
    expect(naiveOff.stalls.count).toBe(0);
    expect(coalesceOn.stalls.count).toBe(0);
    // Linux may ACK the first segments of a connection at once (quick-ACK mode); most later ones wait.
    expect(naiveOn.stalls.count).toBeGreaterThanOrEqual(REQUESTS / 3);
    expect(median(naiveOn.times)).toBeGreaterThan(median(naiveOff.times));
  }, 30_000);
});

describe('relay: naive keeps bodies whole', () => {
  it('a 3 MB chunked body reaches a slow reader byte for byte; a body the origin cut off stays cut off', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024);
    for (let i = 0; i < big.length; i++) big[i] = (i * 31) & 0xff;
    const o = await httpOrigin((req, res) => {
      const r = res as http.ServerResponse;
      if (req.url === '/cut') {
        r.writeHead(200, { 'content-length': '1000' });
        r.write(Buffer.alloc(400, 1));
        setTimeout(() => r.socket?.destroy(), 20);
        return;
      }
      r.writeHead(200, { 'content-type': 'application/octet-stream' }); // no length: chunked
      let off = 0;
      const next = () => {
        while (off < big.length) {
          const ok = r.write(big.subarray(off, (off += 64 * 1024)));
          if (!ok) return void r.once('drain', next);
        }
        r.end();
      };
      next();
    });
    const tp = await testProxy({ relay: 'naive', nagle: true });
    try {
      const port = tp.proxy.address.port;
      const got = await new Promise<Buffer>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: `${o.url}/big` }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => {
              chunks.push(c);
              res.pause(); // a slow reader: the relay must pause the upstream body and resume on drain
              setTimeout(() => res.resume(), 1);
            });
            res.on('end', () => resolve(Buffer.concat(chunks)));
            res.on('error', reject);
          })
          .once('error', reject);
      });
      expect(got.length).toBe(big.length);
      expect(got.equals(big)).toBe(true);
      const cut = await new Promise<{ bytes: number; complete: boolean }>((resolve) => {
        http
          .get({ host: '127.0.0.1', port, path: `${o.url}/cut` }, (res) => {
            let bytes = 0;
            res.on('data', (c: Buffer) => (bytes += c.length));
            res.on('close', () => resolve({ bytes, complete: res.complete }));
            res.on('error', () => undefined);
          })
          .once('error', () => resolve({ bytes: 0, complete: false }));
      });
      expect(cut.complete).toBe(false);
      expect(cut.bytes).toBeLessThan(1000);
    } finally {
      await tp.stop();
      await o.close();
    }
  }, 30_000);

  it('HEAD, 204 and 304 (no body) end cleanly and leave the keep-alive connection usable', async () => {
    const o = await httpOrigin((req, res) => {
      const r = res as http.ServerResponse;
      if (req.url === '/204') r.writeHead(204).end();
      else if (req.url === '/304') r.writeHead(304, { etag: '"x"' }).end();
      else r.writeHead(200, { 'content-type': 'text/plain', 'content-length': '5' }).end('hello');
    });
    const tp = await testProxy({ relay: 'naive' });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const port = tp.proxy.address.port;
      const get = (method: string, p: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = http.request({ host: '127.0.0.1', port, method, path: `${o.url}${p}`, agent }, (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c));
            res.on('end', () => resolve({ status: res.statusCode!, body }));
          });
          req.once('error', reject);
          req.end();
        });
      expect(await get('HEAD', '/text')).toEqual({ status: 200, body: '' });
      expect(await get('GET', '/204')).toEqual({ status: 204, body: '' });
      expect(await get('GET', '/304')).toEqual({ status: 304, body: '' });
      expect(await get('GET', '/text')).toEqual({ status: 200, body: 'hello' });
      const xs = await tp.waitFor(4);
      expect(xs.every((x) => !x.error)).toBe(true);
      expect(new Set(xs.map((x) => x.clientConnectionId)).size).toBe(1); // one keep-alive connection throughout
    } finally {
      agent.destroy();
      await tp.stop();
      await o.close();
    }
  }, 30_000);
});
