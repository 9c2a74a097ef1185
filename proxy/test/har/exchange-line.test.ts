/**
 * The recorder's journal line (exchange-line.ts) must (1) write exactly what the generic
 * path writes, JSON.stringify of exchangeRecord, and (2) read back into the HAR entry
 * exchangeToEntry makes of the exchange, byte for byte once serialized. Checked on
 * exchanges that set every optional field, on strings JSON escapes and on bodies of
 * every kind; and a line of another layout is refused, never misread.
 */
import zlib from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/model.js';
import { exchangeLine, exchangeRecord, isoMs } from '../../src/har/exchange-line.js';
import { exchangeToEntry } from '../../src/har/entry.js';
import { entryOfRecord } from '../../src/har/journal.js';
import { body, makeExchange } from './make-exchange.js';
import { JsonBytes } from '../../src/har/json-bytes.js';

const generic = (x: Exchange, pageref?: string): string => JSON.stringify({ t: 'x', d: x.startedDateTime, x: exchangeRecord(x, pageref) });

function expectSame(x: Exchange, pageref?: string): void {
  const fast = exchangeLine(x, pageref);
  expect(fast).toBe(generic(x, pageref));
  const read = entryOfRecord(JSON.parse(fast));
  expect(read).toBeDefined();
  expect(JSON.stringify(read)).toBe(JSON.stringify(exchangeToEntry(x, { pageref })));
}

/** Strings JSON.stringify escapes or that are easy to get wrong. */
const TRICKY = [
  '',
  'plain',
  'quote " and backslash \\',
  'controls \u0000\u0001\u0008\t\n\r\u001f end',
  'del \u007f, line separators \u2028\u2029',
  'unicode é 中文 😀',
  'lone high \ud800 surrogate',
  'lone low \udc00 surrogate',
  'reversed pair \udc00\ud800',
  '</script>',
  // Around JsonBytes' SHORT (48): copied char by char up to it; past it, plain ASCII in one latin1 write, the rest
  // through JSON.stringify (every character it escapes, DEL, non-ASCII, past the first 48).
  'w'.repeat(47) + '"',
  'x'.repeat(48),
  'y'.repeat(49),
  'é'.repeat(48),
  'z'.repeat(200) + '\u0000',
  ' !#$%&()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~',
  'q'.repeat(60) + '"',
  'q'.repeat(60) + '\\',
  'q'.repeat(60) + '\u001f',
  'q'.repeat(60) + '\u007f',
  'q'.repeat(60) + '\u00ff',
  'q'.repeat(60) + '\u2028',
  'q'.repeat(60) + '\ud800',
];

describe('exchangeLine', () => {
  it('writes what JSON.stringify of the record writes, and reads back as exchangeToEntry, with and without a pageref', () => {
    expectSame(makeExchange());
    expectSame(makeExchange(), 'page_3');
    expectSame(makeExchange(), '');
  });

  it('escapes tricky strings in headers, URL, method, status text, ids and bodies exactly as JSON.stringify', () => {
    for (const s of TRICKY) {
      expectSame(
        makeExchange({
          id: `x${s}`,
          clientConnectionId: s,
          upstreamConnectionId: s || 'u1',
          reqHeaders: [
            [s, s],
            ['Cookie', `a=${s}; ${s}`],
            ['X-Plain', 'v'],
          ],
          resHeaders: [
            [`X-${s}`, s],
            ['Set-Cookie', `k=${s}; Path=/${s}; Max-Age=5`],
            ['Location', s],
            ['Content-Type', 'text/plain'],
          ],
          resBody: body(s),
        }),
        s || undefined,
      );
      const x = makeExchange({ resBody: body(Buffer.from(s, 'utf8')) });
      x.request.url = `https://example.test/${s}?q=${s}&${s}=1`;
      x.response!.statusText = s;
      expectSame(x);
    }
  });

  it('matches for every optional field set: error, rules, mock, breakpoint, tunnel, websocket, replay, request body', () => {
    const x = makeExchange({
      pageref: undefined,
      error: { code: 'NL_UPSTREAM_RESET', message: 'reset "by" peer\n', side: 'upstream' },
      rules: [
        { id: 'r1', name: 'Mock é', actions: ['mock', 'delay'] },
        { id: 'r2', actions: [] },
      ],
      mocked: true,
      breakpoint: { pausedMs: 12.5, edited: true, outcome: 'resumed' },
      tunnelBytes: { up: 10, down: 20 },
      websocket: true,
      replayed: false,
      upstreamProtocol: 'h2',
      serverIPAddress: '[::1]',
      request: {
        method: 'POST',
        url: 'https://example.test/form?a=1&a=2&b',
        httpVersion: 'h2',
        headers: [['content-type', 'application/x-www-form-urlencoded']],
        body: body('a=1&b=%C3%A9&c=\u2028'),
      },
    } as Partial<Exchange>);
    expectSame(x, 'page_1');
  });

  it('matches without a response, without optional ids, with -1 phases and with non-finite numbers', () => {
    expectSame(makeExchange({ response: undefined, error: { code: 'NL_X', message: 'no response', side: 'client' } }));
    expectSame(
      makeExchange({
        upstreamConnectionId: undefined,
        upstreamProtocol: undefined,
        serverIPAddress: undefined,
        upstreamConnectionNew: undefined,
        timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: -1, wait: -1, receive: -1, total: 0 },
      }),
    );
    const odd = makeExchange({
      timings: { blocked: NaN, dns: Infinity, connect: 1e21, ssl: 5e-7, send: -0, wait: 1.5, receive: 0, total: 0 },
    });
    odd.clientTimings = { receiveRequest: NaN, proxyOverhead: -1, respond: 0.001, total: Infinity };
    expectSame(odd);
  });

  it('matches for compressed, truncated, binary, undecodable and huge bodies', () => {
    const text = 'hello é '.repeat(1000);
    const gz = zlib.gzipSync(Buffer.from(text));
    expectSame(
      makeExchange({
        resHeaders: [
          ['Content-Encoding', 'gzip'],
          ['Content-Type', 'text/plain'],
        ],
        resBody: body(gz),
      }),
    );
    expectSame(
      makeExchange({
        resHeaders: [
          ['Content-Encoding', 'gzip'],
          ['Content-Type', 'text/plain'],
        ],
        resBody: body(gz, 40),
      }),
    );
    expectSame(makeExchange({ resHeaders: [['Content-Encoding', 'br']], resBody: body(Buffer.from('not brotli')) }));
    expectSame(makeExchange({ resHeaders: [['Content-Type', 'image/png']], resBody: body(Buffer.from([0, 1, 2, 255, 34, 92])) }));
    expectSame(makeExchange({ resHeaders: [['Content-Type', 'application/json']], resBody: body(`{"k":"${'\\"'.repeat(300_000)}"}`) }));
    expectSame(makeExchange({ resHeaders: [['Content-Type', 'text/plain']], resBody: body('z'.repeat(3_000_000), 2_000_000) }));
    // Non-ASCII text past the length from which JsonBytes measures its UTF-8 size instead of reserving 3 bytes a unit.
    expectSame(makeExchange({ resHeaders: [['Content-Type', 'text/plain']], resBody: body('é😀"\n'.repeat(40_000)) }));
    const upload = makeExchange();
    upload.request = {
      method: 'POST',
      url: 'https://example.test/up',
      httpVersion: 'http/1.1',
      headers: [['Content-Type', 'multipart/form-data; boundary=XYZ']],
      body: body('--XYZ\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n\r\nfile "body"\r\n--XYZ--\r\n', 30),
    };
    expectSame(upload);
  });

  it('writes response text from the body bytes as the generic path does: random bodies, MIME types, codings and limits', () => {
    const mime = fc.constantFrom<string | undefined>(
      undefined,
      'application/json',
      'text/html; charset=utf-8',
      'TEXT/PLAIN',
      'image/png',
      '',
      ' ',
    );
    const coding = fc.constantFrom<string | undefined>(undefined, undefined, 'identity', '', 'gzip');
    const text = fc.oneof(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.constantFrom('\ufeff{"a":"\\"}', 'x\u000by'));
    const bytes = fc.oneof(
      text.map((t) => Buffer.from(t, 'utf8')),
      fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)),
    );
    fc.assert(
      fc.property(mime, coding, bytes, fc.option(fc.nat({ max: 40 })), (type, enc, data, limit) => {
        const resHeaders: [string, string][] = [['X-A', 'b']];
        if (type !== undefined) resHeaders.push(['Content-Type', type]);
        if (enc !== undefined) resHeaders.push(['Content-Encoding', enc]);
        expectSame(makeExchange({ resHeaders, resBody: body(data, limit ?? Infinity) }));
      }),
      { numRuns: 3000 },
    );
  });

  it('writes header names the same the first time, once cached, and past the cache bound (1100 distinct names)', () => {
    const names = Array.from({ length: 1100 }, (_, i) => `X-Name-${i}`);
    for (let round = 0; round < 2; round++) {
      expectSame(makeExchange({ reqHeaders: names.map((n) => [n, 'v'] as [string, string]) }));
      expectSame(
        makeExchange({
          reqHeaders: [
            ['X-Name-1', 'é'],
            ['x-name-1', '"q"'],
            ['X-Name-1099', ''],
          ],
        }),
      );
    }
  });

  it("writes a connection's header lists the same when they repeat, change, are changed in place or are of odd types", () => {
    // The writer remembers each connection's last request and response header list and copies the bytes of the pairs
    // that are the same in the next list (exchange-line.ts headersJson): every line must still be what the generic
    // path writes.
    const pool: [string, string][][] = [
      [
        ['Host', 'a.test'],
        ['Accept', '*/*'],
      ],
      [
        ['Content-Type', 'application/json'],
        ['Content-Length', '2'],
      ],
      [
        ['Content-Type', 'text/plain'],
        ['Content-Encoding', 'gzip'],
      ],
      [['Date', 'Fri, 27 Nov 2026 01:37:20 GMT']],
      [],
    ];
    const list = fc.tuple(fc.nat({ max: pool.length - 1 }), fc.option(fc.tuple(fc.nat(), fc.constantFrom('x', 'é', '"', 'text/html', ''))));
    const step = fc.record({ conn: fc.constantFrom('c1', 'c2', 'c3'), up: fc.constantFrom('u1', 'u2', undefined), req: list, res: list });
    const build = ([i, change]: [number, [number, string] | null]): [string, string][] => {
      const l = pool[i].map(([k, v]) => [k, v] as [string, string]);
      if (change && l.length > 0) l[change[0] % l.length][1] = change[1];
      return l;
    };
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
        for (const s of steps) {
          const x = makeExchange({
            clientConnectionId: s.conn,
            upstreamConnectionId: s.up,
            reqHeaders: build(s.req),
            resHeaders: build(s.res),
            resBody: body('{}'),
          });
          expectSame(x);
          // Changed in place after it was written: the next exchange on the connection with these headers must not
          // get the bytes of what they were.
          if (x.response!.headers.length > 0) x.response!.headers[0][1] = 'changed';
          expectSame(makeExchange({ clientConnectionId: s.conn, upstreamConnectionId: s.up, resHeaders: x.response!.headers }));
        }
      }),
      { numRuns: 500 },
    );
    // A value of another type after the same list as strings (the generic path writes the number), then strings again;
    // on HTTP/2 legs, as in the test below (an HTTP/1.1 entry's head size needs string values).
    const h2 = (reqHeaders: [string, string][]) => {
      const x = makeExchange({ clientConnectionId: 'c9', clientProtocol: 'h2', reqHeaders });
      x.request.httpVersion = 'h2';
      return x;
    };
    expectSame(h2([['X-N', '42']]));
    expectSame(h2([['X-N', 42 as unknown as string]]));
    expectSame(h2([['X-N', '42']]));
    // More connections than the memo holds (128), twice over; and a list too long to remember (past 2 KiB).
    for (let round = 0; round < 2; round++)
      for (let c = 0; c < 1200; c++) expectSame(makeExchange({ clientConnectionId: `m${c}`, reqHeaders: [['X-C', String(c % 7)]] }));
    const long = (): [string, string][] => [['X-Long', 'l'.repeat(5000)]];
    expectSame(makeExchange({ clientConnectionId: 'c10', reqHeaders: long() }));
    expectSame(makeExchange({ clientConnectionId: 'c10', reqHeaders: long() }));
  });

  it('copies runs of pairs the same as in the last list wherever they are: first, middle, last, with pairs added or removed', () => {
    // Lists drawn pair by pair from a small pool, so that the same pair often sits in the same place as in the connection's
    // last list (a run to copy) and as often not (a pair to write): HTTP/2's `:path` changing among fixed headers, a
    // server's Content-Length, lists growing or shrinking by a pair, escapes and non-ASCII among them.
    const pairs: [string, string][] = [
      [':path', '/img/1.png'],
      [':path', '/img/22.png'],
      ['user-agent', 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0'],
      ['accept', 'image/*,*/*;q=0.8'],
      ['content-length', '118'],
      ['content-length', '1180'],
      ['x-quote', 'say "hi"'],
      ['x-accent', 'café'],
      ['content-type', 'image/png'],
      ['content-encoding', 'identity'],
    ];
    const list = fc.array(fc.nat({ max: pairs.length - 1 }), { maxLength: 8 });
    const step = fc.record({ conn: fc.constantFrom('p1', 'p2'), req: list, res: list });
    const build = (picks: number[]): [string, string][] => picks.map((i) => [pairs[i][0], pairs[i][1]]);
    fc.assert(
      fc.property(fc.array(step, { minLength: 2, maxLength: 16 }), (steps) => {
        for (const s of steps)
          expectSame(makeExchange({ clientConnectionId: s.conn, reqHeaders: build(s.req), resHeaders: build(s.res), resBody: body('{}') }));
      }),
      { numRuns: 500 },
    );
    // The cases by hand, each after the same base list on its connection: one pair changed first, in the middle, last;
    // a pair more at the end; a pair fewer; the same list again.
    const base = (): [string, string][] => build([0, 2, 3, 4]);
    const edits: ((l: [string, string][]) => [string, string][])[] = [
      (l) => [pairs[1], ...l.slice(1)],
      (l) => [l[0], pairs[7], l[2], l[3]],
      (l) => [...l.slice(0, 3), pairs[5]],
      (l) => [...l, pairs[6]],
      (l) => l.slice(0, 3),
      (l) => l,
    ];
    edits.forEach((edit, i) => {
      expectSame(makeExchange({ clientConnectionId: `e${i}`, reqHeaders: base(), resHeaders: base() }));
      expectSame(makeExchange({ clientConnectionId: `e${i}`, reqHeaders: edit(base()), resHeaders: edit(base()) }));
    });
  });

  it('ignores what exchangeToEntry ignores: extra and `_` properties on the exchange, its request and response', () => {
    const x = makeExchange() as Exchange & Record<string, unknown>;
    x._custom = { nested: ['a'] };
    x.extra = 'not in HAR';
    (x.request as unknown as Record<string, unknown>)._note = 'n';
    (x.response as unknown as Record<string, unknown>)._note = 'n';
    (x.clientTimings as unknown as Record<string, unknown>).total = 1.5;
    expectSame(x);
    expect(exchangeLine(x)).not.toContain('_custom');
  });

  it('falls back to the generic serializer for values of unexpected types, and still writes the same line', () => {
    const x = makeExchange();
    (x.response as { statusText?: string }).statusText = undefined;
    (x as { nagle?: boolean }).nagle = undefined;
    expectSame(x);
    // An HTTP/2 leg (no head size is computed from the headers): a number where a header value belongs.
    const y = makeExchange({ clientProtocol: 'h2' });
    y.request.httpVersion = 'h2';
    (y.request.headers[0] as unknown[])[1] = 42;
    expectSame(y);
    const z = makeExchange();
    (z as { clientProtocol?: string }).clientProtocol = undefined;
    (z as { id?: string }).id = undefined;
    expectSame(z);
  });
});

describe('JsonBytes.num', () => {
  it('writes what JSON.stringify writes for integers, fractions and non-finite numbers', () => {
    const numbers = [0, -0, 1, 9, 10, 99, 100, 101, -1, -9, -10, 1234567, 2147483647, -2147483647, -2147483648, 2147483648];
    numbers.push(1795669038653, 1e21, 1.5, -0.001, 12.345, 5e-7, NaN, Infinity, -Infinity, Number.MAX_SAFE_INTEGER);
    const o = new JsonBytes(16); // small: makes it grow mid-number
    for (const n of numbers) {
      o.reset();
      o.byte(91);
      o.num(n);
      o.byte(44);
      o.num(n);
      o.byte(93);
      expect(o.bytes().toString('latin1'), String(n)).toBe(JSON.stringify([n, n]));
    }
  });
});

describe('isoMs', () => {
  it('is Date.parse on instants as toISOString writes them, over minutes, years and edits of their characters', () => {
    const dates = fc
      .date({ min: new Date(-62167219200000), max: new Date(253402300799999), noInvalidDate: true })
      .map((d) => d.toISOString());
    fc.assert(
      fc.property(dates, (iso) => {
        expect(isoMs(iso)).toBe(Date.parse(iso));
      }),
      { numRuns: 5000 },
    );
    // One character replaced: the fast path must either agree or leave it to Date.parse.
    const chars = fc.constantFrom('0', '5', '6', '9', ':', '.', '-', 'T', 'Z', ' ', 'x', '+');
    fc.assert(
      fc.property(dates, fc.nat({ max: 23 }), chars, (iso, at, c) => {
        const edited = iso.slice(0, at) + c + iso.slice(at + 1);
        expect(Object.is(isoMs(edited), Date.parse(edited)), edited).toBe(true);
      }),
      { numRuns: 5000 },
    );
    for (const s of ['2026-02-30T10:00:59.999Z', '2026-11-26T24:00:00.000Z', '2026-11-26T06:60:00.000Z', '2026-11-26T06:55:60.000Z', ''])
      expect(Object.is(isoMs(s), Date.parse(s)), s).toBe(true);
  });
});
