import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { exchangeToEntry } from '../../src/har/entry.js';
import { entryLine } from '../../src/har/entry-line.js';
import { entryRecord } from '../../src/har/journal.js';
import type { Exchange } from '../../src/model.js';
import { body, makeExchange } from './make-exchange.js';

/** The slow path the recorder used to run: the entry object, then JSON.stringify. */
const slow = (x: Exchange, pageref?: string) => JSON.stringify(entryRecord(exchangeToEntry(x, { pageref })));

const base = makeExchange();
const shapes: [string, Exchange, string?][] = [
  ['the default exchange (cookies, query string, set-cookie)', makeExchange()],
  ['a pageref', makeExchange(), 'page_3'],
  [
    'an HTTP/2 client leg with pseudo-headers',
    makeExchange({
      clientProtocol: 'h2',
      request: {
        ...base.request,
        httpVersion: 'h2',
        headers: [
          [':method', 'GET'],
          [':path', '/x'],
          ['accept', '*/*'],
        ],
      },
    }),
  ],
  [
    'HTTP/2 on both legs (head sizes unknown)',
    makeExchange({ upstreamProtocol: 'h2', response: { ...base.response!, httpVersion: 'h2' } }),
  ],
  [
    'HTTP/1.0 and a URL with a fragment, escapes and unicode',
    makeExchange({
      request: {
        ...base.request,
        httpVersion: 'http/1.0',
        url: 'https://ex.test/a b/é?x="1"&y=\\&z=%ZZ#frag',
        headers: [['X-Quote', 'say "hi"\t\\ \u2028 \u{1F600} \ud800']],
      },
    }),
  ],
  [
    'a plain (absolute-form) request and a CONNECT',
    makeExchange({ transport: 'plain', request: { ...base.request, url: 'http://plain.test:8080/p?q' } }),
  ],
  [
    'a tunnel',
    makeExchange({
      transport: 'tunnel',
      request: { ...base.request, method: 'CONNECT', url: 'https://t.test:443' },
      tunnelBytes: { up: 10, down: 20 },
      response: undefined,
    }),
  ],
  [
    'a gzip body',
    makeExchange({
      resHeaders: [
        ['Content-Type', 'text/plain'],
        ['Content-Encoding', 'gzip'],
      ],
      resBody: body(zlib.gzipSync(Buffer.from('gzipped '.repeat(100)))),
    }),
  ],
  [
    'a body that claims gzip but is not',
    makeExchange({
      resHeaders: [
        ['Content-Type', 'text/plain'],
        ['Content-Encoding', 'gzip'],
      ],
      resBody: body('nope'),
    }),
  ],
  ['a binary body (base64)', makeExchange({ resHeaders: [['Content-Type', 'image/png']], resBody: body(Buffer.from([0, 1, 2, 255])) })],
  ['a truncated body', makeExchange({ resBody: body('y'.repeat(5000), 100) })],
  [
    'a redirect (Location)',
    makeExchange({ resHeaders: [['Location', '/next']], response: { ...base.response!, status: 302, statusText: '' } }),
  ],
  [
    'a urlencoded POST',
    makeExchange({
      request: {
        method: 'POST',
        url: 'http://example.test/f',
        httpVersion: 'http/1.1',
        headers: [['Content-Type', 'application/x-www-form-urlencoded']],
        body: body('a=1&b=x+y'),
      },
    }),
  ],
  [
    'a failed exchange',
    makeExchange({ response: undefined, error: { code: 'NL_UPSTREAM_REFUSED', message: 'refused "x"', side: 'upstream' } }),
  ],
  [
    'rules, mock, breakpoint, websocket, replay, IPv6',
    makeExchange({
      rules: [{ id: 'r1', name: 'Rule', actions: ['mock'] } as never],
      mocked: true,
      breakpoint: { pausedMs: 12.5, edited: true, outcome: 'continued' },
      websocket: true,
      replayed: false,
      serverIPAddress: '[::1]',
    }),
  ],
  [
    'optional fields absent',
    makeExchange({
      upstreamConnectionId: undefined,
      upstreamProtocol: undefined,
      serverIPAddress: undefined,
      upstreamConnectionNew: undefined,
    }),
  ],
  [
    'timings with NaN, missing phases and ssl longer than connect',
    makeExchange({
      timings: { blocked: NaN, dns: -1, connect: 1, ssl: 2, send: -1, wait: Infinity, receive: 0.0004, total: 3 },
      clientTimings: { receiveRequest: NaN, proxyOverhead: -1, respond: 0, total: 1 },
    }),
  ],
  ['an unparsable start time', makeExchange({ startedDateTime: 'not a date' })],
  [
    'a header value of the wrong type (HTTP/2: no head size to count)',
    makeExchange({ request: { ...base.request, httpVersion: 'h2', headers: [['x-num', 5 as never]] } }),
  ],
];

describe('entryLine', () => {
  for (const [name, x, pageref] of shapes) {
    it(`writes exactly what exchangeToEntry + JSON.stringify write: ${name}`, () => {
      const line = entryLine(x, pageref);
      expect(line).toBe(slow(x, pageref));
      expect(() => JSON.parse(line)).not.toThrow();
    });
  }

  it('covers every field exchangeToEntry can write (a field added there must be added to entryLine)', () => {
    const full = shapes.map(([, x, p]) => JSON.parse(slow(x, p)).entry as Record<string, unknown>);
    const keys = new Set(full.flatMap((e) => Object.keys(e)));
    // Every top-level key exchangeToEntry writes for these shapes; a new one shows up here first.
    expect([...keys].sort()).toEqual(
      [
        'pageref',
        'startedDateTime',
        'time',
        'request',
        'response',
        'cache',
        'timings',
        'serverIPAddress',
        'connection',
        '_exchangeId',
        '_clientConnection',
        '_connectionId',
        '_transport',
        '_interception',
        '_clientProtocol',
        '_upstreamProtocol',
        '_clientTimings',
        '_nagle',
        '_retries',
        '_upstreamConnectionNew',
        '_tunnelBytes',
        '_websocket',
        '_replayed',
        '_rules',
        '_mocked',
        '_breakpoint',
        '_error',
        '_errorCode',
        '_errorSide',
      ].sort(),
    );
  });
});
