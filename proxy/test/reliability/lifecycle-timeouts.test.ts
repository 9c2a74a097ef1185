/**
 * Client and upstream timeouts (issue 13 item 8), with the timeouts set small:
 * slowloris heads (plain, cleartext in a tunnel, inside intercepted TLS) are
 * closed within the header timeout with 408 while normal requests keep working;
 * a tunnel that never sends a ClientHello, a stalled request body, an idle
 * keep-alive connection and an idle HTTP/2 session are closed; a stalled
 * upstream body ends the exchange with NL_UPSTREAM_BODY_TIMEOUT.
 */
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { curl, httpOrigin, httpsOrigin, loadOrCreateCA, tempDataDir, testProxy, type Origin, type TestProxy } from '../proxy/harness.js';
import type { Exchange } from '../../src/model.js';
import { connect, eventually, readUntil, sleep, tlsOver, tunnel } from './lifecycle-helpers.js';

/** Slowloris connections per path (plain; half as many in each tunnel kind). NETLENS_LIFECYCLE_SLOWLORIS=1200 for the figure. */
const SLOW = Number(process.env.NETLENS_LIFECYCLE_SLOWLORIS ?? 20);
/** Big runs need time just to open their tunnels (TLS handshakes) before the head deadline. */
const HEADER_MS = SLOW > 100 ? 20_000 : 800;
const TRICKLE_MS = SLOW > 100 ? 1000 : 100;
const IDLE_MS = 1500;
const BODY_MS = 800;
/** A deadline is checked every tenth of its length: allow that, plus scheduling noise on a busy machine. */
const SLACK_MS = SLOW > 100 ? 15_000 : 2500;

let dataDir: string;
let origin: Origin;
let tlsOrigin: Origin;
let stall: Origin;
let tp: TestProxy;

beforeAll(async () => {
  dataDir = tempDataDir();
  const ca = loadOrCreateCA(dataDir);
  origin = await httpOrigin();
  tlsOrigin = await httpsOrigin(ca, { h2: true }, (req, anyRes) => {
    const res = anyRes as http.ServerResponse;
    if (req.url === '/stall') {
      res.writeHead(200, { 'content-length': '10' });
      res.write('01234'); // then silence
      return;
    }
    res.end('ok');
  });
  stall = await httpOrigin((_req, anyRes) => {
    const res = anyRes as http.ServerResponse;
    res.writeHead(200, { 'Content-Length': '10' });
    res.write('01234');
  });
  tp = await testProxy({
    dataDir,
    headerTimeoutMs: HEADER_MS,
    idleTimeoutMs: IDLE_MS,
    bodyTimeoutMs: BODY_MS,
    upstreamBodyTimeoutMs: BODY_MS,
  });
});
afterAll(async () => {
  await tp.stop();
  await Promise.all([origin.close(), tlsOrigin.close(), stall.close()]);
});

/** Sends one byte of `text` every `everyMs` until the socket closes; resolves with what came back and when. */
function trickle(s: net.Socket | import('node:tls').TLSSocket, text: string, everyMs: number): Promise<{ reply: string; afterMs: number }> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    let reply = '';
    let i = 0;
    const timer = setInterval(() => {
      if (!s.destroyed && s.writable) s.write(text[i++ % text.length]);
    }, everyMs);
    s.on('data', (c: Buffer) => (reply += c.toString('latin1')));
    s.on('error', () => {});
    s.once('close', () => {
      clearInterval(timer);
      resolve({ reply, afterMs: Date.now() - t0 });
    });
  });
}

const exchangesWith = (code: string): Exchange[] => tp.exchanges().filter((x) => x.error?.code === code);

describe('client timeouts', () => {
  it(
    'closes slowloris heads with 408 within the header timeout, on every path, while normal requests work',
    { timeout: 180_000 },
    async () => {
      const line = 'GET http://127.0.0.1/ HTTP/1.1\r\nX-Slow: ';
      const slow: Promise<{ reply: string; afterMs: number }>[] = [];
      for (let i = 0; i < SLOW; i++) slow.push(connect(tp.proxy.address.port).then((s) => trickle(s, line, TRICKLE_MS)));
      for (let i = 0; i < SLOW / 2; i++) {
        slow.push(
          tunnel(tp.proxy.address.port, `127.0.0.1:${origin.port}`).then(({ socket }) =>
            trickle(socket, 'GET / HTTP/1.1\r\nX-Slow: ', TRICKLE_MS),
          ),
        );
        slow.push(
          tunnel(tp.proxy.address.port, `localhost:${tlsOrigin.port}`)
            .then(({ socket }) => tlsOver(socket, 'localhost', ['http/1.1']))
            .then((t) => trickle(t, 'GET / HTTP/1.1\r\nX-Slow: ', TRICKLE_MS)),
        );
      }
      // Normal traffic meanwhile: plain and intercepted.
      for (let i = 0; i < 3; i++) {
        const plain = await curl(['-x', tp.proxy.address.url, `${origin.url}/ok${i}`]);
        expect(plain.code, plain.stderr).toBe(0);
        const intercepted = await curl(['-x', tp.proxy.address.url, '-k', `https://localhost:${tlsOrigin.port}/ok${i}`]);
        expect(intercepted.code, intercepted.stderr).toBe(0);
      }
      const results = await Promise.all(slow);
      const slowest = Math.max(...results.map((r) => r.afterMs));
      console.log(
        `[lifecycle-timeouts] ${results.length} slowloris connections: all closed after ≤ ${slowest} ms (header timeout ${HEADER_MS} ms)`,
      );
      for (const r of results) {
        expect(r.reply).toMatch(/^HTTP\/1\.1 408 /);
        expect(r.afterMs).toBeLessThan(HEADER_MS + SLACK_MS);
      }
    },
  );

  it('closes a tunnel that never sends a ClientHello and records NL_CLIENT_TIMEOUT', async () => {
    const { socket, status } = await tunnel(tp.proxy.address.port, 'silent.example:443');
    expect(status).toMatch(/ 200 /);
    const t0 = Date.now();
    await new Promise((r) => socket.once('close', r));
    expect(Date.now() - t0).toBeLessThan(HEADER_MS + SLACK_MS);
    expect(await eventually(() => exchangesWith('NL_CLIENT_TIMEOUT').some((x) => x.request.url.includes('silent.example')), 2000)).toBe(
      true,
    );
  });

  it('closes a TLS handshake that stalls after part of a ClientHello', async () => {
    const { socket } = await tunnel(tp.proxy.address.port, 'halfhello.example:443');
    socket.write(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01]));
    const t0 = Date.now();
    await new Promise((r) => socket.once('close', r));
    expect(Date.now() - t0).toBeLessThan(HEADER_MS + SLACK_MS);
    expect(await eventually(() => exchangesWith('NL_CLIENT_TIMEOUT').some((x) => x.request.url.includes('halfhello.example')), 2000)).toBe(
      true,
    );
  });

  it('answers 408 to a stalled request body and records the exchange as NL_CLIENT_TIMEOUT', async () => {
    const s = await connect(tp.proxy.address.port);
    s.write(`POST ${origin.url}/slowbody HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n01234`);
    const reply = await readUntil(s, '\r\n\r\n', HEADER_MS + BODY_MS + SLACK_MS);
    expect(reply).toMatch(/^HTTP\/1\.1 408 /);
    const found = await eventually(() => exchangesWith('NL_CLIENT_TIMEOUT').some((x) => x.request.url.endsWith('/slowbody')), 3000);
    expect(found).toBe(true);
    s.destroy();
  });

  it('closes an idle keep-alive connection after the idle timeout, without a 408', async () => {
    const s = await connect(tp.proxy.address.port);
    s.write(`GET ${origin.url}/keepalive HTTP/1.1\r\nHost: x\r\n\r\n`);
    const first = await readUntil(s, '"bodyLength"');
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    const t0 = Date.now();
    const rest = await readUntil(s, 'never', IDLE_MS + SLACK_MS + 1000);
    expect(s.readableEnded || s.destroyed).toBe(true);
    expect(rest).toBe('');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(IDLE_MS - 100);
    s.destroy();
  });

  it('closes an intercepted HTTP/2 session with no streams after the idle timeout', async () => {
    const { socket } = await tunnel(tp.proxy.address.port, `localhost:${tlsOrigin.port}`);
    const t = await tlsOver(socket, 'localhost', ['h2']);
    const session = http2.connect(`https://localhost:${tlsOrigin.port}`, { createConnection: () => t });
    session.on('error', () => {});
    const status = await new Promise<number>((resolve) => {
      const req = session.request({ ':path': '/h2-idle' });
      req.on('response', (h) => resolve(Number(h[':status'])));
      req.resume();
      req.end();
    });
    expect(status).toBe(200);
    const t0 = Date.now();
    await new Promise((r) => session.once('close', r));
    expect(Date.now() - t0).toBeLessThan(IDLE_MS + SLACK_MS);
  });
});

describe('upstream body timeout', () => {
  it('plain HTTP/1.1: 5 of 10 bytes then silence → client closed, NL_UPSTREAM_BODY_TIMEOUT', async () => {
    const t0 = Date.now();
    const r = await curl(['-x', tp.proxy.address.url, `${stall.url}/stalled`], 10_000);
    expect(r.code).not.toBe(0); // incomplete body: curl reports the truncation
    expect(Date.now() - t0).toBeLessThan(BODY_MS + SLACK_MS + 1000);
    expect(await eventually(() => exchangesWith('NL_UPSTREAM_BODY_TIMEOUT').some((x) => x.request.url.endsWith('/stalled')), 2000)).toBe(
      true,
    );
  });

  it('intercepted h2 → h2 origin: the stream is reset, NL_UPSTREAM_BODY_TIMEOUT', async () => {
    const t0 = Date.now();
    const r = await curl(['-x', tp.proxy.address.url, '-k', '--http2', `https://localhost:${tlsOrigin.port}/stall`], 10_000);
    expect(r.code).not.toBe(0);
    expect(Date.now() - t0).toBeLessThan(BODY_MS + SLACK_MS + 1000);
    expect(await eventually(() => exchangesWith('NL_UPSTREAM_BODY_TIMEOUT').some((x) => x.request.url.endsWith('/stall')), 2000)).toBe(
      true,
    );
  });

  it('a slow reader is not an upstream stall: a large body read slowly still arrives whole', async () => {
    const big = await httpOrigin((_req, res) => {
      res.writeHead(200, { 'Content-Length': String(4 * 1024 * 1024) });
      res.end(Buffer.alloc(4 * 1024 * 1024, 97));
    });
    // Client send timeout well above the upstream body timeout, so only a wrong upstream verdict could cut this.
    const patient = await testProxy({ dataDir, bodyTimeoutMs: 10_000, upstreamBodyTimeoutMs: BODY_MS });
    try {
      const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const req = http.request(
          { host: '127.0.0.1', port: patient.proxy.address.port, path: `${big.url}/big`, headers: { Host: 'x' } },
          resolve,
        );
        req.on('error', reject);
        req.end();
      });
      // Read nothing for longer than the upstream body timeout: the client, not the origin, is slow.
      res.pause();
      await sleep(BODY_MS * 3);
      let n = 0;
      res.on('data', (c: Buffer) => (n += c.length));
      res.resume();
      await new Promise((r) => res.once('end', r));
      expect(n).toBe(4 * 1024 * 1024);
      expect((await patient.waitFor(1))[0].error).toBeUndefined();
    } finally {
      await patient.stop();
      await big.close();
    }
  });
});
