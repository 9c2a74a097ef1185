/**
 * HTTP/2 responses whose body leaves after the head (a slow origin, or a throttle rule pacing it):
 * clients that leave in between must not leave sessions, sockets or upstream streams behind.
 *
 * Issue 17 found the risk: holding a response's chunks for one event-loop turn left 110 of 1,000
 * sessions open when clients left right after the head. Here every response is slow on purpose
 * (1 KiB chunks 25 ms apart for 30 s from the origin, or 1 MiB at 256 kbit/s through a throttle rule), and each
 * client leaves at a seeded random point: after the head, after the first DATA frame, with an
 * abrupt close of its socket, or by cancelling only its stream (RST_STREAM) and closing its session
 * cleanly. Within 10 s the process's open fds are back at the baseline (±5), nothing sits in
 * CLOSE-WAIT on the proxy's port, and the origin has no stream left open.
 */
import http2 from 'node:http2';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpsOrigin, loadOrCreateCA, tempDataDir, testProxy, type Handler, type Origin, type TestProxy } from '../proxy/harness.js';
import { holderWith } from '../rules/rules-harness.js';
import { ErrorCodes } from '../../src/errors.js';
import { abort, closeWaitCount, eventually, fdCount, inBatches, seeded, sleep, tlsOver, tunnel } from './lifecycle-helpers.js';

const CLIENTS = 200;
const WIDTH = 25;
const SETTLE_MS = 10_000;
const SLACK = 5;
/** Long enough that a stream the proxy forgot to cancel is still open at the origin when the check ends. */
const CHUNKS = 1200;
const CHUNK_EVERY_MS = 25;

let dataDir: string;
let origin: Origin;
/** Streams the origin has open (a request it has not finished or seen closed). */
let openAtOrigin = 0;

/** `/slow…` trickles 1 KiB chunks 25 ms apart for 30 s; anything else answers 1 MiB at once. */
const handler: Handler = (req, res) => {
  openAtOrigin++;
  const stream = (res as http2.Http2ServerResponse).stream;
  stream.once('close', () => openAtOrigin--);
  req.resume();
  res.writeHead(200, { 'content-type': 'application/octet-stream' });
  if (!req.url?.startsWith('/slow')) {
    res.end(Buffer.alloc(1024 * 1024, 1));
    return;
  }
  let sent = 0;
  const timer = setInterval(() => {
    if (stream.destroyed || stream.closed) return clearInterval(timer);
    stream.write(Buffer.alloc(1024, 2));
    if (++sent === CHUNKS) {
      clearInterval(timer);
      res.end();
    }
  }, CHUNK_EVERY_MS);
};

beforeAll(async () => {
  dataDir = tempDataDir();
  origin = await httpsOrigin(loadOrCreateCA(dataDir), { h2: true }, handler);
});
afterAll(async () => {
  await origin.close();
});

/** One client: a tunnel, TLS with h2, one GET of `path`; leaves after the head or the first DATA frame. */
async function client(tp: TestProxy, path: string, rnd: () => number): Promise<void> {
  const { socket } = await tunnel(tp.proxy.address.port, `localhost:${origin.port}`);
  const t = await tlsOver(socket, 'localhost', ['h2']);
  const session = http2.connect(`https://localhost:${origin.port}`, { createConnection: () => t });
  session.on('error', () => {});
  const req = session.request({ ':path': path });
  req.on('error', () => {});
  req.end();
  const afterData = rnd() < 0.5;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 5000);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    if (afterData) req.once('data', done);
    else req.once('response', done);
    req.once('close', done);
  });
  if (rnd() < 0.5) {
    // Cancel the stream only, then close the session the polite way.
    req.close(http2.constants.NGHTTP2_CANCEL);
    session.close();
  } else {
    abort(socket as net.Socket, rnd);
    session.destroy();
  }
}

async function check(tp: TestProxy, name: string, path: string, seed: number): Promise<void> {
  const rnd = seeded(seed);
  // Warm-up: the upstream session, TLS contexts and lazy modules exist before the baseline.
  await inBatches(10, 5, () => client(tp, path, () => 0.99));
  await eventually(() => openAtOrigin === 0, SETTLE_MS);
  await sleep(300);
  const base = fdCount();
  const recorded = tp.exchanges().length;
  const failed = await inBatches(CLIENTS, WIDTH, () => client(tp, path, rnd));
  const peak = fdCount();
  const settled = await eventually(
    () => fdCount() <= base + SLACK && closeWaitCount(tp.proxy.address.port) === 0 && openAtOrigin === 0,
    SETTLE_MS,
    200,
  );
  console.log(
    `[lifecycle-h2-slow-body] ${name}: ${CLIENTS} clients left mid-body (${failed} saw an error), ` +
      `fds ${base} → peak ${peak} → ${fdCount()}, streams open at the origin ${openAtOrigin}`,
  );
  // Each one is recorded as the client leaving, not as a complete response.
  const mine = (await tp.waitFor(recorded + CLIENTS)).slice(recorded);
  expect(mine.filter((x) => x.error?.code !== ErrorCodes.CLIENT_ABORTED).map((x) => x.error?.code ?? 'complete')).toEqual([]);
  expect(
    settled,
    `${name}: fds ${base} → ${fdCount()}, CLOSE-WAIT ${closeWaitCount(tp.proxy.address.port)}, origin streams ${openAtOrigin}`,
  ).toBe(true);
}

describe('HTTP/2 clients that leave while a response body is still coming', () => {
  it('a slow origin (1 KiB every 25 ms for 30 s)', async () => {
    const tp = await testProxy({ dataDir });
    try {
      await check(tp, 'slow origin', '/slow', 5);
    } finally {
      await tp.stop();
    }
  });

  it('a fast origin behind a 256 kbit/s throttle rule', async () => {
    const rules = holderWith([{ id: 'slow', match: {}, actions: [{ type: 'throttle', downloadKbps: 256 }] }]);
    const tp = await testProxy({ dataDir, rules });
    try {
      await check(tp, 'throttled', '/fast', 6);
    } finally {
      await tp.stop();
    }
  });

  it('a mocked response trickled by a fault rule (64 bytes every 50 ms)', async () => {
    const rules = holderWith([
      {
        id: 'mocked',
        match: {},
        actions: [
          { type: 'mock', status: 200, body: 'x'.repeat(64 * 1024) },
          { type: 'fault', fault: 'trickle', bytes: 64, intervalMs: 50 },
        ],
      },
    ]);
    const tp = await testProxy({ dataDir, rules });
    try {
      await check(tp, 'trickled mock', '/mocked', 7);
    } finally {
      await tp.stop();
    }
  });
});
