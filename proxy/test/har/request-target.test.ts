/**
 * originForm (har/request-target.ts) must give what `pathname + search` of WHATWG URL gives (or the URL
 * itself when URL throws), whether it takes its fast path or parses: the request's headersSize in every
 * recorded HTTP/1.x exchange depends on it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { originForm } from '../../src/har/request-target.js';

function byUrl(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname + u.search;
  } catch {
    return url;
  }
}

/** Twice: the first call may learn the authority (slow path), the second takes the fast path if it can. */
function expectSame(url: string): void {
  expect(originForm(url), url).toBe(byUrl(url));
  expect(originForm(url), url).toBe(byUrl(url));
}

const CASES = [
  'https://example.test/path?q=1&r=two%20words',
  'https://example.test/',
  'https://example.test',
  'https://example.test?x=1',
  'https://example.test#frag',
  'https://example.test/a#frag',
  'https://example.test/a?b#c',
  'https://example.test/a?',
  'https://example.test/a/./b',
  'https://example.test/a/../b',
  'https://example.test/a/%2e%2E/b',
  'https://example.test/a/%2E/b',
  'https://example.test/.well-known/x',
  'https://example.test/a/..',
  'https://example.test/a\\b',
  'https://example.test/a b',
  'https://example.test/a"b',
  "https://example.test/a?b'c",
  "https://example.test/a'b",
  'https://example.test/a?b c',
  'https://example.test/a?x=/./y',
  'https://example.test/\u00e9',
  'https://example.test/%zz%',
  'https://example.test/a\tb',
  'https://example.test/a\n',
  'https://example.test/{x}',
  'https://example.test/a^b|c`d',
  'https://EXAMPLE.test:443/Up/Case',
  'https://user:pass@example.test:8443/p?q',
  'https://example.test:99999/p',
  'https://1.2.3.999/p',
  'https://[::1]:8443/p?q=1',
  'https://[::1/p',
  'https://ex ample.test/p',
  'http://example.test/p?q',
  'HTTPS://example.test/p',
  'ftp://example.test/p',
  'https:/example.test/p',
  'https:///p',
  'not a url',
  '/just/a/path',
  ' https://example.test/p',
  // URL removes tabs and newlines anywhere: the first parses (host "example.test"), the second has no host and
  // throws, though both start with the same text before the first '/' (fast-check found it, seed 1163932596).
  'https://\t/example.test',
  'https://\t/',
  'https://ex\nample.test/p',
  'https://ex\nample.test/',
];

describe('originForm', () => {
  it('gives what URL gives on URLs with every character class, dot segments, fragments and bad authorities', () => {
    for (const url of CASES) expectSame(url);
  });

  it('matches URL on generated URLs, their paths and queries from characters URL keeps, escapes or resolves', () => {
    const pieces = fc.constantFrom(
      'a',
      'Z',
      '0',
      '/',
      '.',
      '..',
      '%2e',
      '%2E',
      '%41',
      '%',
      '?',
      '#',
      '\\',
      ' ',
      "'",
      '"',
      '~',
      '@',
      ':',
      '!',
      '$',
      '&',
      '(',
      ')',
      '*',
      '+',
      ',',
      ';',
      '=',
      '-',
      '_',
      '{',
      '|',
      '^',
      '`',
      '\t',
      '\u00e9',
      '\u2028',
      '\ud800',
      '<',
      '>',
    );
    const authority = fc.constantFrom(
      'example.test',
      'EXAMPLE.test:443',
      'u:p@h.test:8443',
      '127.0.0.1',
      '[::1]:1',
      'h:99999',
      '1.2.3.999',
      'a b',
      'xn--a',
      'h.test:',
      '',
    );
    fc.assert(
      fc.property(fc.constantFrom('https://', 'http://', 'ws://', 'https:'), authority, fc.array(pieces, { maxLength: 30 }), (s, a, p) =>
        expectSame(s + a + p.join('')),
      ),
      { numRuns: 5000 },
    );
    fc.assert(fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), expectSame), { numRuns: 2000 });
  });
});
