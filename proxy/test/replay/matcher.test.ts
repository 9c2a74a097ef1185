/** Matching rules of server replay, without a network. */
import { describe, expect, it } from 'vitest';
import { Matcher, requestKey, type MatchRequest } from '../../src/replay/matcher.js';
import { replayResponse } from '../../src/replay/server-replay.js';
import type { HarEntry } from '../../src/har/types.js';

const req = (method: string, url: string, body: string | null = null, headers: Array<[string, string]> = []): MatchRequest => ({
  method,
  url,
  headers,
  body: body === null ? null : Buffer.from(body),
});

describe('requestKey', () => {
  it('ignores query order but not query values, path, port, scheme or method', () => {
    const base = requestKey(req('GET', 'https://a.test/p?x=1&y=2'));
    expect(requestKey(req('GET', 'https://a.test/p?y=2&x=1'))).toBe(base);
    expect(requestKey(req('get', 'https://A.TEST:443/p?y=2&x=1'))).toBe(base);
    for (const other of [
      'https://a.test/p?x=1&y=3',
      'https://a.test/q?x=1&y=2',
      'https://a.test:8443/p?x=1&y=2',
      'http://a.test/p?x=1&y=2',
      'https://b.test/p?x=1&y=2',
    ]) {
      expect(requestKey(req('GET', other))).not.toBe(base);
    }
    expect(requestKey(req('POST', 'https://a.test/p?x=1&y=2'))).not.toBe(base);
  });

  it('drops ignored query parameters', () => {
    const opts = { ignoreQueryParams: ['_', 't'] };
    expect(requestKey(req('GET', 'https://a.test/p?x=1&_=123&t=9'), opts)).toBe(requestKey(req('GET', 'https://a.test/p?x=1&_=456'), opts));
    expect(requestKey(req('GET', 'https://a.test/p?x=1&_=123'))).not.toBe(requestKey(req('GET', 'https://a.test/p?x=1&_=456')));
  });

  it('compares bodies unless told not to', () => {
    expect(requestKey(req('POST', 'https://a.test/api', 'a'))).not.toBe(requestKey(req('POST', 'https://a.test/api', 'b')));
    expect(requestKey(req('POST', 'https://a.test/api', 'a'), { matchBody: false })).toBe(
      requestKey(req('POST', 'https://a.test/api', 'b'), { matchBody: false }),
    );
    // An empty body is no body.
    expect(requestKey(req('POST', 'https://a.test/api', ''))).toBe(requestKey(req('POST', 'https://a.test/api', null)));
  });

  it('matches on chosen headers only; "*" takes all but volatile and ignored ones', () => {
    const a = req('GET', 'https://a.test/', null, [
      ['Accept', 'text/html'],
      ['Cookie', 's=1'],
      ['X-Trace', '1'],
    ]);
    const b = req('GET', 'https://a.test/', null, [
      ['accept', 'application/json'],
      ['Cookie', 's=2'],
      ['X-Trace', '2'],
    ]);
    expect(requestKey(a)).toBe(requestKey(b));
    expect(requestKey(a, { matchHeaders: ['accept'] })).not.toBe(requestKey(b, { matchHeaders: ['accept'] }));
    expect(requestKey(a, { matchHeaders: ['cookie-x'] })).toBe(requestKey(b, { matchHeaders: ['cookie-x'] }));
    expect(requestKey(a, { matchHeaders: ['*'] })).not.toBe(requestKey(b, { matchHeaders: ['*'] }));
    // Cookie is volatile; ignoring Accept and X-Trace leaves nothing that differs.
    const opts = { matchHeaders: ['*'], ignoreHeaders: ['Accept', 'x-trace'] };
    expect(requestKey(a, opts)).toBe(requestKey(b, opts));
  });
});

describe('Matcher', () => {
  const recordings = ['one', 'two', 'three'].map((value) => ({ request: req('GET', 'https://a.test/poll'), value }));

  it('serves identical requests in recorded order, then reuses the last', () => {
    const m = new Matcher(recordings);
    expect([1, 2, 3, 4, 5].map(() => m.match(req('GET', 'https://a.test/poll'))?.value)).toEqual(['one', 'two', 'three', 'three', 'three']);
    expect(m.match(req('GET', 'https://a.test/other'))).toBeUndefined();
    expect(m.unused()).toEqual([]);
  });

  it('without reuseLast, repeats past the recording are unmatched', () => {
    const m = new Matcher(recordings, { reuseLast: false });
    expect([1, 2, 3, 4].map(() => m.match(req('GET', 'https://a.test/poll'))?.value)).toEqual(['one', 'two', 'three', undefined]);
  });

  it('reports recordings never served', () => {
    const m = new Matcher(recordings);
    m.match(req('GET', 'https://a.test/poll'));
    expect(m.unused()).toEqual(['two', 'three']);
  });
});

function entry(headers: Array<[string, string]>, content: HarEntry['response']['content'], status = 200): HarEntry {
  return {
    startedDateTime: '2024-01-01T00:00:00.000Z',
    time: 30,
    request: {
      method: 'GET',
      url: 'https://a.test/',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [],
      queryString: [],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status,
      statusText: 'OK',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: headers.map(([name, value]) => ({ name, value })),
      content,
      redirectURL: '',
      headersSize: -1,
      bodySize: 10,
    },
    cache: {},
    timings: { send: 0, wait: 20, receive: 10 },
  };
}

describe('replayResponse', () => {
  const now = Date.parse('2024-01-02T00:00:00.000Z');

  it('drops hop-by-hop, framing and content-encoding headers and sets the replayed length', () => {
    const e = entry(
      [
        ['Content-Type', 'text/plain'],
        ['Content-Encoding', 'gzip'],
        ['Content-Length', '10'],
        ['Transfer-Encoding', 'chunked'],
        ['Connection', 'keep-alive'],
        ['Keep-Alive', 'timeout=5'],
        ['X-Kept', 'yes'],
        ['Set-Cookie', 'a=1'],
        ['Set-Cookie', 'b=2'],
      ],
      { size: 5, mimeType: 'text/plain', text: 'hello' },
    );
    const a = replayResponse(e, 'GET', {}, now);
    expect(a.body.toString()).toBe('hello');
    expect(a.headers).toEqual([
      ['Content-Type', 'text/plain'],
      ['X-Kept', 'yes'],
      ['Set-Cookie', 'a=1'],
      ['Set-Cookie', 'b=2'],
      ['Content-Length', '5'],
    ]);
    expect(a.fromRecording).toBe(true);
  });

  it('keeps Content-Encoding when the recorder could not decode (the text holds the wire bytes)', () => {
    const e = entry([['Content-Encoding', 'zstd']], {
      size: 3,
      mimeType: 'x',
      text: Buffer.from([1, 2, 3]).toString('base64'),
      encoding: 'base64',
      _decodingError: 'zstd: unsupported',
    });
    const a = replayResponse(e, 'GET', {}, now);
    expect(a.headers).toEqual([
      ['Content-Encoding', 'zstd'],
      ['Content-Length', '3'],
    ]);
    expect([...a.body]).toEqual([1, 2, 3]);
  });

  it('refreshes Date and shifts Expires / Last-Modified by the time since recording, unless told not to', () => {
    const e = entry(
      [
        ['Date', 'Mon, 01 Jan 2024 00:00:00 GMT'],
        ['Expires', 'Mon, 01 Jan 2024 01:00:00 GMT'],
        ['Last-Modified', 'Sun, 31 Dec 2023 00:00:00 GMT'],
      ],
      { size: 0, mimeType: 'x' },
    );
    const a = replayResponse(e, 'GET', {}, now);
    expect(a.headers.slice(0, 3)).toEqual([
      ['Date', 'Tue, 02 Jan 2024 00:00:00 GMT'],
      ['Expires', 'Tue, 02 Jan 2024 01:00:00 GMT'],
      ['Last-Modified', 'Mon, 01 Jan 2024 00:00:00 GMT'],
    ]);
    const kept = replayResponse(e, 'GET', { refreshDates: false }, now);
    expect(kept.headers[0]).toEqual(['Date', 'Mon, 01 Jan 2024 00:00:00 GMT']);
  });

  it('HEAD keeps the recorded length with no body; 304 has neither', () => {
    const e = entry([['Content-Length', '1234']], { size: 0, mimeType: 'x' });
    expect(replayResponse(e, 'HEAD', {}, now)).toMatchObject({ headers: [['Content-Length', '1234']] });
    expect(replayResponse(e, 'HEAD', {}, now).body.length).toBe(0);
    expect(replayResponse(entry([['ETag', '"x"']], { size: 0, mimeType: 'x' }, 304), 'GET', {}, now).headers).toEqual([['ETag', '"x"']]);
  });

  it('pacing replays the recorded wait and receive', () => {
    const e = entry([], { size: 1, mimeType: 'x', text: 'a' });
    expect(replayResponse(e, 'GET', { pacing: true }, now)).toMatchObject({ delayHeadMs: 20, spreadBodyMs: 10 });
    expect(replayResponse(e, 'GET', {}, now)).toMatchObject({ delayHeadMs: undefined, spreadBodyMs: undefined });
  });
});
