/** Direct tests of api/summary.ts: the core's exchanges → the contract's rows and details (pure). */
import { describe, expect, it } from 'vitest';
import { exchangeDetail, exchangeSummary, pendingSummary, phaseTimings, withResponseHead } from '../../src/api/summary.js';
import type { Exchange, ExchangeResponseHead, ExchangeStart } from '../../src/model.js';

const T0 = '2026-01-02T03:04:05.678Z';
const body = (text: string) => {
  const bytes = new TextEncoder().encode(text);
  return { size: bytes.length, bytes, truncated: false };
};

function start(over: Partial<ExchangeStart> = {}): ExchangeStart {
  return {
    id: 'x1',
    clientConnectionId: 'c1',
    startedDateTime: T0,
    transport: 'intercepted',
    clientProtocol: 'h2',
    method: 'GET',
    url: 'https://example.test:8443/items/7?q=1#frag',
    headers: [[':authority', 'example.test:8443']],
    timestamps: { start: 100 },
    ...over,
  };
}

function exchange(over: Partial<Exchange> = {}): Exchange {
  return {
    id: 'x1',
    clientConnectionId: 'c1',
    upstreamConnectionId: 'u2',
    startedDateTime: T0,
    transport: 'intercepted',
    clientProtocol: 'h2',
    upstreamProtocol: 'http/1.1',
    upstreamConnectionNew: true,
    nagle: false,
    request: {
      method: 'POST',
      url: 'https://example.test/items?q=1',
      httpVersion: 'h2',
      headers: [['content-type', 'text/plain']],
      body: body('hello'),
    },
    response: {
      status: 201,
      statusText: 'Created',
      httpVersion: 'http/1.1',
      headers: [['Content-Type', 'Application/JSON; charset=utf-8']],
      body: { ...body('{"ok":true}'), truncated: true, size: 4096 },
    },
    serverIPAddress: '127.0.0.1',
    retries: 1,
    timestamps: { start: 100, responseEnd: 120 },
    timings: { blocked: 0.5, dns: 1, connect: 4, ssl: 3, send: 0.2, wait: 10, receive: 1, total: 16.7 },
    clientTimings: { receiveRequest: 0.1, proxyOverhead: 0.3, respond: 0.1, total: 17.2 },
    ...over,
  };
}

describe('pendingSummary', () => {
  it('makes a pending row from the request head: sizes and duration unknown, no status, no timings', () => {
    expect(pendingSummary(start())).toEqual({
      id: 'x1',
      startedDateTime: T0,
      startTime: Date.parse(T0),
      method: 'GET',
      url: 'https://example.test:8443/items/7?q=1#frag',
      host: 'example.test:8443',
      path: '/items/7?q=1',
      mimeType: '',
      protocol: 'h2',
      transport: 'intercepted',
      requestSize: -1,
      responseSize: -1,
      duration: -1,
      state: 'pending',
    });
  });

  it('drops the default port from the host and keeps the path of a tunnel URL', () => {
    const row = pendingSummary(
      start({ method: 'CONNECT', transport: 'tunnel', clientProtocol: 'http/1.1', url: 'https://example.test:443' }),
    );
    expect([row.host, row.path]).toEqual(['example.test', '/']);
  });

  it('puts a target that is no URL in the path, never in the host (as saved sessions do)', () => {
    // What the plain proxy records for a request it refuses: the raw request target.
    expect(pendingSummary(start({ transport: 'plain', url: '/index.html' }))).toMatchObject({ host: '', path: '/index.html' });
    expect(pendingSummary(start({ transport: 'plain', url: '' }))).toMatchObject({ host: '', path: '' });
    // Parses as a URL of scheme "example.com:" with no host.
    expect(pendingSummary(start({ transport: 'plain', url: 'example.com:443' }))).toMatchObject({ host: '', path: 'example.com:443' });
  });

  it('brackets an IPv6 host as the URL does', () => {
    expect(pendingSummary(start({ url: 'http://[::1]:8080/a' }))).toMatchObject({ host: '[::1]:8080', path: '/a' });
  });
});

describe('withResponseHead', () => {
  const head: ExchangeResponseHead = {
    id: 'x1',
    status: 304,
    statusText: 'Not Modified',
    httpVersion: 'h2',
    headers: [['content-type', 'Text/HTML; charset=utf-8']],
    upstreamConnectionId: 'u9',
    serverIPAddress: '::1',
    at: 150,
  };

  it('adds the status, the bare lower-case MIME type, the connection and the server address', () => {
    const row = pendingSummary(start());
    const next = withResponseHead(row, head);
    expect(next).toEqual({
      ...row,
      status: 304,
      statusText: 'Not Modified',
      mimeType: 'text/html',
      connection: 'u9',
      serverIPAddress: '::1',
    });
    expect(next.state).toBe('pending');
  });

  it('returns a new row and leaves the pending one as it was', () => {
    const row = pendingSummary(start());
    const copy = structuredClone(row);
    expect(withResponseHead(row, head)).not.toBe(row);
    expect(row).toEqual(copy);
  });

  it('gives an empty MIME type when the response has no Content-Type', () => {
    expect(withResponseHead(pendingSummary(start()), { ...head, headers: [] }).mimeType).toBe('');
  });
});

describe('phaseTimings', () => {
  it('copies the seven HAR phases and leaves out the total', () => {
    expect(phaseTimings(exchange())).toEqual({ blocked: 0.5, dns: 1, connect: 4, ssl: 3, send: 0.2, wait: 10, receive: 1 });
  });
});

describe('exchangeSummary', () => {
  it('describes a complete exchange', () => {
    expect(exchangeSummary(exchange())).toEqual({
      id: 'x1',
      startedDateTime: T0,
      startTime: Date.parse(T0),
      method: 'POST',
      url: 'https://example.test/items?q=1',
      host: 'example.test',
      path: '/items?q=1',
      status: 201,
      statusText: 'Created',
      mimeType: 'application/json',
      protocol: 'h2',
      transport: 'intercepted',
      requestSize: 5,
      // Bytes on the wire, not the captured (cut) part.
      responseSize: 4096,
      duration: 17.2,
      timings: { blocked: 0.5, dns: 1, connect: 4, ssl: 3, send: 0.2, wait: 10, receive: 1 },
      state: 'complete',
      error: undefined,
      connection: 'u2',
      serverIPAddress: '127.0.0.1',
    });
  });

  it('agrees with the pending row on the fields both know', () => {
    const x = exchange();
    const pending = pendingSummary(start({ method: x.request.method, url: x.request.url }));
    const done = exchangeSummary(x);
    for (const key of ['id', 'startedDateTime', 'startTime', 'method', 'url', 'host', 'path', 'protocol', 'transport'] as const) {
      expect(done[key], key).toEqual(pending[key]);
    }
  });

  it('takes the duration from the client leg, or from the upstream phases when the client leg has none', () => {
    expect(exchangeSummary(exchange()).duration).toBe(17.2);
    const noClient = exchange({ clientTimings: { receiveRequest: -1, proxyOverhead: -1, respond: -1, total: -1 } });
    expect(exchangeSummary(noClient).duration).toBe(16.7);
    const zero = exchange({ clientTimings: { receiveRequest: 0, proxyOverhead: 0, respond: 0, total: 0 } });
    expect(exchangeSummary(zero).duration).toBe(0);
  });

  it('marks a failed exchange as an error with its code and message, and no response', () => {
    const x = exchange({
      response: undefined,
      error: { code: 'NL_UPSTREAM_REFUSED', message: 'example.test refused the connection', side: 'upstream' },
    });
    const row = exchangeSummary(x);
    expect(row).toMatchObject({ state: 'error', status: undefined, statusText: undefined, mimeType: '', responseSize: -1, requestSize: 5 });
    // The contract's error has no `side`.
    expect(row.error).toEqual({ code: 'NL_UPSTREAM_REFUSED', message: 'example.test refused the connection' });
  });

  it('keeps the response of an exchange that failed after its head arrived', () => {
    const x = exchange({ error: { code: 'NL_UPSTREAM_RESET', message: 'reset mid-body', side: 'upstream' } });
    expect(exchangeSummary(x)).toMatchObject({ state: 'error', status: 201, mimeType: 'application/json', responseSize: 4096 });
  });

  it('sizes a CONNECT tunnel by the bytes that went through it, both ways', () => {
    const x = exchange({
      transport: 'tunnel',
      clientProtocol: 'http/1.1',
      request: { method: 'CONNECT', url: 'https://example.test:443', httpVersion: 'http/1.1', headers: [], body: body('') },
      // What connect.ts records once the upstream socket connects.
      response: { status: 200, statusText: 'Connection Established', httpVersion: 'http/1.1', headers: [], body: body('') },
      tunnelBytes: { up: 517, down: 6120 },
    });
    expect(exchangeSummary(x)).toMatchObject({
      status: 200,
      requestSize: 517,
      responseSize: 6120,
      host: 'example.test',
      state: 'complete',
    });
  });

  it('sizes a passed-through WebSocket by its frames, not by the empty 101 body', () => {
    const x = exchange({
      request: { method: 'GET', url: 'ws://example.test/socket', httpVersion: 'http/1.1', headers: [], body: body('') },
      response: { status: 101, statusText: 'Switching Protocols', httpVersion: 'http/1.1', headers: [], body: body('') },
      websocket: true,
      tunnelBytes: { up: 40, down: 1200 },
    });
    expect(exchangeSummary(x)).toMatchObject({ status: 101, requestSize: 40, responseSize: 1200, path: '/socket' });
  });

  it('gives a tunnel that never connected zero bytes and an error', () => {
    const x = exchange({
      transport: 'tunnel',
      request: { method: 'CONNECT', url: 'https://down.test:443', httpVersion: 'http/1.1', headers: [], body: body('') },
      response: undefined,
      tunnelBytes: { up: 0, down: 0 },
      error: { code: 'NL_UPSTREAM_REFUSED', message: 'down.test refused the connection', side: 'upstream' },
    });
    expect(exchangeSummary(x)).toMatchObject({ state: 'error', requestSize: 0, responseSize: 0, status: undefined });
  });
});

describe('exchangeDetail', () => {
  it('carries the heads, body sizes and the live-only facts, and the same summary', () => {
    const x = exchange({ websocket: undefined, tunnelBytes: undefined });
    expect(exchangeDetail(x)).toEqual({
      summary: exchangeSummary(x),
      request: { httpVersion: 'h2', headers: [['content-type', 'text/plain']], bodySize: 5, bodyTruncated: false },
      response: {
        httpVersion: 'http/1.1',
        headers: [['Content-Type', 'Application/JSON; charset=utf-8']],
        bodySize: 4096,
        bodyTruncated: true,
      },
      clientTimings: x.clientTimings,
      timestamps: x.timestamps,
      upstreamProtocol: 'http/1.1',
      upstreamConnectionNew: true,
      nagle: false,
      retries: 1,
      tunnelBytes: undefined,
      websocket: undefined,
    });
  });

  it('has no response part when no response arrived', () => {
    const x = exchange({ response: undefined, error: { code: 'NL_UPSTREAM_TIMEOUT', message: 'no answer', side: 'upstream' } });
    expect(exchangeDetail(x).response).toBeUndefined();
  });

  it('sends no body bytes (bodies have their own command)', () => {
    const json = JSON.stringify(exchangeDetail(exchange()));
    expect(json).not.toContain('hello');
    expect(json).not.toContain('"ok":true');
  });
});
