/**
 * JsonBytes (har/json-bytes.ts) writes JSON straight into bytes; the journal lines it builds must be the bytes
 * JSON.stringify would write. Numbers have fast paths (whole, thousandths), held here to JSON.stringify over
 * random and edge values.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonBytes, NotPlain } from '../../src/har/json-bytes.js';

const written = (v: unknown) => {
  const o = new JsonBytes(8); // tiny: every write has to grow the buffer
  o.num(v);
  return o.bytes().toString('latin1');
};

describe('JsonBytes.num', () => {
  it('writes what JSON.stringify writes for whole numbers, thousandths and the edges around them', () => {
    const edges = [
      // Around the 32-bit integer paths: whole numbers and thousandths at and past 2^31.
      2147483647,
      2147483648,
      -2147483647,
      -2147483648,
      -2147483649,
      2147483.647,
      2147483.648,
      -2147483.647,
      -2147483.648,
      2147483.5,
      0.001,
      -0.001,
      0.01,
      0.1,
      1.1,
      1.01,
      1.001,
      999.999,
      0,
      -0,
      1,
      -1,
      9,
      10,
      99,
      100,
      1e3,
      123456789,
      -987654321,
      2 ** 31,
      2 ** 32 + 1,
      1e15 - 1,
      -(1e15 - 1),
      1e15,
      2 ** 53,
      1e21,
      1e22,
      0.001,
      -0.001,
      0.01,
      0.1,
      0.5,
      1.5,
      12.345,
      12.34,
      12.3,
      0.999,
      1.001,
      -1.999,
      999999999.999,
      999999999999.999,
      0.0005,
      0.0015,
      1e-7,
      123.4565,
      3.14159,
      Math.PI,
      Number.MIN_VALUE,
      Number.MAX_VALUE,
      Number.EPSILON,
      0.1 + 0.2,
      NaN,
      Infinity,
      -Infinity,
    ];
    for (const v of edges) expect(written(v), String(v)).toBe(JSON.stringify(v));
  });

  it('matches JSON.stringify for random doubles, integers and rounded timings', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double(),
          fc.integer(),
          fc.maxSafeInteger(),
          fc.integer({ min: -1e9, max: 1e12 }).map((k) => k / 1000),
          fc.integer().map((k) => k / 1000),
          fc.integer().map((k) => k / 100),
          fc.double({ min: -1e6, max: 1e7, noNaN: true }).map((x) => Math.round(x * 1000) / 1000),
        ),
        (v) => written(v) === JSON.stringify(v),
      ),
      { numRuns: 20_000 },
    );
  });

  it('refuses what is not a number', () => {
    expect(() => written('1')).toThrow(NotPlain);
    expect(() => written(1n)).toThrow(NotPlain);
  });
});

describe('JsonBytes.utf8', () => {
  /** What utf8() wrote for the UTF-8 of `s`, or false when it refused (and then it must have written nothing). */
  const written = (s: string): string | false => {
    const o = new JsonBytes(16);
    o.byte(120);
    const ok = o.utf8(Buffer.from(s, 'utf8'));
    if (!ok) {
      expect(o.pos).toBe(1);
      return false;
    }
    return o.bytes().subarray(1).toString('utf8');
  };
  /** Text body.ts takes for binary: a control character other than \t \n \v \f \r. */
  const BINARY = /[\u0000-\u0008\u000e-\u001f]/;

  it('writes the bytes of JSON.stringify for text, and refuses text with binary controls', () => {
    const cases = [
      '',
      'plain',
      'q"b\\s',
      '\t\n\u000b\f\r',
      'del \u007f \u2028\u2029 é 中文 😀',
      '\ufeffbom',
      '\u0000',
      'a\u0008',
      'z\u001f',
    ];
    for (const s of cases) expect(written(s), JSON.stringify(s)).toBe(BINARY.test(s) ? false : JSON.stringify(s));
  });

  it('matches JSON.stringify on random well-formed text, growing its buffer from 16 bytes', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.string({ maxLength: 3000 })), (raw) => {
        // Lone surrogates have no UTF-8 (they become U+FFFD): text that came from valid UTF-8 bytes never has one.
        const s = Buffer.from(raw, 'utf8').toString('utf8');
        expect(written(s)).toBe(BINARY.test(s) ? false : JSON.stringify(s));
      }),
      { numRuns: 5000 },
    );
  });
});
