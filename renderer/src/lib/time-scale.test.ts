import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTimeScale, extentOf, niceStep, rangeFromPixels, zoomRange } from './time-scale';

describe('time scale', () => {
  it('maps the range onto the width, both ways', () => {
    const s = createTimeScale({ start: 1000, end: 1500 }, 1000);
    expect(s.toPx(1000)).toBe(0);
    expect(s.toPx(1500)).toBe(1000);
    expect(s.toPx(1250)).toBe(500);
    expect(s.toTime(500)).toBe(1250);
    expect(s.spanPx(100)).toBe(200);
    expect(s.spanPx(-5)).toBe(0);
  });

  it('widens an empty range instead of dividing by zero', () => {
    const s = createTimeScale({ start: 5, end: 5 }, 100);
    expect(Number.isFinite(s.toPx(5.5))).toBe(true);
    expect(s.end).toBe(6);
  });

  it('picks 1-2-5 steps and labels ticks from the range start', () => {
    expect(niceStep(0.7)).toBe(1);
    expect(niceStep(13)).toBe(20);
    expect(niceStep(260)).toBe(500);
    expect(niceStep(1000)).toBe(1000);
    const s = createTimeScale({ start: 0, end: 1000 }, 800);
    const ticks = s.ticks(80); // 80 px = 100 ms
    expect(ticks.map((t) => t.label).slice(0, 3)).toEqual(['0 ms', '100 ms', '200 ms']);
    expect(ticks.at(-1)!.time).toBe(1000);
    const secs = createTimeScale({ start: 0, end: 20_000 }, 400).ticks(80);
    expect(secs[1]!.label).toBe('5 s');
    const days = createTimeScale({ start: 0, end: 40 * 86_400_000 }, 400).ticks(80);
    expect(days[1]!.label).toBe('10 d');
  });

  it('zooms around an anchor and stays inside the bounds', () => {
    const bounds = { start: 0, end: 1000 };
    const z = zoomRange(bounds, 250, 0.5, bounds);
    expect(z.end - z.start).toBe(500);
    expect(z.start).toBe(125); // the anchor keeps its relative position
    const out = zoomRange({ start: 900, end: 1000 }, 990, 4, bounds);
    expect(out).toEqual({ start: 600, end: 1000 });
    expect(zoomRange(bounds, 500, 1e-9, bounds, 2).end - zoomRange(bounds, 500, 1e-9, bounds, 2).start).toBe(2);
  });

  it('turns a drag into a time range, ignoring tiny drags', () => {
    const s = createTimeScale({ start: 0, end: 100 }, 100);
    expect(rangeFromPixels(s, 80, 20)).toEqual({ start: 20, end: 80 });
    expect(rangeFromPixels(s, 10, 11)).toBeUndefined();
    expect(rangeFromPixels(s, -50, 500)).toEqual({ start: 0, end: 100 });
  });

  it('finds the extent of rows', () => {
    expect(
      extentOf([
        { start: 10, end: 20 },
        { start: 5, end: 6 },
        { start: 30, end: -1 },
      ]),
    ).toEqual({ start: 5, end: 30 });
    expect(extentOf([])).toBeUndefined();
  });

  it('a zoomed axis counts from the capture start (origin), like the range text and the tooltips', () => {
    // Capture 0–2000 ms (epoch 1e12…), zoomed to 1250–1750: the axis must read 1.3 s…, not restart at 0.
    const origin = 1e12;
    const s = createTimeScale({ start: origin + 1250, end: origin + 1750 }, 500);
    const ticks = s.ticks(80, origin); // 80 px = 80 ms → 100 ms steps
    expect(ticks.map((t) => t.label)).toEqual(['1.3 s', '1.4 s', '1.5 s', '1.6 s', '1.7 s']);
    expect(ticks.map((t) => t.px)).toEqual([50, 150, 250, 350, 450]);
    // Without an origin: relative to the range start, as before (the lab's side-by-side charts).
    expect(s.ticks(80)[0]).toEqual({ time: origin + 1250, px: 0, label: '0 ms' });
    // The range starts exactly on a tick: it is kept.
    expect(
      createTimeScale({ start: 1000, end: 1500 }, 500)
        .ticks(80, 0)
        .map((t) => t.label),
    ).toEqual(['1 s', '1.1 s', '1.2 s', '1.3 s', '1.4 s', '1.5 s']);
    // Deep zoom far from the start: enough decimals to tell the ticks apart.
    const deep = createTimeScale({ start: 61_234.5, end: 61_236.5 }, 400)
      .ticks(80, 0)
      .map((t) => t.label);
    expect(deep).toEqual(['61.2345 s', '61.235 s', '61.2355 s', '61.236 s', '61.2365 s']);
  });

  it('property: every tick lies in the range, sits at toPx(time), and its label reads time − origin', () => {
    const unit: Record<string, number> = { ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 };
    const runs = Number(process.env.NETLENS_FUZZ_RUNS ?? 300);
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1e13, noNaN: true }),
        fc.double({ min: 1, max: 1e9, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 1e-4, max: 1, noNaN: true }),
        fc.integer({ min: 50, max: 3000 }),
        (origin, total, at, frac, width) => {
          const span = Math.max(0.5, total * frac);
          const start = origin + (total - span) * at;
          const s = createTimeScale({ start, end: start + span }, width);
          const ticks = s.ticks(80, origin);
          expect(ticks.length).toBeGreaterThan(0);
          for (const [i, t] of ticks.entries()) {
            expect(t.time).toBeGreaterThanOrEqual(s.start - 1e-6 * span);
            expect(t.time).toBeLessThanOrEqual(s.end + 1e-6 * span);
            expect(t.px).toBeCloseTo(s.toPx(t.time), 3);
            const m = /^(-?[\d.]+) (ms|s|min|h|d)$/.exec(t.label);
            expect(m, t.label).not.toBeNull();
            const step = i > 0 ? t.time - ticks[i - 1]!.time : span;
            expect(Math.abs(Number(m![1]) * unit[m![2]!]! - (t.time - origin))).toBeLessThanOrEqual(
              Math.max(step * 0.06, 1e-3 * unit[m![2]!]!),
            );
          }
        },
      ),
      { seed: 42, numRuns: runs },
    );
  });
});
