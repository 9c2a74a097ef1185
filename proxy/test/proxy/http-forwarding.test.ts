/** Plain HTTP through the explicit proxy: absolute-form, headers, bodies, keep-alive. */
import crypto from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { curl, echo, httpOrigin, testProxy, type Origin, type TestProxy } from './harness.js';

let origin: Origin;
let tp: TestProxy;

beforeAll(async () => {
  origin = await httpOrigin(echo);
  tp = await testProxy();
});
afterAll(async () => {
  await tp.stop();
  await origin.close();
});

describe('plain HTTP forwarding', () => {
  it('forwards an absolute-form GET and records the exchange', async () => {
    const r = await curl(['-x', tp.proxy.address.url, `${origin.url}/hello?a=1`]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ method: 'GET', url: '/hello?a=1' });
    const [x] = await tp.waitFor(1);
    expect(x.transport).toBe('plain');
    expect(x.request.url).toBe(`${origin.url}/hello?a=1`);
    expect(x.response?.status).toBe(200);
    expect(x.upstreamProtocol).toBe('http/1.1');
    expect(Buffer.from(x.response!.body.bytes).toString()).toContain('"/hello?a=1"');
  });

  it('keeps header order and case, strips hop-by-hop headers on both legs', async () => {
    const r = await curl([
      '-x',
      tp.proxy.address.url,
      '-i',
      '-H',
      'X-First: 1',
      '-H',
      'x-MiXeD-Case: 2',
      '-H',
      'Proxy-Connection: keep-alive',
      '-H',
      'Connection: X-Secret',
      '-H',
      'X-Secret: hop',
      '-H',
      'X-Last: 3',
      `${origin.url}/headers`,
    ]);
    expect(r.code).toBe(0);
    const names = origin.lastRawHeaders.filter((_, i) => i % 2 === 0);
    expect(names).toContain('x-MiXeD-Case');
    expect(names.indexOf('X-First')).toBeLessThan(names.indexOf('x-MiXeD-Case'));
    expect(names.indexOf('x-MiXeD-Case')).toBeLessThan(names.indexOf('X-Last'));
    expect(names.map((n) => n.toLowerCase())).not.toContain('proxy-connection');
    expect(names.map((n) => n.toLowerCase())).not.toContain('x-secret');
    // Response header case survives the trip back.
    expect(r.stdout).toMatch(/\r\nX-Origin-Case: Kept\r\n/);
  });

  it('streams a large request body upstream intact and caps the capture', async () => {
    const small = await testProxy({ bodyCaptureLimit: 1024 });
    try {
      const body = crypto.randomBytes(3 * 1024 * 1024);
      const res = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port: small.proxy.address.port,
            method: 'POST',
            path: `${origin.url}/upload`,
            headers: { 'Content-Length': body.length },
          },
          (r) => {
            let text = '';
            r.setEncoding('utf8');
            r.on('data', (d) => (text += d));
            r.on('end', () => resolve({ status: r.statusCode ?? 0, text }));
          },
        );
        req.on('error', reject);
        // Several writes: the proxy must forward as it receives, not wait for the whole body.
        for (let i = 0; i < body.length; i += 256 * 1024) req.write(body.subarray(i, i + 256 * 1024));
        req.end();
      });
      expect(res.status).toBe(200);
      const echoed = JSON.parse(res.text);
      expect(echoed.bodyLength).toBe(body.length);
      expect(echoed.bodySha).toBe(crypto.createHash('sha256').update(body).digest('hex'));
      const [x] = await small.waitFor(1);
      expect(x.request.body.size).toBe(body.length);
      expect(x.request.body.bytes.length).toBe(1024);
      expect(x.request.body.truncated).toBe(true);
    } finally {
      await small.stop();
    }
  });

  it('reuses one upstream connection for many requests (keep-alive)', async () => {
    const before = origin.connections;
    for (let i = 0; i < 10; i++) {
      // Each curl run is a new client connection; the upstream leg must still be reused.
      const r = await curl(['-x', tp.proxy.address.url, `${origin.url}/ka/${i}`]);
      expect(r.code).toBe(0);
    }
    expect(origin.connections - before).toBeLessThanOrEqual(1);
    const xs = tp.exchanges().filter((x) => x.request.url.includes('/ka/'));
    expect(new Set(xs.map((x) => x.upstreamConnectionId)).size).toBe(1);
    // Only the first exchange on a connection pays for connect; reused ones report -1 (HAR rule).
    expect(xs.slice(1).every((x) => x.timings.connect === -1)).toBe(true);
  });

  it('reports HAR timings whose total is the sum of the non-negative phases', async () => {
    await curl(['-x', tp.proxy.address.url, `${origin.url}/timing`]);
    const x = (await tp.waitFor(1)).find((e) => e.request.url.endsWith('/timing'))!;
    const t = x.timings;
    const sum = [t.blocked, t.dns, t.connect, t.send, t.wait, t.receive].filter((n) => n >= 0).reduce((a, b) => a + b, 0);
    expect(t.total).toBeCloseTo(sum, 2);
    expect(t.wait).toBeGreaterThanOrEqual(0);
    expect(t.ssl).toBe(-1);
    expect(x.clientTimings.total).toBeGreaterThan(0);
  });

  it('emits request → response → complete in order with one id', async () => {
    const start = tp.events.length;
    await curl(['-x', tp.proxy.address.url, `${origin.url}/order`]);
    await tp.waitFor(tp.exchanges().length);
    const mine = tp.events.slice(start).filter((e) => e.type !== 'listening');
    expect(mine.map((e) => e.type)).toEqual(['request', 'response', 'complete']);
    const ids = mine.map((e) =>
      e.type === 'request' ? e.exchange.id : e.type === 'response' ? e.response.id : e.type === 'complete' ? e.exchange.id : '',
    );
    expect(new Set(ids).size).toBe(1);
  });
});
