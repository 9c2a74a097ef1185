/** A fake proxy (our own event stream, no sockets) and exchange builders for API tests. */
import zlib from 'node:zlib';
import { EventStream } from '../../src/events.js';
import type { Exchange, ProxyEvent } from '../../src/model.js';
import type { ProxyHandle } from '../../src/server/proxy-server.js';
import type { ProxyOptions } from '../../src/options.js';

export interface FakeProxy {
  start: (options: ProxyOptions) => Promise<ProxyHandle>;
  emit(e: ProxyEvent): void;
  starts: ProxyOptions[];
}

export function fakeProxy(): FakeProxy {
  let events = new EventStream();
  const starts: ProxyOptions[] = [];
  return {
    starts,
    emit: (e) => events.emit(e),
    async start(options) {
      starts.push(options);
      events = new EventStream();
      const port = options.port || 18080;
      return {
        address: { host: '127.0.0.1', port, url: `http://127.0.0.1:${port}` },
        settings: {
          host: '127.0.0.1',
          port,
          intercept: options.intercept ?? true,
          http2: options.http2 ?? true,
          nagle: options.nagle ?? false,
          dataDir: options.dataDir ?? '',
        },
        events,
        ca: { certPath: '/tmp/netlens-ca.pem', fingerprint: 'AA:BB', leafSpkiHash: 'spki=' } as ProxyHandle['ca'],
        stop: async () => undefined,
      };
    },
  };
}

export function exchange(id: string, opts: { body?: string; gzip?: boolean; status?: number; error?: boolean } = {}): Exchange {
  const raw = Buffer.from(opts.body ?? `{"id":"${id}","ok":true}`);
  const bytes = opts.gzip ? zlib.gzipSync(raw) : raw;
  const headers: Array<[string, string]> = [['Content-Type', 'application/json; charset=utf-8']];
  if (opts.gzip) headers.push(['Content-Encoding', 'gzip']);
  return {
    id,
    clientConnectionId: 'c1',
    upstreamConnectionId: 'u1',
    startedDateTime: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, Number(id.replace(/\D/g, '')) || 0)).toISOString(),
    transport: 'intercepted',
    clientProtocol: 'h2',
    upstreamProtocol: 'http/1.1',
    nagle: false,
    request: {
      method: 'GET',
      url: `https://example.test/items/${id}?q=1`,
      httpVersion: 'h2',
      headers: [
        [':authority', 'example.test'],
        ['accept', '*/*'],
      ],
      body: { size: 0, bytes: new Uint8Array(), truncated: false },
    },
    response: opts.error
      ? undefined
      : {
          status: opts.status ?? 200,
          statusText: 'OK',
          httpVersion: 'http/1.1',
          headers,
          body: { size: bytes.length, bytes, truncated: false },
        },
    retries: 0,
    timestamps: { start: 1 },
    timings: { blocked: 0.5, dns: 1, connect: 4, ssl: 3, send: 0.2, wait: 10, receive: 1, total: 16.7 },
    clientTimings: { receiveRequest: 0, proxyOverhead: 0.3, respond: 0.1, total: 17.2 },
    error: opts.error ? { code: 'NL_UPSTREAM_REFUSED', message: 'example.test refused the connection', side: 'upstream' } : undefined,
  };
}
