/** Builds Exchange objects for tests: realistic defaults, any field overridable. */
import type { Exchange, RawHeaders } from '../../src/model.js';

export function body(data: string | Buffer = '', limit = Infinity): Exchange['request']['body'] {
  const buf = typeof data === 'string' ? Buffer.from(data) : data;
  const bytes = buf.subarray(0, Math.min(buf.length, limit));
  return { size: buf.length, bytes, truncated: bytes.length < buf.length };
}

let seq = 0;

export function makeExchange(
  over: Partial<Exchange> & {
    reqHeaders?: RawHeaders;
    resHeaders?: RawHeaders;
    resBody?: Exchange['response'] extends infer R ? (R extends { body: infer B } ? B : never) : never;
  } = {},
): Exchange {
  const { reqHeaders, resHeaders, resBody, ...rest } = over;
  seq++;
  return {
    id: `x${seq}`,
    clientConnectionId: 'c1',
    upstreamConnectionId: 'u1',
    startedDateTime: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, seq)).toISOString(),
    transport: 'intercepted',
    clientProtocol: 'http/1.1',
    upstreamProtocol: 'http/1.1',
    nagle: false,
    request: {
      method: 'GET',
      url: 'https://example.test/path?q=1&r=two%20words',
      httpVersion: 'http/1.1',
      headers: reqHeaders ?? [
        ['Host', 'example.test'],
        ['User-Agent', 'test'],
        ['Cookie', 'a=1; b=2'],
      ],
      body: body(),
    },
    response: {
      status: 200,
      statusText: 'OK',
      httpVersion: 'http/1.1',
      headers: resHeaders ?? [
        ['Content-Type', 'text/plain; charset=utf-8'],
        ['Set-Cookie', 'sid=xyz; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=60'],
        ['X-Mixed-Case', 'v'],
      ],
      body: resBody ?? body('hello'),
    },
    serverIPAddress: '127.0.0.1',
    upstreamConnectionNew: true,
    retries: 0,
    timestamps: { start: 1000 },
    timings: { blocked: 0.5, dns: 1.25, connect: 10.5, ssl: 8.125, send: 0.1, wait: 20.0004, receive: 3.3, total: 35.65 },
    clientTimings: { receiveRequest: 0.1, proxyOverhead: 0.4, respond: 0.2, total: 36.5 },
    ...rest,
  };
}
