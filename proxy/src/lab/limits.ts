/**
 * The lab's defaults and limits, in one place for the CLI, the API and the UI
 * (the renderer imports this file too: keep it free of Node imports).
 *
 * Before, each layer had its own (API runs 1–50, CLI 1–1000, the runner ≥ 1,
 * the Lab view 3 runs by default): the UI's 3 runs could never give p < 0.05.
 * The API's checks (api/lab-service.ts), the CLI's flags (cli/commands/lab.ts),
 * the runner (resolveLabConfig) and the Lab view's form all read LAB_LIMITS and LAB_DEFAULTS.
 */
import type { CellId } from './types.js';

export interface IntLimit {
  min: number;
  max: number;
  default: number;
}

export const LAB_LIMITS = {
  /** Runs per cell. 5 is the fewest at which one consistent difference reaches p < 0.05 comfortably (min p 0.008). */
  runs: { min: 1, max: 1000, default: 5 },
  /** Images on the built-in test site's page. */
  images: { min: 0, max: 100_000, default: 1000 },
  /** Test site: delay per response and per new connection, ms. */
  latencyMs: { min: 0, max: 60_000, default: 0 },
  /** Network idle after `load` that ends a run, ms. */
  quietMs: { min: 0, max: 60_000, default: 500 },
  /** One page load gives up after this long, ms. */
  timeoutMs: { min: 1000, max: 3_600_000, default: 60_000 },
  /**
   * Lower CPU priority (nice) of every cell's browser; 0 = the normal one (browser/priority.ts).
   * Default 10: the lab measures the page, and the test site, the latency it adds and the proxy
   * stand in for a network and servers that are elsewhere in real use. Run at the browser's
   * priority on a machine with few cores they queue behind Chromium, and the lab measured that
   * queue as the proxy's cost (docs/benchmarks.md, 2 cores, 200 images: the intercepting cells' proxy
   * waited 101 ms (HTTP/2) and 271 ms (HTTP/1.1) per load for a core at nice 0, 32 and 48 ms at
   * nice 10). On a machine with cores to spare it changes nothing.
   */
  browserNice: { min: 0, max: 19, default: 10 },
  /** With --url: a browser HAR with fewer entries fails the run. */
  expectedRequests: { min: 1, max: 1_000_000, default: 1 },
} as const satisfies Record<string, IntLimit>;

export type LabLimitName = keyof typeof LAB_LIMITS;

/** What a new run starts with where the caller says nothing (the API's getLabOptions, the Lab view, the runner). */
export const LAB_DEFAULTS = {
  /** The built-in test site with the default images and latency. */
  target: { kind: 'site', images: LAB_LIMITS.images.default, latencyMs: LAB_LIMITS.latencyMs.default },
  runs: LAB_LIMITS.runs.default,
  /** Each cell compared with the direct cell of its HTTP/2 setting. */
  baseline: 'direct',
  /** The Lab view's cells: two that finish quickly (the CLI runs every cell unless told otherwise). */
  uiCells: ['direct+h2', 'proxy+h2+intercept'] as readonly CellId[],
} as const;

/** "0–100,000": a limit's range as help texts and the Lab view show it. */
export function limitRange(name: LabLimitName): string {
  const { min, max } = LAB_LIMITS[name];
  return `${min.toLocaleString('en-US')}–${max.toLocaleString('en-US')}`;
}

/** Significance level: default and bounds (exclusive of 0 and 1). */
export const LAB_ALPHA = { default: 0.05, min: 0, max: 1 } as const;

/** Coefficient of variation of load time above which a cell is flagged as noisy. */
export const NOISY_CV = 0.1;

/**
 * Why `value` is not a valid `name` (whole number within the limits), or undefined when it is.
 * `label` names it the way the caller's user knows it (`--runs`, `runs`).
 */
export function limitProblem(name: LabLimitName, value: unknown, label: string = name): string | undefined {
  const { min, max } = LAB_LIMITS[name];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    const got = typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value));
    return `${label} must be a whole number from ${min} to ${max.toLocaleString('en-US')} (got ${got})`;
  }
  return undefined;
}

/** Binomial coefficient C(n, k) as a float (exact up to 2^53, then close enough for a p-value). */
function choose(n: number, k: number): number {
  let c = 1;
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
  return c;
}

/**
 * The smallest two-sided p a Mann-Whitney U test can give for two samples of
 * `runs` values each (exact distribution, no ties): every value of one sample
 * beyond every value of the other, 2 / C(2n, n). With 3 runs: 0.1, so nothing
 * is ever significant at α = 0.05; with 4: 0.029; with 5: 0.0079.
 */
export function minPValue(runs: number): number {
  if (!Number.isInteger(runs) || runs < 1) return NaN;
  // Past ~540 runs 2/C(2n,n) is below the smallest double: 0, without a loop as long as `runs`
  // (results.json is read from disk, so `runs` can be any number).
  if (runs > 600) return 0;
  return Math.min(1, 2 / choose(2 * runs, runs));
}

/** The fewest runs per cell whose minimum p is below `alpha`. */
export function minRunsFor(alpha: number): number {
  for (let n = 1; n <= LAB_LIMITS.runs.max; n++) if (minPValue(n) < alpha) return n;
  return LAB_LIMITS.runs.max;
}
