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
    expect(extentOf([{ start: 10, end: 20 }, { start: 5, end: 6 }, { start: 30, end: -1 }])).toEqual({ start: 5, end: 30 });
    expect(extentOf([])).toBeUndefined();
  });
});
