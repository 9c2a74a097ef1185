/** Bad upstreams and bad clients: errors recorded, connections ended, the proxy keeps serving. */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { curl, echo, httpOrigin, testProxy, type Origin, type TestProxy } from './harness.js';

let tp: TestProxy;
let good: Origin;

beforeAll(async () => {
  tp = await testProxy();
  good = await httpOrigin(echo);
});
afterAll(async () => {
  await tp.stop();
  await good.close();
});

/** A port nothing listens on (bound then closed). */
async function deadPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** Sends raw bytes to the proxy and returns everything it answers until it closes. */
function raw(port: number, data: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(data));
    let out = '';
    s.setEncoding('latin1');
    s.on('data', (d) => (out += d));
    s.on('end', () => resolve(out));
    s.on('close', () => resolve(out));
    s.on('error', reject);
    s.setTimeout(5000, () => s.destroy());
  });
}

describe('upstream failures', () => {
  it('refused upstream: retried, recorded with NL_UPSTREAM_REFUSED, the client gets a 502 naming it (bad-gateway.test.ts)', async () => {
    const port = await deadPort();
    const r = await curl(['-x', tp.proxy.address.url, '-i', `http://127.0.0.1:${port}/x`]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^HTTP\/1\.1 502 Bad Gateway\r\n/);
    expect(r.stdout).toMatch(/^X-Netlens-Error: NL_UPSTREAM_REFUSED\r$/m);
    const x = (await tp.waitFor(1)).find((e) => e.request.url.includes(`:${port}/`))!;
    expect(x.error?.code).toBe('NL_UPSTREAM_REFUSED');
    expect(x.error?.message).toMatch(/refused/);
    expect(x.retries).toBe(2);
    // The response is the proxy's 502 (the error stays the source of truth).
    expect(x.response?.status).toBe(502);
  });

  it('empty response (origin closes at once): retried for GET, then recorded as a reset', async () => {
    let attempts = 0;
    const slam = net.createServer((s) => {
      attempts++;
      s.destroy();
    });
    await new Promise<void>((r) => slam.listen(0, '127.0.0.1', r));
    const port = (slam.address() as net.AddressInfo).port;
    try {
      const r = await curl(['-x', tp.proxy.address.url, `http://127.0.0.1:${port}/empty`]);
      expect(r.code).toBe(52);
      const x = tp.exchanges().find((e) => e.request.url.includes(`:${port}/empty`))!;
      expect(x.error?.code).toBe('NL_UPSTREAM_RESET');
      expect(attempts).toBe(3); // first try + 2 retries
    } finally {
      slam.close();
    }
  });

  it('does not retry a POST with a body (it may have had effects)', async () => {
    let attempts = 0;
    const slam = net.createServer((s) => {
      attempts++;
      s.once('data', () => s.destroy());
    });
    await new Promise<void>((r) => slam.listen(0, '127.0.0.1', r));
    const port = (slam.address() as net.AddressInfo).port;
    try {
      await curl(['-x', tp.proxy.address.url, '-d', 'x=1', `http://127.0.0.1:${port}/post`]);
      expect(attempts).toBe(1);
    } finally {
      slam.close();
    }
  });

  it('a response cut mid-body is recorded as an error and the client sees the cut', async () => {
    const cut = net.createServer((s) => {
      s.once('data', () => {
        s.write('HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\npartial');
        setTimeout(() => s.destroy(), 20);
      });
    });
    await new Promise<void>((r) => cut.listen(0, '127.0.0.1', r));
    const port = (cut.address() as net.AddressInfo).port;
    try {
      const r = await curl(['-x', tp.proxy.address.url, `http://127.0.0.1:${port}/cut`]);
      expect(r.code).not.toBe(0);
      const deadline = Date.now() + 5000;
      let x;
      while (!(x = tp.exchanges().find((e) => e.request.url.includes(`:${port}/cut`))) && Date.now() < deadline)
        await new Promise((res) => setTimeout(res, 20));
      expect(x?.error?.code).toBe('NL_UPSTREAM_RESET');
      expect(x?.response?.status).toBe(200);
      expect(Buffer.from(x!.response!.body.bytes).toString()).toBe('partial');
    } finally {
      cut.close();
    }
  });

  it('still serves other requests after all of the above', async () => {
    const r = await curl(['-x', tp.proxy.address.url, `${good.url}/after`]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).url).toBe('/after');
  });

  it('upstream that accepts but never answers: NL_UPSTREAM_TIMEOUT after upstreamTimeoutMs, client connection ended', async () => {
    const mute = net.createServer((s) => s.resume());
    await new Promise<void>((r) => mute.listen(0, '127.0.0.1', r));
    const port = (mute.address() as net.AddressInfo).port;
    const quick = await testProxy({ upstreamTimeoutMs: 300, retries: 0 });
    try {
      const started = Date.now();
      const r = await curl(['-x', quick.proxy.address.url, `http://127.0.0.1:${port}/slow`]);
      expect(r.code).toBe(52);
      const [x] = await quick.waitFor(1);
      expect(x.error?.code).toBe('NL_UPSTREAM_TIMEOUT');
      expect(x.error?.message).toMatch(/did not answer in time/);
      // Fired by the sweep: not before the deadline, and well before curl's own limit.
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await quick.stop();
      mute.close();
    }
  });
});

describe('bad client input', () => {
  it('malformed request line → 400, and the proxy keeps serving', async () => {
    const out = await raw(tp.proxy.address.port, 'THIS IS NOT HTTP\r\n\r\n');
    expect(out).toMatch(/^HTTP\/1\.1 400 /);
    const r = await curl(['-x', tp.proxy.address.url, `${good.url}/ok`]);
    expect(r.code).toBe(0);
  });

  it('invalid header → 400', async () => {
    const out = await raw(tp.proxy.address.port, `GET ${good.url}/ HTTP/1.1\r\nHost: x\r\nBad Header Name: y\r\n\r\n`);
    expect(out).toMatch(/^HTTP\/1\.1 400 /);
  });

  it('oversized request head → 431 Request Header Fields Too Large', async () => {
    const out = await raw(tp.proxy.address.port, `GET ${good.url}/ HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(80 * 1024)}\r\n\r\n`);
    expect(out).toMatch(/^HTTP\/1\.1 431 /);
  });

  it('origin-form request to the proxy itself → 400 with an explanation', async () => {
    const out = await raw(tp.proxy.address.port, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect(out).toMatch(/^HTTP\/1\.1 400 /);
    expect(out).toMatch(/use it as an HTTP proxy/);
  });

  it('refuses a request loop back into the proxy', async () => {
    const r = await curl(['-x', tp.proxy.address.url, '-i', `http://127.0.0.1:${tp.proxy.address.port}/loop`]);
    expect(r.stdout).toMatch(/^HTTP\/1\.1 400/);
    expect(r.stdout).toMatch(/request loop/);
  });

  it('CONNECT with a bad target → 400', async () => {
    const out = await raw(tp.proxy.address.port, 'CONNECT nonsense HTTP/1.1\r\nHost: nonsense\r\n\r\n');
    expect(out).toMatch(/^HTTP\/1\.1 400 /);
  });
});
