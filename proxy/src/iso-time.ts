/**
 * `new Date(ms).toISOString()` for the proxy's hot path: every exchange gets its start as an ISO string
 * (HAR `startedDateTime`), and toISOString took ~0.5 µs each (about half a percent of an intercepted request's
 * proxy CPU under load). Exchanges start many times a second, so the text up to the milliseconds is kept for the
 * last second seen and only the milliseconds are written; any other second is made by toISOString itself.
 * The same string as toISOString for every time value (proxy/test/iso-time.test.ts holds it to that), and the
 * same RangeError for one that is not a valid time.
 */

/** The second (epoch ms / 1000) whose text is cached, and that text up to and including the '.' before the milliseconds. */
let cachedSecond = NaN;
let cachedPrefix = '';

export function isoTime(ms: number): string {
  // As Date does: a time value is truncated to whole milliseconds (toward zero).
  const t = Math.trunc(ms);
  // Dates span ±8.64e15 ms; past that (and for NaN) toISOString throws, whatever second the rest would round to.
  if (!(Math.abs(t) <= 8.64e15)) throw new RangeError('Invalid time value');
  const second = Math.floor(t / 1000);
  if (second !== cachedSecond) {
    const iso = new Date(second * 1000).toISOString();
    cachedPrefix = iso.slice(0, -4);
    cachedSecond = second;
  }
  const milli = t - second * 1000;
  return cachedPrefix + (milli < 10 ? '00' : milli < 100 ? '0' : '') + milli + 'Z';
}
