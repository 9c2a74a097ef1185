/**
 * File descriptors return to baseline after abrupt client closes (issue 13 item 6).
 *
 * On each path — plain forwarding, intercepted HTTP/1.1, intercepted HTTP/2, and
 * a blind tunnel whose upstream refuses — N clients (1,000 by default;
 * NETLENS_LIFECYCLE_CLOSES to change) close at a seeded random point with an RST
 * or a bare FIN, never a TLS close_notify. Within 10 s the process's open fds
 * must be back to the baseline ±5 and no socket on the proxy's port may sit in
 * CLOSE-WAIT (the state the leak left them in).
 */
import http2 from 'node:http2';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpOrigin, httpsOrigin, loadOrCreateCA, tempDataDir, testProxy, type Origin, type TestProxy } from '../proxy/harness.js';
import {
  abort,
  closeWaitCount,
  connect,
  eventually,
  fdCount,
  inBatches,
  readUntil,
  seeded,
  sleep,
  tlsOver,
  tunnel,
} from './lifecycle-helpers.js';

const CLOSES = Number(process.env.NETLENS_LIFECYCLE_CLOSES ?? 1000);
const WIDTH = 50;
const SETTLE_MS = 10_000;
const SLACK = 5;

let dataDir: string;
let plainOrigin: Origin;
let tlsOrigin: Origin;

beforeAll(async () => {
  dataDir = tempDataDir();
  const ca = loadOrCreateCA(dataDir);
  plainOrigin = await httpOrigin();
  tlsOrigin = await httpsOrigin(ca, { h2: true });
});
afterAll(async () => {
  await plainOrigin.close();
  await tlsOrigin.close();
});

/** Runs the abrupt clients, then checks fds and CLOSE-WAIT; returns the figures for the log. */
async function check(tp: TestProxy, name: string, client: (i: number, rnd: () => number) => Promise<void>, seed: number) {
  const rnd = seeded(seed);
  // Warm-up: pools, TLS contexts and lazy modules exist before the baseline.
  await inBatches(20, 10, (i) => client(i, () => 0.99));
  await sleep(500);
  const base = fdCount();
  const failed = await inBatches(CLOSES, WIDTH, (i) => client(i, rnd));
  const peak = fdCount();
  const settled = await eventually(() => fdCount() <= base + SLACK && closeWaitCount(tp.proxy.address.port) === 0, SETTLE_MS, 200);
  const after = fdCount();
  console.log(
    `[lifecycle-fds] ${name}: ${CLOSES} abrupt closes (${failed} clients saw an error), fds ${base} → peak ${peak} → ${after} after settling`,
  );
  expect(settled, `${name}: fds ${base} → ${after}, CLOSE-WAIT ${closeWaitCount(tp.proxy.address.port)}`).toBe(true);
}

describe('fds return to baseline after abrupt client closes', () => {
  it('plain forwarding', async () => {
    const tp = await testProxy({ dataDir });
    try {
      await check(
        tp,
        'plain',
        async (i, rnd) => {
          const s = await connect(tp.proxy.address.port);
          const point = rnd();
          const request = `POST ${plainOrigin.url}/p${i} HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789`;
          if (point < 0.25)
            s.write(request.slice(0, Math.floor(rnd() * 40))); // mid head
          else if (point < 0.5)
            s.write(request.slice(0, request.length - 5)); // mid body
          else {
            s.write(request);
            if (point >= 0.75) await readUntil(s, '"bodyLength"', 5000); // after the response
          }
          abort(s, rnd);
        },
        1,
      );
    } finally {
      await tp.stop();
    }
  });

  it('intercepted HTTP/1.1', async () => {
    const tp = await testProxy({ dataDir });
    try {
      await check(
        tp,
        'intercepted h1',
        async (i, rnd) => {
          const { socket } = await tunnel(tp.proxy.address.port, `localhost:${tlsOrigin.port}`);
          const point = rnd();
          if (point < 0.2) return abort(socket, rnd); // before the ClientHello
          if (point < 0.3) {
            socket.write(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01])); // a ClientHello cut short
            return abort(socket, rnd);
          }
          const t = await tlsOver(socket, 'localhost', ['http/1.1']);
          if (point >= 0.5) {
            t.write(`GET /h1-${i} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
            if (point >= 0.75) await readUntil(t, '"bodyLength"', 5000);
          }
          abort(socket, rnd);
        },
        2,
      );
    } finally {
      await tp.stop();
    }
  });

  it('intercepted HTTP/2', async () => {
    const tp = await testProxy({ dataDir });
    try {
      await check(
        tp,
        'intercepted h2',
        async (i, rnd) => {
          const { socket } = await tunnel(tp.proxy.address.port, `localhost:${tlsOrigin.port}`);
          const point = rnd();
          if (point < 0.2) return abort(socket, rnd);
          const t = await tlsOver(socket, 'localhost', ['h2']);
          if (point < 0.4) return abort(socket, rnd); // handshaken, no preface
          const session = http2.connect(`https://localhost:${tlsOrigin.port}`, { createConnection: () => t });
          session.on('error', () => {});
          const req = session.request({ ':path': `/h2-${i}` });
          req.on('error', () => {});
          req.end();
          if (point >= 0.7) {
            await new Promise<void>((resolve) => {
              req.on('response', () => resolve());
              req.on('close', () => resolve());
              setTimeout(resolve, 5000);
            });
          }
          abort(socket as net.Socket, rnd);
          session.destroy();
        },
        3,
      );
    } finally {
      await tp.stop();
    }
  });

  it('blind tunnel whose upstream refuses (--no-intercept)', async () => {
    const tp = await testProxy({ dataDir, intercept: false });
    // A port nobody listens on: bind, note, close.
    const closed = await connect(plainOrigin.port).then((s) => {
      const port = s.localPort!;
      s.destroy();
      return port;
    });
    try {
      await check(
        tp,
        'tunnel, upstream refused',
        async (_i, rnd) => {
          const s = await connect(tp.proxy.address.port);
          s.write(`CONNECT 127.0.0.1:${closed} HTTP/1.1\r\nHost: x\r\n\r\n`);
          if (rnd() < 0.5) await readUntil(s, '\r\n\r\n', 5000);
          abort(s, rnd);
        },
        4,
      );
      // A client that never closes: the proxy releases its side (fd) once the 502 is flushed,
      // instead of holding it in FIN-WAIT-2 until the client closes.
      await sleep(200);
      const before = fdCount();
      const idle = net.connect({ port: tp.proxy.address.port, host: '127.0.0.1', allowHalfOpen: true });
      idle.on('error', () => {});
      await new Promise((r) => idle.once('connect', r));
      idle.write(`CONNECT 127.0.0.1:${closed} HTTP/1.1\r\nHost: x\r\n\r\n`);
      const reply = await readUntil(idle, 'never', 5000);
      expect(reply).toMatch(/^HTTP\/1\.1 502 /);
      expect(idle.readableEnded).toBe(true);
      expect(
        await eventually(() => fdCount() <= before + 1, 2000),
        `fds ${before} → ${fdCount()} (the client's own socket is the +1)`,
      ).toBe(true);
      idle.destroy();
    } finally {
      await tp.stop();
    }
  });
});
