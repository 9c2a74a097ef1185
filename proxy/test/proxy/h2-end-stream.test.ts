/**
 * How an intercepted HTTP/2 response ends on the client's connection, frame by frame (server/h2-response.ts,
 * h2-relay.ts): the proxy never forwards trailers, so no response waits for a 'wantTrailers' round trip and
 * sendTrailers; with no body, END_STREAM rides on the HEADERS frame; a burst of bodiless requests is not reset
 * after its responses. The client here decrypts the tunnel itself and hands node:http2 the plaintext through a
 * JavaScript stream, so every frame the proxy sent is seen.
 */
import http from 'node:http';
import http2 from 'node:http2';
import type net from 'node:net';
import { Duplex } from 'node:stream';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpsOrigin, loadOrCreateCA, tempDataDir, testProxy, type Origin, type TestProxy } from './harness.js';

const SMALL = 'i'.repeat(1500);
const LARGE = 3 * 1024 * 1024;
const dataDir = tempDataDir();
const ca = loadOrCreateCA(dataDir);
let origin: Origin;
let tp: TestProxy;
/** sendTrailers calls on streams of the proxy's client sessions, and on the origin's (which answers through the compatibility API). */
const trailers = { proxy: 0, origin: 0 };
let restoreSendTrailers: (() => void) | undefined;

/** Counts sendTrailers on every server stream from now on (ServerHttp2Stream is not exported: found from one). */
function countTrailers(stream: http2.ServerHttp2Stream): void {
  if (restoreSendTrailers) return;
  const proto = Object.getPrototypeOf(stream) as { sendTrailers: (this: http2.ServerHttp2Stream, h: unknown) => void };
  const original = proto.sendTrailers;
  proto.sendTrailers = function (h) {
    if (this.session?.socket?.localPort === tp.proxy.address.port) trailers.proxy++;
    else trailers.origin++;
    return original.call(this, h);
  };
  restoreSendTrailers = () => (proto.sendTrailers = original);
}

interface Frame {
  type: number;
  flags: number;
  stream: number;
  length: number;
}
const DATA = 0;
const HEADERS = 1;
const RST_STREAM = 3;
const END_STREAM = 0x1;

beforeAll(async () => {
  origin = await httpsOrigin(ca, { h2: true }, (req, res) => {
    req.resume();
    countTrailers((res as http2.Http2ServerResponse).stream);
    const path = req.url ?? '';
    if (path === '/small') {
      // On the stream, as most origins answer: END_STREAM on the DATA frame (Node's compatibility response
      // would end with an empty DATA frame of its own, which the proxy then has to relay as one).
      const stream = (res as http2.Http2ServerResponse).stream;
      stream.respond({ ':status': 200, 'content-type': 'image/png', 'content-length': String(SMALL.length) });
      stream.end(SMALL);
    } else if (path === '/compat') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(SMALL); // through the compatibility API: trailers, an empty DATA frame with END_STREAM
    } else if (path === '/empty') {
      res.writeHead(204, {});
      res.end();
    } else if (path === '/not-modified') {
      res.writeHead(304, { etag: '"x"' });
      res.end();
    } else if (path === '/large') {
      const stream = (res as http2.Http2ServerResponse).stream;
      stream.respond({ ':status': 200, 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      let left = LARGE / chunk.length;
      const more = () => {
        while (left > 1) {
          left--;
          if (!stream.write(chunk)) return void stream.once('drain', more);
        }
        stream.end(chunk);
      };
      more();
    } else {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(SMALL.length) });
      res.end(SMALL); // HEAD: the origin's body is dropped by node:http2
    }
  });
  tp = await testProxy({ dataDir, intercept: true, http2: true, upstreamCA: [ca.certPem] });
}, 30_000);
afterAll(async () => {
  restoreSendTrailers?.();
  await tp?.stop();
  await origin?.close();
});

/** An HTTP/2 session through the proxy's tunnel whose received frames (after TLS) land in `frames`. */
async function watchedSession(frames: Frame[]): Promise<http2.ClientHttp2Session> {
  const target = new URL(origin.url);
  const raw = await new Promise<net.Socket>((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port: tp.proxy.address.port,
      method: 'CONNECT',
      path: `${target.hostname}:${target.port}`,
    });
    req.on('connect', (_res, s) => resolve(s));
    req.on('error', reject);
    req.end();
  });
  const secure = tls.connect({ socket: raw, servername: 'localhost', ALPNProtocols: ['h2'], ca: ca.certPem });
  let pending = Buffer.alloc(0);
  const plain = new Duplex({
    read() {},
    write(chunk: Buffer, _enc, cb) {
      secure.write(chunk, cb);
    },
    final(cb) {
      secure.end(cb);
    },
  });
  secure.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 9) {
      const length = pending.readUIntBE(0, 3);
      if (pending.length < 9 + length) break;
      frames.push({ type: pending[3]!, flags: pending[4]!, stream: pending.readUInt32BE(5) & 0x7fffffff, length });
      pending = pending.subarray(9 + length);
    }
    plain.push(chunk);
  });
  secure.on('end', () => plain.push(null));
  secure.on('error', (err) => plain.destroy(err));
  await new Promise((ok, fail) => secure.once('secureConnect', ok).once('error', fail));
  const session = http2.connect(origin.url, { createConnection: () => plain });
  await new Promise((ok, fail) => session.once('connect', ok).once('error', fail));
  return session;
}

function get(s: http2.ClientHttp2Session, path: string, method = 'GET'): Promise<{ id: number; status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const st = s.request({ ':path': path, ':method': method });
    let status = 0;
    let bytes = 0;
    st.on('response', (h) => (status = Number(h[':status'])));
    st.on('data', (c: Buffer) => (bytes += c.length));
    st.on('end', () => resolve({ id: st.id!, status, bytes }));
    st.on('error', reject);
  });
}

describe('HTTP/2 response end (intercepted)', () => {
  it('no trailers round trip; END_STREAM on HEADERS when there is no body, once on DATA otherwise', async () => {
    const frames: Frame[] = [];
    const session = await watchedSession(frames);
    try {
      // One at a time, so each response's frames are its own turn of the proxy.
      const small = await get(session, '/small');
      const head = await get(session, '/head', 'HEAD');
      const empty = await get(session, '/empty');
      const notModified = await get(session, '/not-modified');
      const large = await get(session, '/large');
      const compat = await get(session, '/compat');
      expect([small.status, head.status, empty.status, notModified.status, large.status, compat.status]).toEqual([
        200, 200, 204, 304, 200, 200,
      ]);
      expect(compat.bytes).toBe(SMALL.length);
      expect([small.bytes, head.bytes, empty.bytes, large.bytes]).toEqual([SMALL.length, 0, 0, LARGE]);
      const of = (id: number) => frames.filter((f) => f.stream === id && (f.type === DATA || f.type === HEADERS));

      // A body: HEADERS, then DATA frames with all of it, END_STREAM on the last one (empty when the origin's end came
      // after its last chunk was relayed), and no trailers (the compatibility response sent empty ones every time).
      const small_ = of(small.id);
      expect(small_[0]!.type).toBe(HEADERS);
      expect(small_[0]!.flags & END_STREAM).toBe(0);
      expect(small_.slice(1).every((f) => f.type === DATA)).toBe(true);
      expect(small_.slice(1).reduce((n, f) => n + f.length, 0)).toBe(SMALL.length);
      expect(small_.filter((f) => f.flags & END_STREAM)).toEqual([small_.at(-1)]);
      // No body: one HEADERS frame that ends the stream.
      for (const r of [head, empty, notModified]) {
        expect(of(r.id).map((f) => [f.type, f.flags & END_STREAM])).toEqual([[HEADERS, END_STREAM]]);
      }
      // A large body (with backpressure on the way): every byte arrives and no DATA frame is empty.
      const data = of(large.id).filter((f) => f.type === DATA);
      expect(data.reduce((n, f) => n + f.length, 0)).toBe(LARGE);
      expect(data.filter((f) => f.flags & END_STREAM)).toHaveLength(1);
      expect(data.slice(0, -1).every((f) => f.length > 0)).toBe(true);
      // The origin answers through Node's compatibility API, which always sends trailers: the count sees them.
      expect(trailers.origin).toBeGreaterThan(0);
      expect(trailers.proxy).toBe(0);
    } finally {
      session.close();
    }
    const xs = (await tp.waitFor(6)).slice(0, 5);
    expect(xs.map((x) => [x.request.method, x.response?.status, x.error])).toEqual([
      ['GET', 200, undefined],
      ['HEAD', 200, undefined],
      ['GET', 204, undefined],
      ['GET', 304, undefined],
      ['GET', 200, undefined],
    ]);
    expect(xs.every((x) => x.timestamps.clientResponseEnd !== undefined)).toBe(true);
  }, 30_000);

  it('a burst of responses ends its streams without RST_STREAM (a request with no body is never reset after its response)', async () => {
    const frames: Frame[] = [];
    const session = await watchedSession(frames);
    try {
      const all = await Promise.all(Array.from({ length: 100 }, () => get(session, '/small')));
      expect(all.filter((r) => r.status !== 200 || r.bytes !== SMALL.length)).toEqual([]);
      // The last streams' closes travel after their END_STREAM: give a reset the time to show up.
      await new Promise((ok) => setTimeout(ok, 100));
      expect(frames.filter((f) => f.type === RST_STREAM)).toEqual([]);
      const ends = frames.filter((f) => f.type === DATA && f.flags & END_STREAM);
      expect(ends).toHaveLength(100);
      expect(trailers.proxy).toBe(0);
    } finally {
      session.close();
    }
  }, 30_000);
});
