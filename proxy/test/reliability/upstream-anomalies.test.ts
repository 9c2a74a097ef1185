/**
 * The upstream-anomaly corpus: what real origins do wrong, one raw-bytes origin per
 * mode, through the plain HTTP/1.1 client leg. For each mode:
 * - what the client receives (a status and whether the body was complete, or a close
 *   without a response: the proxy never invents a page for an upstream failure);
 * - what the exchange records (error code and message, or none);
 * - how many requests the origin saw (a retry only while no response byte had come);
 * - that the proxy still serves a normal request afterwards, and nothing hangs.
 * The modes themselves, one documented line each, are in upstream-anomaly-modes.ts.
 */
import http2 from 'node:http2';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testProxy, type TestProxy } from '../proxy/harness.js';
import { rawOrigin, tlsOrigin, viaProxy, type RawOrigin } from './anomaly-origin.js';
import { h2Modes, modes, ok, tlsModes } from './upstream-anomaly-modes.js';

let tp: TestProxy;
let origin: RawOrigin;

beforeAll(async () => {
  // Short head timeout for the `silent` mode; retries as shipped (2).
  tp = await testProxy({ upstreamTimeoutMs: 1500 });
  origin = await rawOrigin({
    ...Object.fromEntries(modes.map((m) => [m.name, m.respond])),
    normal: (s) => s.write(ok()),
  });
});
afterAll(async () => {
  await tp?.stop();
  await origin?.close();
});

const lastExchange = (name: string) =>
  tp
    .exchanges()
    .filter((x) => x.request.url.endsWith(`/${name}`))
    .at(-1);

async function until(cond: () => boolean, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}

describe(`upstream anomaly corpus (${modes.length} modes, plain HTTP/1.1 client leg)`, () => {
  it('has at least 40 modes, each documented', () => {
    expect(modes.length).toBeGreaterThanOrEqual(40);
    for (const m of modes) expect(m.why.length, m.name).toBeGreaterThan(10);
    expect(new Set(modes.map((m) => m.name)).size).toBe(modes.length);
  });

  it.each(modes.map((m) => [m.name, m] as const))('%s', async (name, m) => {
    const url = `http://127.0.0.1:${origin.port}/${name}`;
    const steps = m.steps ?? 1;
    let outcome;
    for (let i = 0; i < steps; i++) {
      const before = tp.exchanges().length;
      outcome = await viaProxy(tp.proxy.address.port, url, { method: m.method });
      expect(outcome.kind, `step ${i + 1}: the client connection must end`).not.toBe('hung');
      expect(await until(() => tp.exchanges().length > before), 'the exchange is recorded').toBe(true);
      if (i < steps - 1) await new Promise((r) => setTimeout(r, 100));
    }
    if (process.env.ANOMALY_DEBUG) {
      const o = outcome?.kind === 'response' ? { ...outcome, headers: undefined, body: outcome.body.slice(0, 40) } : outcome;
      console.log(name, JSON.stringify(o), JSON.stringify(lastExchange(name)?.error), origin.count(name));
    }
    // The client.
    if (m.client === 'closed') {
      expect(outcome, 'closed without a made-up response').toMatchObject({ kind: 'closed' });
    } else {
      expect(outcome).toMatchObject({ kind: 'response', status: m.client.status, complete: m.client.complete ?? true });
      if (m.client.body !== undefined && outcome?.kind === 'response') expect(outcome.body).toBe(m.client.body);
    }
    // The record.
    const x = lastExchange(name)!;
    expect(x, 'exchange recorded').toBeDefined();
    if (m.code === null) expect(x.error, JSON.stringify(x.error)).toBeUndefined();
    else {
      expect(x.error?.code, x.error?.message).toBe(m.code);
      if (m.message) expect(x.error?.message).toMatch(m.message);
    }
    // The origin: a retry only while no response byte had come.
    await new Promise((r) => setTimeout(r, 50));
    expect(origin.count(name), 'requests the origin saw').toBe(m.requests);
    // The proxy still serves.
    const after = await viaProxy(tp.proxy.address.port, `http://127.0.0.1:${origin.port}/normal`);
    expect(after).toMatchObject({ kind: 'response', status: 200, body: 'ok', complete: true });
  });

  it('leaves no client connection open on the proxy after the corpus', async () => {
    // Every client above asked for Connection: close; a connection still open here would be a hang.
    const probe = net.connect(tp.proxy.address.port, '127.0.0.1');
    await new Promise((r) => probe.once('connect', r));
    probe.destroy();
    expect(await viaProxy(tp.proxy.address.port, `http://127.0.0.1:${origin.port}/normal`)).toMatchObject({
      kind: 'response',
      status: 200,
    });
  });
});

describe('upstream anomaly corpus: TLS and HTTP/2 origins (plain client leg, https:// targets)', () => {
  let h2origin: http2.Http2SecureServer;
  let h2port = 0;
  const streams = new Map<string, number>();
  beforeAll(async () => {
    const cert = tp.proxy.ca.issue(['127.0.0.1']);
    h2origin = http2.createSecureServer({ cert: cert.certPem, key: cert.keyPem });
    h2origin.on('stream', (st, headers) => {
      const name = String(headers[':path']).slice(1);
      streams.set(name, (streams.get(name) ?? 0) + 1);
      st.on('error', () => {});
      const mode = h2Modes.find((m) => m.name === name);
      if (mode) mode.respond(st, st.session as http2.ServerHttp2Session);
      else {
        st.respond({ ':status': 200 });
        st.end('ok');
      }
    });
    h2origin.on('sessionError', () => {});
    await new Promise<void>((r) => h2origin.listen(0, '127.0.0.1', r));
    h2port = (h2origin.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    h2origin?.close();
  });

  it.each(h2Modes.map((m) => [m.name, m] as const))('%s', async (name, m) => {
    const outcome = await viaProxy(tp.proxy.address.port, `https://127.0.0.1:${h2port}/${name}`);
    if (process.env.ANOMALY_DEBUG) {
      await until(() => !!lastExchange(name));
      console.log(name, JSON.stringify({ ...outcome, headers: undefined }), JSON.stringify(lastExchange(name)?.error), streams.get(name));
    }
    expect(outcome.kind).not.toBe('hung');
    if (m.client === 'closed') expect(outcome).toMatchObject({ kind: 'closed' });
    else {
      expect(outcome).toMatchObject({ kind: 'response', status: m.client.status, complete: m.client.complete ?? true });
      if (m.client.body !== undefined && outcome.kind === 'response') expect(outcome.body).toBe(m.client.body);
    }
    expect(await until(() => !!lastExchange(name))).toBe(true);
    const x = lastExchange(name)!;
    if (m.code === null) expect(x.error, JSON.stringify(x.error)).toBeUndefined();
    else expect(x.error?.code, x.error?.message).toBe(m.code);
    expect(x.upstreamProtocol ?? 'h2').toBe('h2');
    expect(streams.get(name) ?? 0, 'streams the origin saw').toBe(m.streams);
    expect(await viaProxy(tp.proxy.address.port, `https://127.0.0.1:${h2port}/normal`)).toMatchObject({
      kind: 'response',
      status: 200,
      body: 'ok',
    });
  });

  it.each(tlsModes.map((m) => [m.name, m] as const))('%s', async (name, m) => {
    const o = await tlsOrigin(tp.proxy.ca.issue(['127.0.0.1']), m.alpn, m.on);
    try {
      const outcome = await viaProxy(tp.proxy.address.port, `https://127.0.0.1:${o.port}/${name}`);
      expect(outcome).toMatchObject({ kind: 'closed' });
      expect(await until(() => !!lastExchange(name))).toBe(true);
      const x = lastExchange(name)!;
      if (process.env.ANOMALY_DEBUG) console.log(name, JSON.stringify(x.error), o.handshakes());
      expect(x.error?.code, x.error?.message).toBe(m.code);
      expect(o.handshakes()).toBe(m.handshakes);
      expect(await viaProxy(tp.proxy.address.port, `https://127.0.0.1:${h2port}/normal`)).toMatchObject({ kind: 'response', status: 200 });
    } finally {
      await o.close();
    }
  });
});
