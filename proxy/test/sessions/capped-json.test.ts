/** Cutting long strings while reading JSON: the rest parses the same, cut strings say their whole UTF-8 size. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonCapper, splitCut } from '../../src/sessions/capped-json.js';

const RUNS = Number(process.env.NETLENS_FUZZ_RUNS) || 200;

function capped(json: string, cap: number, piece: number): unknown {
  const c = new JsonCapper(cap);
  const bytes = Buffer.from(json);
  // Fed in pieces through one reused buffer, as EntryFile reads: cuts at piece edges must not matter.
  const buf = Buffer.alloc(piece);
  for (let at = 0; at < bytes.length; at += piece) {
    const n = bytes.copy(buf, 0, at, Math.min(at + piece, bytes.length));
    c.write(buf.subarray(0, n));
  }
  return JSON.parse(c.text());
}

/** Checks every string of `got` against the same place in `want`. */
function same(got: unknown, want: unknown, cap: number): void {
  if (typeof want === 'string') {
    const { text, fullBytes } = splitCut(got as string);
    const rawBytes = Buffer.byteLength(JSON.stringify(want)) - 2;
    // Cut only at a character boundary at or after `cap` bytes: a string ending within one character of it stays whole.
    if (rawBytes > cap + 12) expect(fullBytes, 'a long string is cut').toBeDefined();
    if (fullBytes === undefined) {
      expect(text).toBe(want);
    } else {
      expect(fullBytes).toBe(Buffer.byteLength(want));
      // A prefix of the original (a surrogate pair written as two escapes may lose its second half).
      expect(want.startsWith(text) || want.startsWith(text.slice(0, -1))).toBe(true);
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(cap + 4);
    }
  } else if (want && typeof want === 'object') {
    // Keys are strings too: cut by the same rule.
    const g = Object.entries(got as object);
    const w = Object.entries(want);
    expect(g.length).toBe(w.length);
    w.forEach(([k, v], i) => {
      same(g[i]![0], k, cap);
      same(g[i]![1], v, cap);
    });
  } else expect(got).toEqual(want);
}

describe('JsonCapper', () => {
  it('keeps short strings, cuts long ones at a character boundary with their whole size (escapes, emoji, lone surrogates)', () => {
    const odd = fc.constantFrom('a', '"', '\\', '\n', '\u0001', 'ü', '€', '😀', '\ud800', '\udc00', '{', ']');
    const str = fc.string({ unit: fc.oneof(odd, fc.string({ unit: 'grapheme' })), maxLength: 80 });
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        str,
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('v'), { maxLength: 4 }),
        fc.dictionary(str, tie('v'), { maxKeys: 3 }),
      ),
    })).v;
    fc.assert(
      fc.property(value, fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 17 }), (v, cap, piece) => {
        same(capped(JSON.stringify(v), cap, piece), v, cap);
      }),
      { seed: 42, numRuns: RUNS },
    );
  });

  it('a 20 MiB string becomes its first bytes and its size', () => {
    const big = 'x'.repeat(20 * 1024 * 1024);
    const got = capped(JSON.stringify({ name: 'X-Huge', value: big, after: [1, 'y'] }), 1024, 1024 * 1024) as Record<string, unknown>;
    expect(splitCut(got.value as string)).toEqual({ text: 'x'.repeat(1024), fullBytes: big.length });
    expect(got.name).toBe('X-Huge');
    expect(got.after).toEqual([1, 'y']);
  });

  it('a HAR cannot forge a cut marker', () => {
    const fake = '\u0000nlcut000000000000:99';
    expect(splitCut(`abc${fake}`)).toEqual({ text: `abc${fake}` });
  });
});
