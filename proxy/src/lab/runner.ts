/**
 * The lab runner: loads a page in headless Chrome again and again across the
 * matrix cells, interleaved in a shuffled order per round, and returns
 * measurements plus statistics (a `LabResult`).
 *
 * Every run is independent: a fresh browser with a fresh profile, and for proxy
 * cells a fresh proxy (no warm upstream pools carried over from another run or
 * cell). Cleanup (browser killed by PID, profile removed, proxy stopped) happens
 * in `finally`, so failures and cancellation leave nothing behind.
 */
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { capturePage } from '../browser/capture.js';
import { findChrome } from '../browser/find-chrome.js';
import { launchBrowser, type BrowserHandle } from '../browser/launch.js';
import { appVersion } from '../app-paths.js';
import { ErrorCodes, NetlensError, errorCodeOf } from '../errors.js';
import { exportJournal } from '../har/journal.js';
import type { Har } from '../har/types.js';
import { alignRunHars } from './alignment.js';
import { defaultDataDir } from '../options.js';
import { loadOrCreateCA, type CertificateAuthority } from '../tls/ca.js';
import { analyze, effects } from './analyze.js';
import { allCells, baselineProblem, cellSettings, defaultCells, isCellId, isViaCellId, unknownCellMessage, viaCells } from './cells.js';
import { LAB_ALPHA, LAB_DEFAULTS, LAB_LIMITS, limitProblem } from './limits.js';
import { browserMetrics, LOOP_RESOLUTION_MS, loopDelaySummary } from './measure.js';
import { startCpuWatch } from './cpu-use.js';
import { startProxyHost, type ProxyHost, type ProxyRun, type ProxyRunOptions } from './proxy-process.js';
import { schedule, type ScheduledRun } from './schedule.js';
import { startTestSiteProcess, type TestSiteProcess } from './site/site-process.js';
import {
  LAB_SCHEMA_VERSION,
  type CellId,
  type CellSettings,
  type LabConfig,
  type LabProgress,
  type LabResult,
  type MachineInfo,
  type RunMeasurement,
  type ViaProbe,
} from './types.js';
import { validateVia } from './via.js';
import { isLoopbackHost, listenerPids } from './listener-pids.js';
import { takesVariants, validateVariants, variantBaseDir, withVariantCells } from './variants.js';
import { probeOriginTrust } from './origin-trust.js';
import { probeOriginLeaf, probeViaProxy, type LeafCertificate } from './via-probe.js';
import { warmUpProxy } from './warm-up.js';

export interface RunLabOptions {
  /** Cancels the lab: the current run's browser and proxy are torn down; the result holds what finished (aborted: true). */
  signal?: AbortSignal;
  onProgress?: (progress: LabProgress) => void;
}

type ResolvedConfig = LabResult['config'];

export function resolveLabConfig(config: LabConfig): ResolvedConfig {
  const usage = (problem: string | undefined) => {
    if (problem) throw new NetlensError(ErrorCodes.USAGE, problem);
  };
  const runs = config.runs ?? LAB_DEFAULTS.runs;
  usage(limitProblem('runs', runs));
  if (config.quietMs !== undefined) usage(limitProblem('quietMs', config.quietMs, 'quiet time (ms)'));
  if (config.timeoutMs !== undefined) usage(limitProblem('timeoutMs', config.timeoutMs, 'page load timeout (ms)'));
  if (config.browserNice !== undefined) usage(limitProblem('browserNice', config.browserNice, "browser's nice value"));
  const browserNice = config.browserNice ?? LAB_LIMITS.browserNice.default;
  const via = validateVia(config.via ?? []);
  const viaNames = via.map((v) => v.name);
  const variants = validateVariants(config.variants ?? []);
  const unknown = (config.cells ?? []).filter((c) => !isCellId(c, viaNames));
  if (unknown.length === 1) throw new NetlensError(ErrorCodes.USAGE, unknownCellMessage(unknown[0], viaNames));
  if (unknown.length)
    throw new NetlensError(ErrorCodes.USAGE, `unknown cell(s) ${unknown.join(', ')}; valid: ${allCells(viaNames).join(', ')}`);
  const universe = allCells(viaNames);
  let cells: CellId[] = config.cells?.length ? universe.filter((c) => config.cells!.includes(c)) : defaultCells(viaNames);
  // External proxies given but none of their cells picked: the user surely wants them run.
  if (via.length && !cells.some(isViaCellId)) cells = [...cells, ...viaNames.flatMap(viaCells)];
  if (variants.length && !cells.some(takesVariants)) {
    usage(`variants apply to the Netlens proxy cells (proxy+…), and none is among the cells being run (${cells.join(', ')})`);
  }
  // Before the baseline check: a variant cell (`<cell>~<name>`) can be the baseline like any cell being run.
  cells = withVariantCells(cells, variants);
  // An explicit baseline must be run, or every comparison would be empty. The default
  // ('direct') compares the cells whose direct cell is run and leaves the others alone.
  if (config.baseline !== undefined) {
    const b = String(config.baseline);
    // A variant cell not run gets baselineProblem's message, which lists the cells that are (variant cells included).
    if (b !== 'direct' && !isCellId(b, viaNames) && !b.includes('~')) usage(unknownCellMessage(b, viaNames));
    usage(baselineProblem(cells, config.baseline));
  }
  if (config.target.kind === 'site') {
    usage(limitProblem('images', config.target.images, 'images'));
    usage(limitProblem('latencyMs', config.target.latencyMs, 'latency (ms)'));
    if (config.target.connectionLatencyMs !== undefined)
      usage(limitProblem('latencyMs', config.target.connectionLatencyMs, 'connection latency (ms)'));
  }
  if (config.target.kind === 'url') {
    const { expectedRequests } = config.target;
    if (expectedRequests !== undefined) usage(limitProblem('expectedRequests', expectedRequests, 'expected requests'));
    try {
      const u = new URL(config.target.url);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
    } catch {
      throw new NetlensError(ErrorCodes.USAGE, `"${config.target.url}" is not an http:// or https:// URL`);
    }
  }
  return {
    target: config.target,
    cells,
    runs,
    baseline: config.baseline ?? LAB_DEFAULTS.baseline,
    quietMs: config.quietMs ?? LAB_LIMITS.quietMs.default,
    timeoutMs: config.timeoutMs ?? LAB_LIMITS.timeoutMs.default,
    alpha: config.alpha ?? LAB_ALPHA.default,
    seed: config.seed ?? crypto.randomInt(2 ** 31),
    dataDir: config.dataDir ?? defaultDataDir(),
    ...(via.length ? { via } : {}),
    ...(variants.length ? { variants } : {}),
    ...(config.outDir ? { outDir: path.resolve(config.outDir) } : {}),
    ...(config.chromePath ? { chromePath: config.chromePath } : {}),
    ...(config.upstreamCA?.length ? { upstreamCAs: config.upstreamCA.length } : {}),
    ...(config.insecure ? { insecure: true } : {}),
    ...(browserNice ? { browserNice } : {}),
  };
}

/** The version the entry point set (app-paths.ts); 'unknown' in a process that set none. */
function toolVersion(): string {
  return appVersion() ?? 'unknown';
}

function browserVersion(chromePath: string): string {
  try {
    return execFileSync(chromePath, ['--version'], { timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return 'unknown';
  }
}

export function machineInfo(chromePath: string): MachineInfo {
  const cpus = os.cpus();
  return {
    platform: process.platform,
    arch: process.arch,
    release: os.release(),
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    totalMemoryMB: Math.round(os.totalmem() / 2 ** 20),
    loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
    node: process.version,
    browser: { path: chromePath, version: browserVersion(chromePath) },
  };
}

interface RunContext {
  config: ResolvedConfig;
  url: string;
  expectedRequests: number;
  chromePath: string;
  ca: CertificateAuthority;
  harDir?: string;
  signal?: AbortSignal;
  /** Via cells: external proxy name → its URL and the leaf key hash it presents for the target. */
  via: Map<string, { url: string; leafSpkiHash?: string; pids?: number[] }>;
  /** Extra CAs for the origin (proxy cells verify upstream with them), and --insecure. */
  upstreamCA: string[];
  insecure: boolean;
  /** Key of an https origin the user vouched for (--upstream-ca / --insecure): every cell's browser trusts it. */
  originSpkiHash?: string;
  /** The process hosting this lab's proxies, started on first use. */
  proxyHost(): Promise<ProxyHost>;
  /** The built-in test site's process (lab/cpu-use.ts reads its CPU time); absent for a --url target. */
  sitePid?: number;
}

const isAbort = (err: unknown) => (err as { code?: string })?.code === ErrorCodes.LAB_ABORTED || (err as Error)?.name === 'AbortError';

type RunOptionsProxy = ProxyRunOptions['proxy'];

/** The proxy options of a run of a Netlens proxy cell with these settings. */
function proxyRunSettings(ctx: RunContext, settings: CellSettings): RunOptionsProxy {
  return {
    port: 0,
    intercept: settings.intercept,
    http2: settings.http2,
    nagle: settings.nagle,
    ...(settings.naive ? { relay: 'naive' as const } : {}),
    dataDir: ctx.config.dataDir,
    // The test site's certificate comes from the Netlens CA; a --url origin's may come from the user's.
    upstreamCA: [ctx.ca.certPem, ...ctx.upstreamCA],
    insecureUpstream: ctx.insecure,
  };
}

/** One page load in one cell. Throws only when aborted; other failures give `ok: false`. */
async function runOne(ctx: RunContext, s: ScheduledRun): Promise<RunMeasurement> {
  const settings = cellSettings(s.cell);
  const base: RunMeasurement = { cell: s.cell, round: s.round, sequence: s.sequence, startedAt: new Date().toISOString(), ok: false };
  const stem = `${String(s.sequence).padStart(4, '0')}-${s.cell}`;
  let proxy: ProxyRun | undefined;
  let browser: BrowserHandle | undefined;
  let result: RunMeasurement;
  let proxyResult: Awaited<ReturnType<ProxyRun['stop']>> | undefined;
  let browserHar: Har | undefined;
  const journal = ctx.harDir ? path.join(ctx.harDir, `${stem}.proxy.journal`) : undefined;
  const loopDelay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  loopDelay.enable();
  try {
    const variant = settings.variant ? ctx.config.variants?.find((v) => v.name === settings.variant) : undefined;
    if (settings.variant && !variant) throw new NetlensError(ErrorCodes.INTERNAL, `no variant named ${settings.variant}`);
    if (settings.proxy && !settings.via) {
      // In the proxy host process, recording there: see proxy-process.ts.
      proxy = await (
        await ctx.proxyHost()
      ).startRun({
        proxy: proxyRunSettings(ctx, settings),
        ...(variant ? { rules: { file: variant.rules, baseDir: variantBaseDir(variant) } } : {}),
        journal: journal ? { file: journal, name: `lab ${s.cell} run ${s.round + 1}` } : undefined,
      });
    }
    // Via cells: no Netlens proxy; the external one, long-running (warm), stands in its place.
    const via = settings.via ? ctx.via.get(settings.via) : undefined;
    if (settings.via && !via) throw new NetlensError(ErrorCodes.INTERNAL, `no external proxy named ${settings.via}`);
    browser = await launchBrowser({
      chromePath: ctx.chromePath,
      headless: true,
      http2: settings.http2,
      ...(ctx.config.browserNice ? { niceness: ctx.config.browserNice } : {}),
      proxyUrl: via ? via.url : proxy?.url,
      trustSpkiHashes: [
        ...new Set([
          ctx.ca.leafSpkiHash,
          ...(via?.leafSpkiHash ? [via.leafSpkiHash] : []),
          // Direct and tunnel cells meet the origin's own certificate (intercepting cells see the Netlens leaf).
          ...(ctx.originSpkiHash ? [ctx.originSpkiHash] : []),
        ]),
      ],
      signal: ctx.signal,
    });
    // Proxy cells: the lab's proxy process; via cells: the external proxy's processes, when found on this machine.
    const proxyPids = proxy ? (await ctx.proxyHost()).pid : via?.pids;
    const cpuSince = startCpuWatch({ browser: browser.pid, proxy: proxyPids, site: ctx.sitePid });
    const capture = await capturePage(browser, {
      url: ctx.url,
      quietMs: ctx.config.quietMs,
      timeoutMs: ctx.config.timeoutMs,
      expectedRequests: ctx.expectedRequests,
      signal: ctx.signal,
    });
    const cpu = cpuSince();
    result = { ...base, ok: true, loadMs: capture.loadMs, ...browserMetrics(capture.har), ...(cpu ? { cpu } : {}) };
    browserHar = capture.har;
    if (ctx.harDir) {
      result.browserHar = `har/${stem}.browser.har`;
      await fs.promises.writeFile(path.join(ctx.harDir, `${stem}.browser.har`), JSON.stringify(capture.har));
    }
  } catch (err) {
    if (isAbort(err) || ctx.signal?.aborted) throw err;
    const e = err as { code?: string; message?: string };
    let message = e.message ?? String(err);
    // The usual cause: the external proxy verifies upstream certificates and does not know the Netlens CA that signs the test site's.
    // The page itself failing (a 5xx from the proxy, or a closed connection: Netlens, for one, never invents a 5xx) is the sign.
    if (settings.via && ctx.config.target.kind === 'site' && /answered 5\d\d| did not load: /.test(message)) {
      message += `. An external proxy that verifies upstream certificates must trust the test site's, issued by the Netlens CA ${ctx.ca.certPath} (mitmproxy: --set ssl_verify_upstream_trusted_ca=<that file>; Node-based proxies: NODE_EXTRA_CA_CERTS=<that file>)`;
    }
    result = { ...base, ok: false, error: { code: errorCodeOf(err), message } };
  } finally {
    await browser?.close();
    proxyResult = await proxy?.stop().catch(() => undefined);
  }
  loopDelay.disable();
  // Proxy cells: the proxy's own process, where starvation would show in its overhead.
  const lag = proxyResult ? proxyResult.eventLoopDelayMs : loopDelaySummary(loopDelay);
  if (lag) result.eventLoopDelayMs = lag;
  if (proxyResult) result.proxy = proxyResult.metrics;
  if (proxyResult && journal && ctx.harDir) {
    try {
      await exportJournal(journal, path.join(ctx.harDir, `${stem}.proxy.har`));
      result.proxyHar = `har/${stem}.proxy.har`;
      // Browser and proxy side by side: `_browser` on the proxy HAR's entries, a summary on the run.
      if (browserHar) result.alignment = await alignRunHars(browserHar, path.join(ctx.harDir, `${stem}.proxy.har`));
    } catch {
      // A missing proxy HAR must not lose the run's browser measurements.
    } finally {
      await fs.promises.rm(journal, { force: true });
    }
  }
  return result;
}

/** Warms the proxy process with every distinct Netlens proxy setting among the cells (warm-up.ts). */
async function warmUpProxyCells(ctx: RunContext, site: TestSiteProcess, announce: (settings: number) => void): Promise<void> {
  const settings = new Map<string, RunOptionsProxy>();
  for (const c of ctx.config.cells) {
    const s = cellSettings(c);
    if (!s.proxy || s.via) continue;
    // Nagle is a socket option, not other code: the warm-up leaves it off (it would only slow the warm-up down).
    const key = `${s.http2} ${s.intercept} ${Boolean(s.naive)}`;
    if (!settings.has(key)) settings.set(key, proxyRunSettings(ctx, { ...s, nagle: false }));
  }
  if (!settings.size) return;
  announce(settings.size);
  await warmUpProxy(await ctx.proxyHost(), {
    siteUrl: site.url,
    images: site.images,
    ca: [ctx.ca.certPem],
    settings: [...settings.values()],
    signal: ctx.signal,
  });
}

export const VIA_NOTE =
  'long-running proxy started outside the lab: warm across runs (its processes, pools and caches are not restarted), unlike Netlens cells, which get a fresh proxy per run';

/**
 * Probes every external proxy a via cell uses, once, before any run (see
 * via-probe.ts). http:// targets need no certificate, so nothing is probed.
 */
async function probeVia(config: ResolvedConfig, url: string): Promise<ViaProbe[]> {
  const used = new Set(config.cells.map((c) => cellSettings(c).via).filter(Boolean));
  const via = (config.via ?? []).filter((v) => used.has(v.name));
  const target = new URL(url);
  if (!via.length) return [];
  // Its CPU per load is read like a Netlens proxy's when it runs here (listener-pids.ts).
  const local = (v: { url: string }) => {
    const u = new URL(v.url);
    const pids = isLoopbackHost(u.hostname) ? listenerPids(Number(u.port || 80)) : [];
    return pids.length ? { pids } : {};
  };
  if (target.protocol !== 'https:') return via.map((v) => ({ ...v, note: VIA_NOTE, ...local(v) }));
  const leaves: LeafCertificate[] = [];
  for (const v of via) leaves.push(await probeViaProxy(v, target));
  const origin = await probeOriginLeaf(target);
  return via.map((v, i) => ({
    ...v,
    leafSpkiHash: leaves[i].spkiHash,
    ...(origin ? { intercepts: leaves[i].fingerprint256 !== origin.fingerprint256 } : {}),
    note: VIA_NOTE,
    ...local(v),
  }));
}

/**
 * Runs the lab. Resolves with the results (also when cancelled: `aborted: true`,
 * holding the runs that finished). Rejects only when the lab cannot start at
 * all (no Chrome, bad config, test site cannot listen).
 */
export async function runLab(config: LabConfig, options: RunLabOptions = {}): Promise<LabResult> {
  const resolved = resolveLabConfig(config);
  const startedAt = new Date();
  const t0 = performance.now();
  const ca = loadOrCreateCA(resolved.dataDir);
  const upstreamCA = config.upstreamCA ?? [];
  const insecure = Boolean(config.insecure);
  let originSpkiHash: string | undefined;
  const target = resolved.target.kind === 'url' ? new URL(resolved.target.url) : undefined;
  // An https --url origin must verify (or be vouched for with --insecure) before anything starts: NL_UPSTREAM_TLS says what to do.
  // Via cells alone skip it: there the external proxy, not the lab, decides what it trusts upstream.
  if (target?.protocol === 'https:' && resolved.cells.some((c) => !isViaCellId(c))) {
    const leaf = await probeOriginTrust(target, { upstreamCA, insecure, netlensCA: ca.certPem });
    // Chrome verifies publicly trusted origins itself; only keys the user vouched for are added to its profile.
    if (leaf && (upstreamCA.length || insecure)) originSpkiHash = resolved.originSpkiHash = leaf.spkiHash;
  }
  const chromePath = resolved.chromePath ?? findChrome();
  const machine = machineInfo(chromePath);
  let harDir: string | undefined;
  if (resolved.outDir) {
    harDir = path.join(resolved.outDir, 'har');
    fs.mkdirSync(harDir, { recursive: true });
  }

  let site: TestSiteProcess | undefined;
  let url: string;
  let expectedRequests: number;
  if (resolved.target.kind === 'site') {
    // Its own process: the origin must not share the proxy's event loop (see site-process.ts).
    site = await startTestSiteProcess({
      images: resolved.target.images,
      latencyMs: resolved.target.latencyMs,
      connectionLatencyMs: resolved.target.connectionLatencyMs,
      dataDir: resolved.dataDir,
    });
    url = site.url;
    expectedRequests = site.expectedRequests;
  } else {
    url = resolved.target.url;
    expectedRequests = resolved.target.expectedRequests ?? 1;
  }

  let probes: ViaProbe[];
  try {
    probes = await probeVia(resolved, url);
  } catch (err) {
    await site?.close();
    throw err;
  }

  const plan = schedule(resolved.cells, resolved.runs, resolved.seed);
  const runs: RunMeasurement[] = [];
  const emit = (p: LabProgress) => {
    try {
      options.onProgress?.(p);
    } catch {
      // A broken progress listener must not break the lab.
    }
  };
  let host: Promise<ProxyHost> | undefined;
  const ctx: RunContext = {
    config: resolved,
    url,
    expectedRequests,
    chromePath,
    ca,
    harDir,
    signal: options.signal,
    upstreamCA,
    insecure,
    originSpkiHash,
    proxyHost: () => (host ??= startProxyHost()),
    ...(site ? { sitePid: site.pid } : {}),
    via: new Map(probes.map((p) => [p.name, { url: p.url, leafSpkiHash: p.leafSpkiHash, pids: p.pids }])),
  };
  emit({ type: 'start', total: plan.length, cells: resolved.cells, url, expectedRequests });
  let aborted = false;
  try {
    // The proxy process's code warmed up before the first measured run, on the built-in site only (warm-up.ts).
    if (site) await warmUpProxyCells(ctx, site, (settings) => emit({ type: 'warm-up', completed: 0, total: plan.length, settings }));
    for (const s of plan) {
      if (options.signal?.aborted) {
        aborted = true;
        break;
      }
      emit({ type: 'run-start', completed: runs.length, total: plan.length, cell: s.cell, round: s.round });
      try {
        runs.push(await runOne(ctx, s));
      } catch (err) {
        if (isAbort(err) || options.signal?.aborted) {
          aborted = true;
          break;
        }
        throw err;
      }
      emit({ type: 'run-end', completed: runs.length, total: plan.length, run: runs[runs.length - 1] });
    }
  } finally {
    await site?.close();
    await host?.then((h) => h.close()).catch(() => undefined);
  }

  const cells = analyze(resolved.cells, runs, { baseline: resolved.baseline, alpha: resolved.alpha });
  const result: LabResult = {
    schemaVersion: LAB_SCHEMA_VERSION,
    tool: { name: 'netlens', version: toolVersion() },
    config: resolved,
    url,
    expectedRequests,
    machine,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    durationMs: performance.now() - t0,
    aborted,
    cells,
    ...(probes.length ? { via: probes } : {}),
    effects: effects(cells, resolved.alpha),
  };
  if (resolved.outDir) {
    fs.writeFileSync(path.join(resolved.outDir, 'results.json'), JSON.stringify(result, null, 2) + '\n');
  }
  emit({ type: 'done', completed: runs.length, total: plan.length, aborted });
  return result;
}
