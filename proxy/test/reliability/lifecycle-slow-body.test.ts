/**
 * Responses whose body leaves after the head (a slow origin, or a rule pacing it): clients that leave in
 * between must not leave sessions, sockets or upstream requests behind. HTTP/2 clients (three ways the
 * body is slow), intercepted HTTP/1.1 and plain forwarding (the slow origin).
 *
 * Issue 17 found the risk: holding a response's chunks for one event-loop turn left 110 of 1,000
 * sessions open when clients left right after the head. Here every response is slow on purpose
 * (1 KiB chunks 25 ms apart for 30 s from the origin, 1 MiB at 256 kbit/s through a throttle rule, or a
 * mock trickled by a fault rule), and each client leaves at a seeded random point: after the head or
 * after body bytes; an HTTP/2 client with an abrupt close of its socket or by cancelling only its stream
 * (RST_STREAM) and closing its session cleanly. Within 10 s the process's open fds are back at the
 * baseline (±5), nothing sits in CLOSE-WAIT on the proxy's port, the origin has no request left open,
 * and every exchange that started ends, recorded as the client leaving (before the fix, Node's HTTP/2 compatibility
 * response made every cancelled stream look finished: recorded complete, its upstream stream left open).
 */
import http2 from 'node:http2';
import type http from 'node:http';
import type net from 'node:net';
import type tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  httpOrigin,
  httpsOrigin,
  loadOrCreateCA,
  tempDataDir,
  testProxy,
  type Handler,
  type Origin,
  type TestProxy,
} from '../proxy/harness.js';
import { holderWith } from '../rules/rules-harness.js';
import type { Rule } from '../../src/rules/types.js';
import { ErrorCodes } from '../../src/errors.js';
import { bucketsInUse } from '../../src/rules/pacing.js';
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

const CLIENTS = 200;
const WIDTH = 25;
const SETTLE_MS = 10_000;
const SLACK = 5;
/** Timers come and go with live connections (keep-alive, pacing slices about to see their stream gone); the leak was one per client. */
const TIMER_SLACK = 10;
/** Long enough that a stream the proxy forgot to cancel is still open at the origin when the check ends. */
const CHUNKS = 1200;
const CHUNK_EVERY_MS = 25;

let dataDir: string;
let origin: Origin;
let plainOrigin: Origin;
/** Requests the origins have open (not finished, not seen closed). */
let openAtOrigin = 0;

/** `/slow…` trickles 1 KiB chunks 25 ms apart for 30 s; `/upload` answers when the body ends; anything else 1 MiB at once. */
const handler: Handler = (req, res) => {
  openAtOrigin++;
  let open = true;
  res.once('close', () => {
    open = false;
    openAtOrigin--;
  });
  req.resume();
  const out = res as http.ServerResponse;
  if (req.url?.startsWith('/upload')) {
    // Answers once the whole request body is in: a body cut short must not leave the request open here.
    req.on('end', () => out.end('ok'));
    return;
  }
  out.writeHead(200, { 'content-type': 'application/octet-stream' });
  if (!req.url?.startsWith('/slow')) {
    out.end(Buffer.alloc(1024 * 1024, 1));
    return;
  }
  let sent = 0;
  const timer = setInterval(() => {
    if (!open) return clearInterval(timer);
    out.write(Buffer.alloc(1024, 2));
    if (++sent === CHUNKS) {
      clearInterval(timer);
      out.end();
    }
  }, CHUNK_EVERY_MS);
};

beforeAll(async () => {
  dataDir = tempDataDir();
  origin = await httpsOrigin(loadOrCreateCA(dataDir), { h2: true }, handler);
  plainOrigin = await httpOrigin(handler);
});
afterAll(async () => {
  await origin.close();
  await plainOrigin.close();
});

/** Timers this process has running: a body paced for a client that left must not keep its own going. */
const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

type Client = (tp: TestProxy, path: string, rnd: () => number) => Promise<void>;

/** A tunnel through the proxy to the TLS origin, TLS over it with `alpn`. */
async function intercepted(tp: TestProxy, alpn: string): Promise<{ socket: net.Socket; t: tls.TLSSocket }> {
  const { socket } = await tunnel(tp.proxy.address.port, `localhost:${origin.port}`);
  return { socket, t: await tlsOver(socket, 'localhost', [alpn]) };
}

/** An HTTP/2 session over an intercepted tunnel, and how its client leaves: its stream cancelled, or its socket cut. */
async function h2Session(tp: TestProxy) {
  const { socket, t } = await intercepted(tp, 'h2');
  const session = http2.connect(`https://localhost:${origin.port}`, { createConnection: () => t });
  session.on('error', () => {});
  const leave = (req: http2.ClientHttp2Stream, rnd: () => number) => {
    if (rnd() < 0.5) {
      // Cancel the stream only, then close the session the polite way.
      req.close(http2.constants.NGHTTP2_CANCEL);
      session.close();
    } else {
      abort(socket, rnd);
      session.destroy();
    }
  };
  return { session, leave };
}

/** An HTTP/2 client: one GET of `path`; leaves after the head or the first DATA frame. */
const h2Client: Client = async (tp, path, rnd) => {
  const { session, leave } = await h2Session(tp);
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
  leave(req, rnd);
};

const UPLOAD = 1024 * 1024;
/** The first 16 KiB of a 1 MiB upload on `out`, then 50 ms for it to reach the origin. */
async function startUpload(out: NodeJS.WritableStream, head?: string): Promise<void> {
  if (head) out.write(head);
  out.write(Buffer.alloc(16 * 1024, 3));
  await sleep(50);
}

/** An HTTP/2 upload that stops half-way: 16 KiB of a 1 MiB body, then the stream is cancelled or the socket cut. */
const h2Upload: Client = async (tp, path, rnd) => {
  const { session, leave } = await h2Session(tp);
  const req = session.request({ ':path': path, ':method': 'POST', 'content-length': String(UPLOAD) });
  req.on('error', () => {});
  await startUpload(req);
  leave(req, rnd);
};

/** Intercepted HTTP/1.1 upload that stops half-way (the proxy's upstream leg is HTTP/2: the origin offers it). */
const h1Upload: Client = async (tp, path, rnd) => {
  const { socket, t } = await intercepted(tp, 'http/1.1');
  await startUpload(t, `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${UPLOAD}\r\n\r\n`);
  abort(socket, rnd);
};

/** Plain forwarding of an upload that stops half-way: 16 KiB of a 1 MiB body, then the socket is cut. */
const plainUpload: Client = async (tp, path, rnd) => {
  const s = await connect(tp.proxy.address.port);
  await startUpload(s, `POST ${plainOrigin.url}${path} HTTP/1.1\r\nHost: x\r\nContent-Length: ${UPLOAD}\r\n\r\n`);
  abort(s, rnd);
};

/** An HTTP/1.1 client over `socket` (a tunnel's TLS, or the proxy itself): one GET, leaves once body bytes arrived. */
async function h1Exchange(socket: net.Socket | tls.TLSSocket, raw: net.Socket, target: string, rnd: () => number): Promise<void> {
  socket.write(`GET ${target} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  // The head, then at least one chunk of the body (the slow origin's first 1 KiB).
  await readUntil(socket, rnd() < 0.5 ? '\r\n\r\n' : '\u0002', 5000);
  abort(raw, rnd);
}

/** Intercepted HTTP/1.1: a tunnel, TLS with http/1.1. */
const h1Client: Client = async (tp, path, rnd) => {
  const { socket, t } = await intercepted(tp, 'http/1.1');
  await h1Exchange(t, socket, path, rnd);
};

/** Plain forwarding: an absolute-form GET to the plain origin. */
const plainClient: Client = async (tp, path, rnd) => {
  const s = await connect(tp.proxy.address.port);
  await h1Exchange(s, s, `${plainOrigin.url}${path}`, rnd);
};

async function check(tp: TestProxy, name: string, path: string, seed: number, client: Client = h2Client): Promise<void> {
  const rnd = seeded(seed);
  // Warm-up: the upstream session, TLS contexts and lazy modules exist before the baseline.
  await inBatches(10, 5, () => client(tp, path, () => 0.99));
  await eventually(() => openAtOrigin === 0, SETTLE_MS);
  await sleep(300);
  const base = fdCount();
  const baseTimers = timers();
  const eventsBefore = tp.events.length;
  const failed = await inBatches(CLIENTS, WIDTH, () => client(tp, path, rnd));
  const peak = fdCount();
  const settled = await eventually(
    () =>
      fdCount() <= base + SLACK &&
      closeWaitCount(tp.proxy.address.port) === 0 &&
      openAtOrigin === 0 &&
      timers() <= baseTimers + TIMER_SLACK,
    SETTLE_MS,
    200,
  );
  console.log(
    `[lifecycle-slow-body] ${name}: ${CLIENTS} clients left mid-body (${failed} saw an error), ` +
      `fds ${base} → peak ${peak} → ${fdCount()}, requests open at the origin ${openAtOrigin}, timers ${baseTimers} → ${timers()}`,
  );
  // Each exchange that started ends, recorded as the client leaving, not as a complete response. (A client's RST
  // can reach the proxy before it read the request: the kernel drops the unread bytes, and no exchange starts.)
  const started = new Set(tp.events.slice(eventsBefore).flatMap((e) => (e.type === 'request' ? [e.exchange.id] : [])));
  expect(started.size, 'most requests reached the proxy').toBeGreaterThan(CLIENTS / 2);
  const ended = () => tp.exchanges().filter((x) => started.has(x.id));
  expect(await eventually(() => ended().length === started.size, SETTLE_MS), `${ended().length} of ${started.size} exchanges ended`).toBe(
    true,
  );
  expect(
    ended()
      .filter((x) => x.error?.code !== ErrorCodes.CLIENT_ABORTED)
      .map((x) => x.error?.code ?? 'complete'),
  ).toEqual([]);
  expect(
    settled,
    `${name}: fds ${base} → ${fdCount()}, CLOSE-WAIT ${closeWaitCount(tp.proxy.address.port)}, origin requests open ${openAtOrigin}, ` +
      `timers ${baseTimers} → ${timers()}`,
  ).toBe(true);
}

interface Case {
  title: string;
  path: string;
  seed: number;
  client?: Client;
  rules?: Rule[];
  /** More to check once the proxy has settled. */
  after?: () => Promise<void>;
}

const CASES: Case[] = [
  { title: 'a slow origin (1 KiB every 25 ms for 30 s)', path: '/slow', seed: 5 },
  {
    title: 'a fast origin behind a 256 kbit/s throttle rule',
    path: '/fast',
    seed: 6,
    rules: [{ id: 'slow', match: {}, actions: [{ type: 'throttle', downloadKbps: 256 }] }],
    // Each connection's bandwidth bucket went with its last stream.
    after: async () => expect(await eventually(() => bucketsInUse() === 0, 5000)).toBe(true),
  },
  {
    title: 'a mocked response trickled by a fault rule (64 bytes every 50 ms)',
    path: '/mocked',
    seed: 7,
    rules: [
      {
        id: 'mocked',
        match: {},
        actions: [
          { type: 'mock', status: 200, body: 'x'.repeat(64 * 1024) },
          { type: 'fault', fault: 'trickle', bytes: 64, intervalMs: 50 },
        ],
      },
    ],
  },
  { title: 'intercepted HTTP/1.1, a slow origin', path: '/slow', seed: 8, client: h1Client },
  { title: 'plain forwarding, a slow origin', path: '/slow', seed: 9, client: plainClient },
  { title: 'HTTP/2 uploads cut short (stream cancelled or socket cut after 16 KiB of 1 MiB)', path: '/upload', seed: 10, client: h2Upload },
  { title: 'intercepted HTTP/1.1 uploads cut short', path: '/upload', seed: 12, client: h1Upload },
  { title: 'plain uploads cut short', path: '/upload', seed: 11, client: plainUpload },
];

describe('clients that leave while a response body is still coming', () => {
  for (const c of CASES) {
    it(c.title, async () => {
      const tp = await testProxy({ dataDir, ...(c.rules ? { rules: holderWith(c.rules) } : {}) });
      try {
        await check(tp, c.title, c.path, c.seed, c.client);
        await c.after?.();
      } finally {
        await tp.stop();
      }
    });
  }
});
