import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { exchangeToEntry, timeOf } from '../../src/har/entry.js';
import { schemaProblems } from '../../src/har/schema.js';
import type { HarEntry } from '../../src/har/types.js';
import { body, makeExchange } from './make-exchange.js';

const wrap = (entries: HarEntry[]) => ({ log: { version: '1.2', creator: { name: 'test', version: '1' }, pages: [], entries } });

describe('exchangeToEntry', () => {
  it('writes an entry that validates against the HAR 1.2 schema', () => {
    const entry = exchangeToEntry(makeExchange());
    expect(schemaProblems(wrap([entry]))).toEqual([]);
  });

  it('makes time exactly the sum of the non-negative phases, ssl inside connect', () => {
    const entry = exchangeToEntry(makeExchange());
    const t = entry.timings;
    const sum = [t.blocked, t.dns, t.connect, t.send, t.wait, t.receive]
      .filter((n): n is number => n !== undefined && n >= 0)
      .reduce((a, b) => a + b, 0);
    expect(entry.time).toBeCloseTo(sum, 9);
    expect(entry.time).toBe(timeOf(t));
    expect(t.ssl).toBeLessThanOrEqual(t.connect!);
    expect(entry.time).not.toBeCloseTo(sum + t.ssl!, 3);
  });

  it('keeps -1 for phases that did not happen, and never -1 for send/wait/receive', () => {
    const x = makeExchange({
      timings: { blocked: 0.2, dns: -1, connect: -1, ssl: -1, send: -1, wait: 5, receive: -1, total: 5.2 },
      response: undefined,
      error: { code: 'NL_UPSTREAM_RESET', message: 'reset', side: 'upstream' },
    });
    const entry = exchangeToEntry(x);
    expect(entry.timings).toMatchObject({ dns: -1, connect: -1, ssl: -1, send: 0, wait: 5, receive: 0 });
    expect(entry.time).toBeCloseTo(5.2, 9);
    expect(schemaProblems(wrap([entry]))).toEqual([]);
  });

  it("keeps header order and case, and each leg's protocol", () => {
    const x = makeExchange({ clientProtocol: 'h2', request: { ...makeExchange().request, httpVersion: 'h2' } });
    const entry = exchangeToEntry(x);
    expect(entry.request.headers.map((h) => h.name)).toEqual(['Host', 'User-Agent', 'Cookie']);
    expect(entry.response.headers.map((h) => h.name)).toEqual(['Content-Type', 'Set-Cookie', 'X-Mixed-Case']);
    expect(entry.request.httpVersion).toBe('HTTP/2.0');
    expect(entry.response.httpVersion).toBe('HTTP/1.1');
    expect(entry.request.headersSize).toBe(-1); // HPACK: not known
    expect(entry.response.headersSize).toBeGreaterThan(0);
    expect(entry._clientProtocol).toBe('h2');
  });

  it('parses cookies, query string and Netlens fields', () => {
    const entry = exchangeToEntry(makeExchange({ nagle: true }));
    expect(entry.request.cookies).toEqual([
      { name: 'a', value: '1' },
      { name: 'b', value: '2' },
    ]);
    expect(entry.request.queryString).toEqual([
      { name: 'q', value: '1' },
      { name: 'r', value: 'two words' },
    ]);
    const [c] = entry.response.cookies;
    expect(c).toMatchObject({ name: 'sid', value: 'xyz', path: '/', httpOnly: true, secure: true, sameSite: 'Lax' });
    expect(Date.parse(c.expires!) - Date.parse(entry.startedDateTime)).toBe(60_000);
    expect(entry).toMatchObject({
      _nagle: true,
      _transport: 'intercepted',
      _interception: true,
      connection: 'u1',
      serverIPAddress: '127.0.0.1',
    });
    expect(entry._clientTimings).toEqual({ receiveRequest: 0.1, proxyOverhead: 0.4, respond: 0.2, total: 36.5 });
  });

  it('decodes gzip, br and deflate for content.text and keeps the wire size in bodySize', () => {
    const text = 'Netlens '.repeat(500);
    for (const [coding, encode] of [
      ['gzip', zlib.gzipSync],
      ['br', zlib.brotliCompressSync],
      ['deflate', zlib.deflateSync],
    ] as const) {
      const wire = encode(Buffer.from(text));
      const entry = exchangeToEntry(
        makeExchange({
          resHeaders: [
            ['Content-Type', 'text/plain'],
            ['Content-Encoding', coding],
          ],
          resBody: body(wire),
        }),
      );
      expect(entry.response.content.text, coding).toBe(text);
      expect(entry.response.content.size).toBe(text.length);
      expect(entry.response.bodySize).toBe(wire.length);
      expect(entry.response.content.compression).toBe(text.length - wire.length);
      expect(entry.response._transferSize).toBe(entry.response.headersSize + wire.length);
    }
  });

  it('stores binary bodies as base64 and they decode back byte for byte', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 255, 254]);
    const entry = exchangeToEntry(makeExchange({ resHeaders: [['Content-Type', 'image/png']], resBody: body(png) }));
    expect(entry.response.content.encoding).toBe('base64');
    expect(Buffer.from(entry.response.content.text!, 'base64').equals(png)).toBe(true);
  });

  it('keeps a body that claims gzip but is not as base64 wire bytes, with the reason', () => {
    const entry = exchangeToEntry(
      makeExchange({
        resHeaders: [
          ['Content-Type', 'text/plain'],
          ['Content-Encoding', 'gzip'],
        ],
        resBody: body('not gzip at all'),
      }),
    );
    expect(entry.response.content.encoding).toBe('base64');
    expect(Buffer.from(entry.response.content.text!, 'base64').toString()).toBe('not gzip at all');
    expect(entry.response.content._decodingError).toMatch(/gzip/);
  });

  it('flags truncated bodies and still decodes what was captured', () => {
    const full = 'x'.repeat(10_000);
    const entry = exchangeToEntry(makeExchange({ resBody: body(full, 1000) }));
    expect(entry.response.content).toMatchObject({ _truncated: true, _capturedSize: 1000, size: 10_000 });
    expect(entry.response.content.text).toBe('x'.repeat(1000));
    expect(entry.response.bodySize).toBe(10_000);
    // A compressed body cut short decodes as far as it goes.
    const gz = zlib.gzipSync(Buffer.from('abcdefghij'.repeat(5000)));
    const cut = exchangeToEntry(
      makeExchange({
        resHeaders: [
          ['Content-Type', 'text/plain'],
          ['Content-Encoding', 'gzip'],
        ],
        resBody: body(gz, Math.floor(gz.length / 2)),
      }),
    );
    expect(cut.response.content._truncated).toBe(true);
    expect(cut.response.content.text!.length).toBeGreaterThan(0);
    expect('abcdefghij'.repeat(5000).startsWith(cut.response.content.text!)).toBe(true);
  });

  it('records postData with params for urlencoded and multipart bodies', () => {
    const form = exchangeToEntry(
      makeExchange({
        request: {
          method: 'POST',
          url: 'http://example.test/f',
          httpVersion: 'http/1.1',
          headers: [['Content-Type', 'application/x-www-form-urlencoded']],
          body: body('a=1&b=x+y'),
        },
      }),
    );
    expect(form.request.postData).toEqual({
      mimeType: 'application/x-www-form-urlencoded',
      text: 'a=1&b=x+y',
      params: [
        { name: 'a', value: '1' },
        { name: 'b', value: 'x y' },
      ],
    });
    expect(form.request.bodySize).toBe(9);
    const mp = [
      '--B',
      'Content-Disposition: form-data; name="f"',
      '',
      'v',
      '--B',
      'Content-Disposition: form-data; name="up"; filename="a.bin"',
      'Content-Type: application/octet-stream',
      '',
      'DATA',
      '--B--',
      '',
    ].join('\r\n');
    const multi = exchangeToEntry(
      makeExchange({
        request: {
          method: 'POST',
          url: 'http://example.test/u',
          httpVersion: 'http/1.1',
          headers: [['content-type', 'multipart/form-data; boundary=B']],
          body: body(mp),
        },
      }),
    );
    expect(multi.request.postData!.params).toEqual([
      { name: 'f', value: 'v' },
      { name: 'up', fileName: 'a.bin', contentType: 'application/octet-stream' },
    ]);
    expect(schemaProblems(wrap([form, multi]))).toEqual([]);
  });

  it('describes a failed exchange with status 0 and the error in _ fields', () => {
    const entry = exchangeToEntry(
      makeExchange({ response: undefined, error: { code: 'NL_UPSTREAM_REFUSED', message: 'refused', side: 'upstream' } }),
    );
    expect(entry.response.status).toBe(0);
    expect(entry).toMatchObject({ _error: 'refused', _errorCode: 'NL_UPSTREAM_REFUSED', _errorSide: 'upstream' });
    expect(schemaProblems(wrap([entry]))).toEqual([]);
  });
});
