/** isHeaderName is `name.length === lower.length && name.toLowerCase() === lower`, without lower-casing. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isHeaderName } from '../../src/har/header-name.js';

const reference = (name: string, lower: string) => name.length === lower.length && name.toLowerCase() === lower;

describe('isHeaderName', () => {
  it('agrees with toLowerCase on case, lengths and the non-ASCII characters that lower-case to ASCII or grow', () => {
    const cases: [string, string][] = [
      ['Set-Cookie', 'set-cookie'],
      ['SET-COOKIE', 'set-cookie'],
      ['set-cookie', 'set-cookie'],
      ['connection', 'set-cookie'],
      ['Accept', 'cookie'],
      ['Cookie ', 'cookie'],
      ['', ''],
      ['Set-Coo\u212Aie', 'set-cookie'],
      ['\u0130', 'i'],
      ['\u0130x', 'ix'],
      ['x-\u00c9', 'x-\u00e9'],
      ['@[`{', '@[`{'],
      ['@', '`'],
      ['[', '{'],
    ];
    for (const [name, lower] of cases) expect(isHeaderName(name, lower), `${name} ${lower}`).toBe(reference(name, lower));
  });

  it('agrees with toLowerCase on random names', () => {
    const ch = fc.constantFrom('a', 'A', 'k', 'K', '\u212A', 'i', 'I', '\u0130', '-', '@', '[', '`', '{', '\u00c9', '\u00e9', 'z', 'Z');
    const name = fc.array(ch, { maxLength: 6 }).map((a) => a.join(''));
    fc.assert(
      fc.property(name, name, (a, b) => {
        const lower = b.toLowerCase();
        expect(isHeaderName(a, lower)).toBe(reference(a, lower));
        expect(isHeaderName(b, lower)).toBe(reference(b, lower));
      }),
      { numRuns: 20_000 },
    );
  });
});
