import { describe, expect, it } from 'vitest';
import { shellQuote, toCurl } from './curl';

describe('copy as cURL', () => {
  it('builds a command from method, URL, headers and body', () => {
    const cmd = toCurl({
      method: 'POST',
      url: 'https://api.example/v1/items?q=1',
      httpVersion: 'h2',
      headers: [
        [':method', 'POST'],
        [':authority', 'api.example'],
        ['content-type', 'application/json'],
        ['content-length', '13'],
        ['accept-encoding', 'gzip, br'],
      ],
      body: `{"name":"O'Brien"}`,
    });
    expect(cmd).toBe(
      `curl 'https://api.example/v1/items?q=1' -X POST -H 'content-type: application/json' -H 'accept-encoding: gzip, br' --data-raw '{"name":"O'\\''Brien"}' --http2 --compressed`,
    );
  });

  it('keeps a plain GET short', () => {
    expect(
      toCurl({
        method: 'GET',
        url: 'http://a.test/',
        headers: [
          ['Host', 'a.test'],
          ['Connection', 'keep-alive'],
        ],
      }),
    ).toBe(`curl 'http://a.test/'`);
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });

  it('quotes a method that is not a plain word, and every other part', () => {
    expect(toCurl({ method: 'GET$(touch pwned)', url: 'http://a.test/', headers: [['x-a', '$(id)']] })).toBe(
      `curl 'http://a.test/' -X 'GET$(touch pwned)' -H 'x-a: $(id)'`,
    );
    expect(toCurl({ method: 'GET', url: 'http://a.test/\x1b[0m', headers: [] })).toBe(
      `curl 'http://a.test/'"$(printf '\\033')"'[0m' --globoff`,
    );
  });
});
