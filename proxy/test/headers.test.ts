/** Direct tests of the header helpers both legs share (proxy/src/headers.ts). */
import { describe, expect, it } from 'vitest';
import { flatFromPairs, getHeader, h2HeaderObject, hasRequestBody, pairsFromFlat, stripHopByHop } from '../src/headers.js';
import type { RawHeaders } from '../src/model.js';

describe('pairsFromFlat / flatFromPairs', () => {
  it('round-trip order, case and repeated names', () => {
    const flat = ['Host', 'a.test', 'Set-Cookie', 'a=1', 'set-cookie', 'b=2', 'X-Empty', ''];
    const pairs = pairsFromFlat(flat);
    expect(pairs).toEqual([
      ['Host', 'a.test'],
      ['Set-Cookie', 'a=1'],
      ['set-cookie', 'b=2'],
      ['X-Empty', ''],
    ]);
    expect(flatFromPairs(pairs)).toEqual(flat);
  });
  it('drops a dangling name without a value', () => {
    expect(pairsFromFlat(['A', '1', 'B'])).toEqual([['A', '1']]);
  });
});

describe('stripHopByHop', () => {
  it('removes the fixed hop-by-hop set in any case and keeps the rest in order', () => {
    const headers: RawHeaders = [
      ['Host', 'a.test'],
      ['Connection', 'keep-alive'],
      ['Keep-Alive', 'timeout=5'],
      ['Proxy-Connection', 'keep-alive'],
      ['TE', 'trailers'],
      ['Transfer-Encoding', 'chunked'],
      ['Upgrade', 'websocket'],
      ['Proxy-Authorization', 'Basic x'],
      ['Accept', '*/*'],
      ['X-Custom', '1'],
    ];
    expect(stripHopByHop(headers)).toEqual([
      ['Host', 'a.test'],
      ['Accept', '*/*'],
      ['X-Custom', '1'],
    ]);
  });
  it('removes the headers that Connection names (RFC 9110 §7.6.1), across several Connection headers', () => {
    const headers: RawHeaders = [
      ['Connection', 'close, X-Foo'],
      ['connection', ' x-bar '],
      ['X-Foo', '1'],
      ['X-Bar', '2'],
      ['X-Baz', '3'],
    ];
    expect(stripHopByHop(headers)).toEqual([['X-Baz', '3']]);
  });
  it('removes HTTP/2 pseudo-headers', () => {
    expect(
      stripHopByHop([
        [':method', 'GET'],
        [':path', '/'],
        ['accept', '*/*'],
      ]),
    ).toEqual([['accept', '*/*']]);
  });
  it('keeps Upgrade and Connection for a WebSocket handshake when asked', () => {
    const headers: RawHeaders = [
      ['Connection', 'Upgrade'],
      ['Upgrade', 'websocket'],
      ['Keep-Alive', '5'],
    ];
    expect(stripHopByHop(headers, { keepUpgrade: true })).toEqual([
      ['Connection', 'Upgrade'],
      ['Upgrade', 'websocket'],
    ]);
  });
  it('does not change its input', () => {
    const headers: RawHeaders = [['Connection', 'close']];
    stripHopByHop(headers);
    expect(headers).toEqual([['Connection', 'close']]);
  });
});

describe('getHeader', () => {
  it('finds the first value case-insensitively, undefined when absent', () => {
    const headers: RawHeaders = [
      ['content-TYPE', 'text/html'],
      ['Content-Type', 'text/plain'],
    ];
    expect(getHeader(headers, 'Content-Type')).toBe('text/html');
    expect(getHeader(headers, 'content-length')).toBeUndefined();
  });
});

describe('h2HeaderObject', () => {
  it('lower-cases names, drops Host (it becomes :authority) and folds repeats into arrays', () => {
    const headers: RawHeaders = [
      ['Host', 'a.test'],
      ['Content-Type', 'text/html'],
      ['Set-Cookie', 'a=1'],
      ['set-cookie', 'b=2'],
      ['SET-COOKIE', 'c=3'],
    ];
    expect(h2HeaderObject(headers)).toEqual({ 'content-type': 'text/html', 'set-cookie': ['a=1', 'b=2', 'c=3'] });
  });
});

describe('hasRequestBody (RFC 9112 §6.3)', () => {
  it('is true with Transfer-Encoding or a non-zero Content-Length', () => {
    expect(hasRequestBody([['Transfer-Encoding', 'chunked']])).toBe(true);
    expect(hasRequestBody([['Content-Length', '12']])).toBe(true);
  });
  it('is false with no framing headers or Content-Length 0', () => {
    expect(hasRequestBody([])).toBe(false);
    expect(hasRequestBody([['Content-Length', '0']])).toBe(false);
    expect(hasRequestBody([['content-length', ' 0 ']])).toBe(false);
  });
});
