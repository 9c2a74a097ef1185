/**
 * The waterfall's time → pixel mapping (what DevTools calls NetworkTimeCalculator).
 * Pure: every view that draws on a time axis (Waterfall, the Traffic list's mini
 * bars, the lab's side-by-side waterfalls) uses this and nothing else.
 */

export interface TimeRange {
  /** Epoch ms (or any ms origin, as long as all values share it). */
  start: number;
  end: number;
}

export interface Tick {
  time: number;
  px: number;
  label: string;
}

export interface TimeScale extends TimeRange {
  width: number;
  /** Pixels per millisecond. */
  readonly pxPerMs: number;
  toPx(time: number): number;
  /** Width in px of a duration, never negative. */
  spanPx(ms: number): number;
  toTime(px: number): number;
  /**
   * Axis ticks at "nice" steps (1, 2, 5 × 10^k ms) at least `minSpacingPx` apart,
   * labelled as offsets from `origin` (default: the range start, "0 ms" at the
   * left edge). A zoomed view passes the whole capture's start, so the axis, the
   * range text and the tooltips all count from the same zero.
   */
  ticks(minSpacingPx?: number, origin?: number): Tick[];
}

/** A range of zero length still maps: it is widened to 1 ms so nothing divides by zero. */
export function createTimeScale(range: TimeRange, width: number): TimeScale {
  const start = range.start;
  const end = range.end > range.start ? range.end : range.start + 1;
  const w = Math.max(1, width);
  const pxPerMs = w / (end - start);
  const scale: TimeScale = {
    start,
    end,
    width: w,
    pxPerMs,
    toPx: (t) => (t - start) * pxPerMs,
    spanPx: (ms) => Math.max(0, ms) * pxPerMs,
    toTime: (px) => start + px / pxPerMs,
    ticks(minSpacingPx = 80, origin = start) {
      const step = niceStep(minSpacingPx / pxPerMs);
      const out: Tick[] = [];
      // Ticks sit on multiples of the step counted from `origin`; the first one at or after the range start.
      const first = Math.ceil((start - origin) / step - 1e-9);
      for (let i = 0; i < 1000; i++) {
        const offset = (first + i) * step;
        const time = origin + offset;
        if (time > end + 1e-9 * step) break;
        out.push({ time, px: (time - start) * pxPerMs, label: formatTick(offset, step) });
      }
      return out;
    },
  };
  return scale;
}

/** Clock-friendly steps once a step exceeds a minute (10 min, 1 h, 1 d rather than 1,000,000 ms). */
const CLOCK_STEPS = [1, 2, 5, 10, 15, 30]
  .map((m) => m * 60_000)
  .concat(
    [1, 2, 3, 6, 12].map((h) => h * 3_600_000),
    [1, 2, 5, 10, 20, 50, 100, 200, 500].map((d) => d * 86_400_000),
  );

/** Smallest 1/2/5 × 10^k step ≥ `minStep` ms (clock units above a minute). */
export function niceStep(minStep: number): number {
  if (!(minStep > 0) || !Number.isFinite(minStep)) return 1;
  if (minStep > 60_000) {
    const step = CLOCK_STEPS.find((s) => s >= minStep);
    if (step) return step;
  }
  const exp = Math.floor(Math.log10(minStep));
  for (const m of [1, 2, 5, 10]) {
    const step = m * 10 ** exp;
    if (step >= minStep - 1e-12) return step;
  }
  return 10 ** (exp + 1);
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function formatTick(t: number, step: number): string {
  // Imported HARs can span days (entries recorded weeks apart): label in the unit of the step.
  if (step >= DAY) return `${+(t / DAY).toFixed(1)} d`;
  if (step >= HOUR) return `${+(t / HOUR).toFixed(1)} h`;
  if (step >= MINUTE) return `${+(t / MINUTE).toFixed(1)} min`;
  if (step >= 1000) return `${+(t / 1000).toFixed(step >= 10_000 ? 0 : 1)} s`;
  // Past a second (a zoomed axis far from the capture start) read seconds, as the range text does: "1.1 s", not "1100 ms".
  if (Math.abs(t) >= 1000) return `${+(t / 1000).toFixed(Math.max(0, Math.ceil(-Math.log10(step / 1000) - 1e-9)))} s`;
  if (step >= 1) return `${Math.round(t)} ms`;
  return `${+t.toFixed(Math.min(3, Math.ceil(-Math.log10(step))))} ms`;
}

/** The range covering every [start, end] (rows whose end is unknown count as their start). */
export function extentOf(items: Iterable<{ start: number; end: number }>): TimeRange | undefined {
  let lo = Infinity;
  let hi = -Infinity;
  for (const { start, end } of items) {
    if (start < lo) lo = start;
    const e = Math.max(start, end);
    if (e > hi) hi = e;
  }
  return lo === Infinity ? undefined : { start: lo, end: hi };
}

/**
 * Zooms around `anchor` (a time inside the range) by `factor` (< 1 zooms in),
 * clamped to `bounds` and to a minimal width of `minMs`.
 */
export function zoomRange(range: TimeRange, anchor: number, factor: number, bounds: TimeRange, minMs = 0.5): TimeRange {
  const width = Math.min(bounds.end - bounds.start, Math.max(minMs, (range.end - range.start) * factor));
  const ratio = range.end > range.start ? (anchor - range.start) / (range.end - range.start) : 0.5;
  let start = anchor - width * ratio;
  start = Math.max(bounds.start, Math.min(start, bounds.end - width));
  return { start, end: start + width };
}

/** The range between two x positions (in either order) of a scale; undefined when narrower than `minPx`. */
export function rangeFromPixels(scale: TimeScale, x1: number, x2: number, minPx = 3): TimeRange | undefined {
  const a = Math.max(0, Math.min(x1, x2));
  const b = Math.min(scale.width, Math.max(x1, x2));
  if (b - a < minPx) return undefined;
  return { start: scale.toTime(a), end: scale.toTime(b) };
}
