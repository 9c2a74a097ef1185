import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isoTime } from '../src/iso-time.js';

describe('isoTime', () => {
  it('is toISOString for any time value, the last second cached or not', () => {
    // Times near one another (the cache's case) and far apart, fractions, negatives and years past 9999 included.
    const time = fc.oneof(
      fc.double({ min: -8.64e15, max: 8.64e15, noNaN: true }),
      fc.integer({ min: 1.7e12, max: 1.8e12 }).map((t) => t + 0.5),
      fc.constantFrom(0, -0, -0.5, 0.999, -1, -999.5, -1000, 999, 1000, 8.64e15, -8.64e15, 1798761599999.9, 1798761600000),
    );
    fc.assert(
      fc.property(fc.array(time, { minLength: 1, maxLength: 20 }), (times) => {
        for (const t of times) {
          expect(isoTime(t)).toBe(new Date(t).toISOString());
          // The same second again, from the cache.
          expect(isoTime(t + 0.25)).toBe(new Date(t + 0.25).toISOString());
        }
      }),
      { numRuns: 500 },
    );
  });

  it('throws RangeError where toISOString does, and goes on after it', () => {
    for (const bad of [NaN, Infinity, -Infinity, 8.64e15 + 1, -8.64e15 - 1]) {
      expect(() => new Date(bad).toISOString()).toThrow(RangeError);
      expect(() => isoTime(bad)).toThrow(RangeError);
    }
    expect(isoTime(1798761600123)).toBe('2027-01-01T00:00:00.123Z');
  });
});
