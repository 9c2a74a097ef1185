/**
 * Bodiless HTTP/2 requests handled on their streams, without Node's compatibility objects (server/h2-stream-leg.ts):
 * the response object alone on a plain node:http2 server (head, end, 'finish' then 'close', a reset, HEAD), and
 * through the proxy which requests take that path, which take Node's objects (a body, rules), and that both are
 * answered and recorded alike. The module is wrapped (vi.mock) only to count the path each request took.
 */
import http2 from 'node:http2';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { responseFinished } from '../../src/server/client.js';
import { H2StreamResponse, isBodilessPlainRequest } from '../../src/server/h2-stream-leg.js';
import { ErrorCodes } from '../../src/errors.js';
import { RulesHolder } from '../../src/rules/engine.js';
import { validateRules } from '../../src/rules/validate.js';
import { httpsOrigin, interceptedConnection, loadOrCreateCA, tempDataDir, testProxy, type Origin, type TestProxy } from './harness.js';

const paths = vi.hoisted(() => ({ stream: 0, compat: 0 }));
vi.mock('../../src/server/h2-stream-leg.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/server/h2-stream-leg.js')>();
  class CountedRequest extends real.H2StreamRequest {
    constructor(...args: ConstructorParameters<typeof real.H2StreamRequest>) {
      super(...args);
      paths.stream++;
    }
  }
  return {
    ...real,
    H2StreamRequest: CountedRequest,
    toCompat: (req: InstanceType<typeof real.H2StreamRequest>) => {
      paths.compat++;
      return real.toCompat(req);
    },
  };
});

/** A node:http2 server whose streams get `handler`; and a client session to it. */
async function streamServer(
  handler: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => void,
): Promise<{ client: http2.ClientHttp2Session; close: () => Promise<void> }> {
  const server = http2.createServer();
  server.on('stream', handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const client = http2.connect(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}`);
  return {
    client,
    close: async () => {
      client.close();
      await new Promise((r) => server.close(r));
    },
  };
}

/** One request on `client`: its status, headers and body, or the error it ended with. */
function request(
  client: http2.ClientHttp2Session,
  headers: http2.OutgoingHttpHeaders,
  body?: string,
): Promise<{ status: number; headers: http2.IncomingHttpHeaders; body: string; error?: Error }> {
  return new Promise((resolve) => {
    const s = client.request(headers, { endStream: body === undefined });
    let h: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    s.on('response', (r) => (h = r));
    s.on('data', (c: Buffer) => chunks.push(c));
    const done = (error?: Error) =>
      resolve({ status: Number(h[':status'] ?? 0), headers: h, body: Buffer.concat(chunks).toString(), ...(error ? { error } : {}) });
    s.on('end', () => done());
    s.on('error', done);
    if (body !== undefined) s.end(body);
  });
}

describe('H2StreamResponse on a node:http2 server', () => {
  it('writes the head and body, then emits finish and close once the stream closed without a reset', async () => {
    const events: string[] = [];
    const srv = await streamServer((stream) => {
      const res = new H2StreamResponse(stream);
      res.on('finish', () => events.push(`finish:${responseFinished(res)}`));
      res.on('close', () => events.push('close'));
      expect(res.headersSent).toBe(false);
      res.writeHead(418, { 'content-type': 'text/plain', 'x-a': 'b' });
      expect(res.headersSent).toBe(true);
      res.end('short and stout\n');
      expect(res.writableEnded).toBe(true);
      res.end('ignored'); // a second end is a no-op, as on Node's objects
    });
    const r = await request(srv.client, { ':path': '/' });
    expect(r).toMatchObject({ status: 418, body: 'short and stout\n' });
    expect(r.headers['x-a']).toBe('b');
    await vi.waitFor(() => expect(events).toEqual(['finish:true', 'close']));
    await srv.close();
  });

  it('answers 200 to an end without a head, and sends no body to a HEAD request', async () => {
    const srv = await streamServer((stream, headers) => {
      const res = new H2StreamResponse(stream);
      if (headers[':method'] === 'HEAD') res.writeHead(404, { 'content-length': '6' });
      res.end('body!\n');
    });
    expect(await request(srv.client, { ':path': '/' })).toMatchObject({ status: 200, body: 'body!\n' });
    const head = await request(srv.client, { ':path': '/', ':method': 'HEAD' });
    expect(head).toMatchObject({ status: 404, body: '' });
    expect(head.error).toBeUndefined();
    await srv.close();
  });

  it('emits finish and close when the client resets the stream, and responseFinished says it did not finish', async () => {
    let finished: boolean | undefined;
    let closed = false;
    const srv = await streamServer((stream) => {
      const res = new H2StreamResponse(stream);
      res.on('finish', () => (finished = responseFinished(res)));
      res.on('close', () => (closed = true));
      stream.respond({ ':status': 200 });
      stream.write('part of a body');
    });
    const s = srv.client.request({ ':path': '/' });
    s.on('error', () => {});
    await new Promise((r) => s.once('data', r));
    s.close(http2.constants.NGHTTP2_CANCEL);
    await vi.waitFor(() => expect(closed).toBe(true));
    expect(finished).toBe(false);
    await srv.close();
  });

  it('lets go of the response and of every listener once its stream closed, reset or not (a closed stream outlives its close)', async () => {
    const closed: { stream: http2.ServerHttp2Stream; res: H2StreamResponse }[] = [];
    const srv = await streamServer((stream, headers) => {
      const res = new H2StreamResponse(stream);
      // What the handler and the relay attach: listeners reaching the exchange.
      res.on('finish', () => {});
      res.on('close', () => closed.push({ stream, res }));
      stream.once('drain', () => {});
      if (headers[':path'] === '/reset') {
        stream.respond({ ':status': 200 });
        stream.write('part');
      } else res.end('whole');
    });
    expect(await request(srv.client, { ':path': '/' })).toMatchObject({ status: 200, body: 'whole' });
    const s = srv.client.request({ ':path': '/reset' });
    s.on('error', () => {});
    await new Promise((r) => s.once('data', r));
    s.close(http2.constants.NGHTTP2_CANCEL);
    await vi.waitFor(() => expect(closed).toHaveLength(2));
    for (const { stream, res } of closed) {
      expect(stream.eventNames()).toEqual(['error']);
      expect(stream.listenerCount('error')).toBe(1);
      expect(res.eventNames()).toEqual([]);
      // An error after all reaches the no-op listener left, not the process.
      expect(() => stream.emit('error', new Error('late'))).not.toThrow();
    }
    await srv.close();
  });

  it('takes only requests without a body that are neither CONNECT nor carry Expect', async () => {
    const seen: boolean[] = [];
    const srv = await streamServer((stream, headers) => {
      seen.push(isBodilessPlainRequest(stream, headers));
      stream.resume();
      stream.on('end', () => {
        stream.respond({ ':status': 204 });
      });
    });
    await request(srv.client, { ':path': '/get' });
    await request(srv.client, { ':path': '/post', ':method': 'POST' }, 'a body');
    await request(srv.client, { ':path': '/expect', expect: '100-continue' });
    expect(seen).toEqual([true, false, false]);
    await srv.close();
  });
});

describe('through the intercepting proxy (HTTP/2 on the browser leg)', () => {
  // One data directory: the proxy trusts the origin's certificate (issued by its own CA), the client the proxy's.
  const dataDir = tempDataDir();
  const ca = loadOrCreateCA(dataDir);
  let origin: Origin;
  let tp: TestProxy;
  let client: http2.ClientHttp2Session;
  const rules = new RulesHolder();

  beforeAll(async () => {
    origin = await httpsOrigin(ca, { h2: true }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/plain', 'x-origin': 'yes' });
        res.end(`${req.method} ${req.url} ${Buffer.concat(chunks).toString()}`);
      });
    });
    // A small head limit, so that a refusal (431) can be asked for with one header.
    tp = await testProxy({ dataDir, rules, maxHeaderSize: 1024 });
    const socket = await interceptedConnection(tp.proxy.address.port, origin.port, ca.certPem, ['h2']);
    client = http2.connect(`https://localhost:${origin.port}`, { createConnection: () => socket });
  });
  afterAll(async () => {
    client?.close();
    await tp?.stop();
    await origin?.close();
  });

  it('forwards a GET and a HEAD on their streams, and records them as complete exchanges', async () => {
    const before = { ...paths };
    const get = await request(client, { ':path': '/a?b=1' });
    expect(get).toMatchObject({ status: 200, body: 'GET /a?b=1 ' });
    expect(get.headers['x-origin']).toBe('yes');
    const head = await request(client, { ':path': '/h', ':method': 'HEAD' });
    expect(head).toMatchObject({ status: 200, body: '' });
    expect(paths.stream - before.stream).toBe(2);
    expect(paths.compat - before.compat).toBe(0);
    const xs = await tp.waitFor(2);
    const a = xs.find((x) => x.request.url.endsWith('/a?b=1'))!;
    expect(a.error).toBeUndefined();
    expect(a.clientProtocol).toBe('h2');
    expect(a.response?.status).toBe(200);
    expect(a.response?.body.bytes.toString()).toBe('GET /a?b=1 ');
    expect(a.timestamps.clientResponseEnd).toBeGreaterThanOrEqual(a.timestamps.clientResponseHeaders!);
  });

  it('gives a request with a body Node’s objects, and forwards its body', async () => {
    const before = { ...paths };
    expect(await request(client, { ':path': '/p', ':method': 'POST' }, 'payload')).toMatchObject({ status: 200, body: 'POST /p payload' });
    expect(paths.stream - before.stream).toBe(0);
  });

  it('gives a request Node’s objects when rules are loaded, and the rule answers it', async () => {
    rules.set(
      validateRules({
        version: 1,
        rules: [{ id: 'm', match: { path: '/mocked' }, actions: [{ type: 'mock', status: 203, body: 'from the rule' }] }],
      }),
    );
    const before = { ...paths };
    expect(await request(client, { ':path': '/mocked' })).toMatchObject({ status: 203, body: 'from the rule' });
    expect(await request(client, { ':path': '/not-mocked' })).toMatchObject({ status: 200, body: 'GET /not-mocked ' });
    expect(paths.stream - before.stream).toBe(2);
    expect(paths.compat - before.compat).toBe(2);
    rules.set(undefined);
  });

  it('answers a request the proxy refuses (headers over the limit) with its own error, on the stream', async () => {
    const before = { ...paths };
    const r = await request(client, { ':path': '/big-head', 'x-big': 'x'.repeat(1500) });
    expect(r.status).toBe(431);
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(r.body).toMatch(/larger than 1024 bytes/);
    expect(paths.stream - before.stream).toBe(1);
    const x = (await tp.waitFor(1)).find((e) => e.request.url.endsWith('/big-head'))!;
    expect(x.error?.code).toBe(ErrorCodes.REQUEST_HEADERS_TOO_LARGE);
  });
});
