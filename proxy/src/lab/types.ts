/**
 * The lab's public contract: plain, JSON-serializable types shared by the core
 * (runner, CLI) and the UI (renderer imports these as types only).
 *
 * Stability: fields are only ever added. `results.json` is a `LabResult`
 * written with `JSON.stringify`; docs/lab.md documents it field by field, and
 * `LAB_SCHEMA_VERSION` changes only if a field changes meaning.
 */

export const LAB_SCHEMA_VERSION = 1;

/**
 * A matrix cell, named by its settings joined with `+`:
 *   `direct+h2`, `direct+h1`,
 *   `proxy+<h2|h1>+<intercept|tunnel>[+nagle]`  (8 cells),
 *   `proxy+h1+intercept+naive[+nagle]`  (2 opt-in cells: the proxy relays naively, `relay: 'naive'`),
 *   `via-<name>+<h2|h1>`  (2 per external proxy in `LabConfig.via`).
 * `h1` means HTTP/2 disabled (`--disable-http2` and the proxy speaks HTTP/1.1 on
 * both legs); `tunnel` means CONNECT is a blind TCP tunnel; `+nagle` means the
 * proxy leaves Nagle's algorithm on (no suffix: `setNoDelay(true)`).
 */
export type CellId = BuiltInCellId | ViaCellId | VariantCellId;

/**
 * A Netlens proxy cell run with a variant's rules (`LabConfig.variants`), e.g.
 * `proxy+h2+intercept~slow-images`: the base cell's settings plus the rules of variant `slow-images`.
 */
export type VariantCellId = `${BuiltInCellId}~${string}`;

/** A "what if": a rules file applied to the proxy cells (docs/lab.md "Variants: what if"). */
export interface LabVariant {
  /** Names the cells `<cell>~<name>`: /^[a-z0-9][a-z0-9-]{0,31}$/. */
  name: string;
  /** The rules file it was read from (as given), so a stored run says where its rules came from. */
  file: string;
  /** The validated rules, as applied (results.json keeps them: a stored run is self-describing). */
  rules: import('../rules/types.js').RulesFile;
}

/**
 * A page load through an external proxy (`LabConfig.via`), e.g. `via-mitmproxy+h2`.
 * `h1` only disables HTTP/2 in Chrome: what the other proxy speaks upstream is its business.
 */
export type ViaCellId = `via-${string}+h2` | `via-${string}+h1`;

/** The 10 cells of the Netlens matrix, and the 2 opt-in naive-relay cells (cells.ts NAIVE_CELLS). */
export type BuiltInCellId =
  | 'direct+h2'
  | 'direct+h1'
  | 'proxy+h2+intercept'
  | 'proxy+h2+intercept+nagle'
  | 'proxy+h2+tunnel'
  | 'proxy+h2+tunnel+nagle'
  | 'proxy+h1+intercept'
  | 'proxy+h1+intercept+nagle'
  | 'proxy+h1+tunnel'
  | 'proxy+h1+tunnel+nagle'
  | 'proxy+h1+intercept+naive'
  | 'proxy+h1+intercept+naive+nagle';

/**
 * The settings a cell stands for. `intercept`/`nagle` are false for direct cells.
 * Via cells: `proxy: true`, `via` = the external proxy's name, and `intercept`/`nagle`
 * false because the lab does not control them (whether that proxy terminates TLS is
 * in `LabResult.via[].intercepts`, as observed by the probe).
 */
export interface CellSettings {
  proxy: boolean;
  http2: boolean;
  intercept: boolean;
  nagle: boolean;
  /**
   * The proxy relays as a naive proxy does (ProxyOptions `relay: 'naive'`: the response head
   * flushed alone, then each upstream chunk as its own write). Present (true) only on `+naive` cells.
   */
  naive?: boolean;
  /** Via cells: name of the external proxy (`LabConfig.via[].name`). Absent for Netlens and direct cells. */
  via?: string;
  /** Variant cells (`<cell>~<name>`): the variant whose rules the proxy applies. Absent otherwise. */
  variant?: string;
}

/**
 * An external HTTP proxy to load the page through, next to Netlens and direct
 * (Charles, mitmproxy, a corporate proxy…). It must accept `CONNECT` for https targets.
 */
export interface ViaProxy {
  /** Names the cells `via-<name>+h2` / `via-<name>+h1`: /^[a-z0-9][a-z0-9-]{0,31}$/. */
  name: string;
  /** `http://host:port`. */
  url: string;
}

/** What the lab found out about an external proxy before the runs (`LabResult.via`). */
export interface ViaProbe {
  name: string;
  url: string;
  /**
   * base64 SHA-256 of the SubjectPublicKeyInfo of the leaf certificate the proxy
   * presented for the target (trusted by the lab's throwaway Chrome profiles only).
   * Absent for http:// targets (nothing to trust).
   */
  leafSpkiHash?: string;
  /**
   * True when the proxy presented another certificate than the origin does
   * (it terminates TLS), false when it is the origin's (a blind tunnel); absent
   * when the lab could not reach the origin directly to compare, or for http:// targets.
   */
  intercepts?: boolean;
  /** Why its cells are not like Netlens cells (it is long-running and warm). */
  note: string;
  /**
   * The processes listening on its loopback port (Linux, the user's own processes; listener-pids.ts): their CPU
   * use is each via run's `cpu.proxy`, read as a Netlens proxy's is. Absent for a proxy on another host or not found.
   */
  pids?: number[];
}

/** What the lab loads: the built-in test site (started by the lab) or any URL. */
export type LabTarget =
  | {
      kind: 'site';
      /** Number of distinct images on the page. */
      images: number;
      /** Delay added to every response, ms (0 = none). */
      latencyMs: number;
      /** Delay added to every new TCP connection before its TLS handshake, ms. Default: latencyMs. */
      connectionLatencyMs?: number;
    }
  | {
      kind: 'url';
      url: string;
      /** A run whose browser HAR has fewer entries than this fails. Default 1. */
      expectedRequests?: number;
    };

export interface LabConfig {
  target: LabTarget;
  /**
   * Cells to run, in any order. Default: all 10. Via cells are valid only for
   * names in `via`; when `via` is given and no via cell is listed, both via cells
   * of every external proxy are added.
   */
  cells?: CellId[];
  /** External proxies to compare with (cells `via-<name>+h2|h1`). Default none. */
  via?: ViaProxy[];
  /**
   * Rules variants: each adds `<cell>~<name>` for every Netlens proxy cell run (not direct, not via),
   * in the same shuffled rounds, compared with its base cell in `effects` (dimension `variant`).
   */
  variants?: LabVariant[];
  /** Runs per cell (each run is a fresh browser, and a fresh proxy for proxy cells). Default 5. */
  runs?: number;
  /**
   * Baseline every cell is compared with. Default `'direct'`: the direct cell
   * with the same HTTP/2 setting. A cell is never compared with itself.
   */
  baseline?: 'direct' | CellId;
  /** Network idle: no request in flight for this long after `load` ends a run. Default 500 ms. */
  quietMs?: number;
  /** Give up on one page load after this long. Default 60 s. */
  timeoutMs?: number;
  /** Significance level for the Mann-Whitney U test. Default 0.05. */
  alpha?: number;
  /** Seed of the shuffled cell order (recorded, so a run order can be repeated). Default: random. */
  seed?: number;
  /** Directory for results.json and the HARs; nothing is written when absent. */
  outDir?: string;
  /** Netlens data directory (CA). Default: defaultDataDir(). */
  dataDir?: string;
  /** Chrome/Chromium executable. Default: findChrome(). */
  chromePath?: string;
  /**
   * Extra CA certificates (PEM contents) that sign an https `--url` origin:
   * the proxy cells verify upstream with them, and the direct cells trust the
   * key the origin presented once it verified (see origin-trust.ts). Not
   * written to results.json (only their count).
   */
  upstreamCA?: string[];
  /** Do not verify the origin's certificate (testing only): proxy cells accept any, direct cells trust the key presented. */
  insecure?: boolean;
  /**
   * Run every cell's browser at this lower CPU priority (nice 1–19; browser/priority.ts), so that on a machine
   * with few cores the proxy and the test site are not queued behind it. Default 10 (limits.ts); 0: the normal priority.
   */
  browserNice?: number;
}

/** Metrics measured per run; the same names key `CellResult.stats` and budget files. */
export type MetricName = 'loadMs' | 'onLoadMs' | 'ttfbMeanMs' | 'ttfbMedianMs';
export const METRICS: readonly MetricName[] = ['loadMs', 'onLoadMs', 'ttfbMeanMs', 'ttfbMedianMs'];

/** One page load in one cell. */
export interface RunMeasurement {
  cell: CellId;
  /** 0-based round (every cell runs once per round, in a shuffled order). */
  round: number;
  /** 0-based position of this run in the whole lab. */
  sequence: number;
  startedAt: string;
  ok: boolean;
  /** Why the run failed (then the metrics are absent). */
  error?: { code: string; message: string };
  /** First request start → last response end, from the browser's monotonic clock. */
  loadMs?: number;
  /** The page's `load` event, relative to the first request (HAR `pageTimings.onLoad`). */
  onLoadMs?: number;
  /** Mean and median of HAR `timings.wait` (time to first byte after the request was sent). */
  ttfbMeanMs?: number;
  ttfbMedianMs?: number;
  /** Requests in the browser HAR. */
  requests?: number;
  /** Distinct connections the browser used (HAR `connection`). */
  connections?: number;
  /** Bytes on the wire as the browser counted them (HAR `_transferSize`). */
  bytes?: number;
  /** Responses per protocol the browser saw, e.g. `{ h2: 54 }` or `{ "http/1.1": 54 }`. */
  protocols?: Record<string, number>;
  /** Proxy cells: what the proxy saw. */
  proxy?: {
    exchanges: number;
    errors: number;
    /** Distinct upstream connections (proxy → origin). */
    upstreamConnections: number;
    /** Mean upstream `timings.wait`, ms (intercepted exchanges only). */
    upstreamWaitMeanMs?: number;
    /** Upstream protocols seen, e.g. `{ h2: 54 }`. */
    protocols: Record<string, number>;
    /** Nagle/delayed-ACK stalls the socket timeline flagged in the run (timeline/stalls.ts); absent when it was off. */
    stalls?: number;
    /**
     * Wall-clock time during which at least one of the proxy's connections was stalled, ms: the union of the
     * stalls' intervals, overlaps merged (stalls on parallel connections count once). Files written before it
     * have `stallMs` instead, the stall times summed over connections, which overstates the time lost.
     */
    stallWallMs?: number;
  };
  /**
   * Event-loop delay during the run of the proxy's own process (proxy cells)
   * or of the lab's process (direct cells): when this is tens of ms, the
   * process was starved of CPU and the cell says more about the machine than
   * about the proxy.
   */
  eventLoopDelayMs?: { p50: number; p99: number; max: number };
  /**
   * CPU used during the page load (navigation to network quiet) by the browser's processes, the
   * lab's proxy process (proxy cells) or the external proxy's processes when they run on this machine
   * (via cells, `ViaProbe.pids`), and the test site's (lab/cpu-use.ts). Linux only; absent elsewhere.
   */
  cpu?: RunCpu;
  /** HAR files, relative to the lab's outDir. */
  browserHar?: string;
  proxyHar?: string;
  /** Proxy cells with HARs kept: the browser HAR matched with the proxy HAR (lab/alignment.ts). */
  alignment?: RunAlignment;
}

/** Where a request's browser time went, ms (har/align.ts `Breakdown`; docs/timings.md, "Browser and proxy side by side"). */
export type AlignmentBreakdown = Record<'queue' | 'clientLeg' | 'proxy' | 'upstream' | 'back', number>;

/** What one run's alignment found (the unmatched entries themselves are in the proxy HAR's `log._alignment`). */
export interface RunAlignment {
  matched: number;
  browserEntries: number;
  proxyEntries: number;
  unmatchedBrowser: number;
  unmatchedProxy: number;
  /** Proxy clock − browser clock, ms (har/align.ts `estimateOffset`). */
  offsetMs: number;
  /** Per-part median over the run's matched requests, ms. */
  medianBreakdown?: AlignmentBreakdown;
}

/** Per cell: over the successful runs that were aligned, the per-part median of their median breakdowns, ms. */
export interface CellBreakdown {
  runs: number;
  median: AlignmentBreakdown;
  /** Matched requests over browser requests, summed over those runs. */
  matched: number;
  browserEntries: number;
}

/** Descriptive statistics of one metric over a cell's successful runs. */
export interface MetricStats {
  n: number;
  median: number;
  p95: number;
  min: number;
  max: number;
  mean: number;
  /** Interquartile range (p75 − p25). */
  iqr: number;
  /** Coefficient of variation: sample standard deviation / mean (0..). */
  cv: number;
}

/** A cell compared with its baseline on one metric. */
export interface Comparison {
  baseline: CellId;
  metric: MetricName;
  /** This cell's median / the baseline's median. */
  ratio: number;
  /** Mann-Whitney U of this cell against the baseline. */
  u: number;
  /** Two-sided p-value (exact for small samples without ties, else normal approximation). */
  p: number;
  /** Which computation gave `p`. */
  method: 'exact' | 'normal';
  /** Cliff's delta in [-1, 1]: > 0 means this cell's values tend to be larger (slower). */
  cliffsDelta: number;
  /** Romano et al. thresholds: |d| < 0.147 negligible, < 0.33 small, < 0.474 medium, else large. */
  magnitude: 'negligible' | 'small' | 'medium' | 'large';
  /** p < alpha. */
  significant: boolean;
}

export interface CellResult {
  id: CellId;
  settings: CellSettings;
  runs: RunMeasurement[];
  /** Per metric, over successful runs; absent when no run succeeded. */
  stats: Partial<Record<MetricName, MetricStats>>;
  /** Against the baseline cell, per metric; absent for the baseline itself. */
  comparisons: Partial<Record<MetricName, Comparison>>;
  /** This cell serves as a baseline and its loadMs CV is above 10%: its comparisons are shaky. */
  noisyBaseline: boolean;
  /**
   * This cell's loadMs CV is above 10% (`NOISY_CV`), baseline or not: its median moves a lot from
   * run to run. Absent in results.json files written before it was added (read as false).
   */
  noisy?: boolean;
  /** Index in `runs` of the successful run whose loadMs is closest to the median (for waterfalls); absent when none succeeded. */
  representativeRun?: number;
  /**
   * Nagle/delayed-ACK stalls on the proxy's sockets (`RunMeasurement.proxy.stalls`), over the
   * successful runs that counted them: median per run, the fewest and most in one run, and the
   * median wall-clock stalled time per run (`stallWallMs`, ms; absent when no run had it: files
   * written before it have `medianMs`, a median of summed stall times). Absent for direct and via
   * cells and when no run counted them.
   */
  stalls?: { runs: number; median: number; min: number; max: number; medianWallMs?: number };
  /** Where the browser's time went, per-part median over the aligned runs (lab/alignment.ts); absent without aligned runs. */
  breakdown?: CellBreakdown;
  /** Per process, the median of each field over the successful runs that measured it (`RunMeasurement.cpu`); absent when none did. */
  cpu?: RunCpu;
}

/** What one process (all its threads) or process tree used between two moments, ms (lab/cpu-use.ts). */
export interface CpuUse {
  cpuMs: number;
  /** Runnable but waiting in a run queue for a CPU: time the machine, not the code, cost. */
  waitMs: number;
  /** The process's main thread (a Node process's event loop); absent for the browser's tree. */
  mainThreadCpuMs?: number;
  mainThreadWaitMs?: number;
}

export interface RunCpu {
  browser?: CpuUse;
  proxy?: CpuUse;
  site?: CpuUse;
}

export interface MachineInfo {
  platform: string;
  arch: string;
  release: string;
  cpus: number;
  cpuModel: string;
  totalMemoryMB: number;
  loadAverage: number[];
  node: string;
  browser: { path: string; version: string };
}

export interface LabResult {
  schemaVersion: typeof LAB_SCHEMA_VERSION;
  tool: { name: 'netlens'; version: string };
  /** The config with every default filled in (seed included). */
  config: Required<Omit<LabConfig, 'outDir' | 'chromePath' | 'via' | 'variants' | 'upstreamCA' | 'insecure' | 'browserNice'>> & {
    outDir?: string;
    chromePath?: string;
    via?: ViaProxy[];
    /** The variants run: name, rules file and the rules themselves (absent when none). */
    variants?: LabVariant[];
    /** How many --upstream-ca files were trusted (the PEMs themselves stay out of results.json). */
    upstreamCAs?: number;
    insecure?: boolean;
    /** The browsers' lower CPU priority (absent: the normal one; results written before 2026-11-27 ran at it unless told). */
    browserNice?: number;
    /** SPKI hash of the https origin's leaf key that the direct cells' browsers trusted (with --upstream-ca or --insecure). */
    originSpkiHash?: string;
  };
  /** URL actually loaded (the test site's address for `kind: 'site'`). */
  url: string;
  /** Requests a complete page load makes (shorter browser HARs are failed runs). */
  expectedRequests: number;
  machine: MachineInfo;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** True when the run was cancelled; the results hold what finished. */
  aborted: boolean;
  /** Cells in config order. */
  cells: CellResult[];
  /** The external proxies of the via cells, as probed at lab start (absent when there were none). */
  via?: ViaProbe[];
  /**
   * Each dimension's effect on load time: pairs of cells that differ in exactly
   * one setting (e.g. `proxy+h1+intercept+nagle` vs `proxy+h1+intercept`), both run.
   */
  effects: Effect[];
}

/** The dimensions of the matrix. */
export type Dimension = 'proxy' | 'http2' | 'intercept' | 'nagle' | 'naive' | 'variant';

/** One setting switched on, all else equal: `cell` (setting on) compared with `versus` (setting off). */
export interface Effect {
  dimension: Dimension;
  /** The cell with the setting on (for http2: the h2 cell). */
  cell: CellId;
  /** The same cell with the setting off. */
  versus: CellId;
  /** `comparison.ratio` < 1: the setting makes loads faster. */
  comparison: Comparison;
}

/** Progress events while a lab runs (for a progress bar or the UI). */
export type LabProgress =
  | { type: 'start'; total: number; cells: CellId[]; url: string; expectedRequests: number }
  /** Before the first run: the proxy process warmed up with unmeasured loads, one fresh proxy per setting (warm-up.ts). */
  | { type: 'warm-up'; completed: number; total: number; settings: number }
  | { type: 'run-start'; completed: number; total: number; cell: CellId; round: number }
  | { type: 'run-end'; completed: number; total: number; run: RunMeasurement }
  | { type: 'done'; completed: number; total: number; aborted: boolean };

/** Per-cell limits for CI (`--budget FILE`): e.g. `{"proxy+h2+intercept": {"loadMs": {"median": 1500}}}`. */
export type Budget = Partial<Record<CellId, Partial<Record<MetricName, Partial<Record<'median' | 'p95' | 'max' | 'mean', number>>>>>>;

/** One reason a CI check failed. */
export interface CheckFailure {
  cell: CellId;
  metric: MetricName;
  message: string;
}

/** One past lab run in `<data>/lab/<runId>/`, as the history lists it. */
export type LabHistoryEntry =
  | {
      runId: string;
      state: 'ok';
      startedAt: string;
      /** Human-readable target, e.g. `test site, 20 images, 20 ms` or the URL. */
      target: string;
      /** Runs with the same key loaded the same thing and can be compared cell by cell. */
      targetKey: string;
      cells: CellId[];
      runs: number;
      aborted: boolean;
      /** The significant verdicts (load time and TTFB), at most a few, e.g. `proxy+h2+intercept: TTFB slower than direct+h2 (large)`. */
      headlines: string[];
      /** Cells whose load-time CV is over the noise threshold. */
      noisyCells: CellId[];
    }
  | {
      runId: string;
      /** results.json is missing, unreadable, truncated or not a lab result: `reason` says which. */
      state: 'damaged';
      reason: string;
      /** The directory's modification time (ISO), to sort and date it. */
      modifiedAt?: string;
    };

/** Two runs of the same target compared cell by cell: `b` against `a` (ratio = b's median / a's). */
export interface LabRunComparison {
  a: { runId: string; startedAt: string; runs: number };
  b: { runId: string; startedAt: string; runs: number };
  target: string;
  cells: Array<{
    cell: CellId;
    /** Per metric: both medians and the comparison of b's runs with a's (absent when either has no successful run). */
    metrics: Array<{ metric: MetricName; a?: number; b?: number; comparison?: Comparison }>;
  }>;
  /** Cells run in only one of the two. */
  onlyA: CellId[];
  onlyB: CellId[];
}
