/**
 * Page load scenario: `netlens lab` run from the CLI bundle (as users run it;
 * the lab's proxy and test site each in their own process), headless Chromium
 * from the lab's launcher, the lab's test site (N images, 20 ms added latency: issue 17's page shape),
 * HTTP/1.1 and HTTP/2, a fresh browser per run. Cells: direct, Netlens as a
 * blind tunnel and intercepting (recording, as the app does; a fresh proxy per
 * run), and the peers given as external proxies (`--via`: mockttp, mitmproxy),
 * which are long-running and so warm. Bounded in time; the lab is killed by PID.
 */
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT_DIR } from '../lib/child.js';
import { fmtRatio, mdTable } from '../lib/stats.js';
import { priorityText } from '../../proxy/src/lab/cell-detail.js';
import type { RunCpu } from '../../proxy/src/lab/types.js';

const NETLENS_CELLS = ['direct+h1', 'proxy+h1+tunnel', 'proxy+h1+intercept', 'direct+h2', 'proxy+h2+tunnel', 'proxy+h2+intercept'];
/** Added latency per response and per new connection on the test site (the page shape issue 17's goals name). */
export const PAGE_LATENCY_MS = 20;
/** "browser at nice 10" / "browser at normal priority": the `--browser-nice` a page's lab ran with. */
export function browserPriorityLabel(page: Pick<PageResult, 'browserNice'>): string {
  return `browser ${priorityText(page.browserNice)}`;
}
/** The lab's default per-load timeout, which bounds the whole lab below. */
const LOAD_TIMEOUT_MS = 60_000;

export interface PageRow {
  cell: string;
  ok: number;
  runs: number;
  loadMs: number;
  ttfbMs: number;
  ratio: number;
  p: number;
  /** Protocols the browser saw over the successful runs (from its HARs), e.g. "h2" or "http/1.1". */
  protocols: string;
  /**
   * Median per run (the lab's `cpu`, Linux): the proxy process's main thread on a core and queued for one. Netlens
   * cells, and the peers' via cells (the lab finds a peer's process by its port, lab/listener-pids.ts).
   */
  proxyCpuMs?: number;
  proxyWaitMs?: number;
  /** The browser's process tree, the same way. */
  browserCpuMs?: number;
  /** Each successful run's load time and median TTFB (for comparing two cells run by run, e.g. Netlens and the floor). */
  loads?: number[];
  ttfbs?: number[];
}

export interface PageResult {
  browser: string;
  images: number;
  cells: PageRow[];
  /** The lab's "interception on" effects: each intercepting cell's load time against its blind tunnel (Mann-Whitney U). */
  interception?: { cell: string; versus: string; ratio: number; p: number; significant: boolean }[];
  /** The peers loaded as external proxies, as the lab's probe saw them. */
  via: { name: string; intercepts?: boolean }[];
  /** `netlens lab --browser-nice`: the browsers ran at this lower CPU priority (absent: the normal one), as the lab's results say. */
  browserNice?: number;
}

/** An external proxy for `netlens lab --via NAME=URL`. */
export interface ViaPeer {
  name: string;
  url: string;
}

/** Builds the CLI bundle once, so the lab runs as shipped. */
export function buildCli(): void {
  execFileSync(process.execPath, [path.join(ROOT_DIR, 'scripts', 'build-cli.mjs')], { cwd: ROOT_DIR, stdio: 'ignore' });
}

export function pageLoad(
  dataDir: string,
  runs: number,
  images: number,
  via: ViaPeer[],
  log: (s: string) => void,
  /** `--browser-nice` for the lab; absent: the lab's default (lab/limits.ts). */
  browserNice?: number,
): Promise<PageResult> {
  // Each peer's h1 and h2 cells after Netlens's, in the order the table lists them.
  const cells = [...NETLENS_CELLS, ...via.flatMap((v) => [`via-${v.name}+h1`, `via-${v.name}+h2`])];
  const label = `${images} images${browserNice !== undefined ? `, --browser-nice ${browserNice}` : ''}`;
  const args = [
    path.join(ROOT_DIR, 'bin', 'netlens.js'),
    'lab',
    '--images',
    String(images),
    '--latency',
    String(PAGE_LATENCY_MS),
    '--cells',
    cells.join(','),
    '--runs',
    String(runs),
    '--data-dir',
    dataDir,
    '--json',
    '--timeout-ms',
    String(LOAD_TIMEOUT_MS),
    ...via.flatMap((v) => ['--via', `${v.name}=${v.url}`]),
    ...(browserNice !== undefined ? ['--browser-nice', String(browserNice)] : []),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
    // Bounded: every load at most LOAD_TIMEOUT_MS (plus browser start and teardown), killed by PID past that.
    const timer = setTimeout(
      () => {
        log(`  page load (${label}): over its time bound, killing the lab (pid ${child.pid})`);
        if (child.pid) process.kill(child.pid, 'SIGKILL');
      },
      cells.length * runs * (LOAD_TIMEOUT_MS + 10_000) + 60_000,
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => {
      err = (err + d.toString()).slice(-4000);
      // Progress lines: "[####…] 3/30 proxy+h2+intercept 1234 ms"
      for (const m of d.toString().matchAll(/\] (\d+\/\d+) (\S+) (\d+ ms|FAILED[^\n]*)/g))
        log(`  page load (${label}) ${m[1]} ${m[2]}: ${m[3]}`);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      let result: LabJson;
      try {
        result = JSON.parse(out) as LabJson;
      } catch {
        return reject(
          new Error(`page load (${label}): netlens lab exited with ${code} and no result: ${err.trim().split('\n').slice(-3).join(' / ')}`),
        );
      }
      resolve({
        images,
        ...(result.config?.browserNice ? { browserNice: result.config.browserNice } : {}),
        browser: result.machine.browser.version,
        via: (result.via ?? []).map((v) => ({ name: v.name, intercepts: v.intercepts })),
        interception: (result.effects ?? [])
          .filter((e) => e.dimension === 'intercept')
          .map((e) => ({
            cell: e.cell,
            versus: e.versus,
            ratio: e.comparison.ratio,
            p: e.comparison.p,
            significant: e.comparison.significant,
          })),
        cells: result.cells.map((c) => {
          const ok = c.runs.filter((r) => r.ok);
          return {
            cell: c.id,
            ok: ok.length,
            runs: c.runs.length,
            loadMs: c.stats.loadMs?.median ?? NaN,
            ttfbMs: c.stats.ttfbMedianMs?.median ?? NaN,
            ratio: c.comparisons.loadMs?.ratio ?? (c.id.startsWith('direct') ? 1 : NaN),
            p: c.comparisons.loadMs?.p ?? NaN,
            protocols: [...new Set(ok.flatMap((r) => Object.keys(r.protocols ?? {})))].join('/'),
            ...(c.cpu?.proxy?.mainThreadCpuMs !== undefined ? { proxyCpuMs: c.cpu.proxy.mainThreadCpuMs } : {}),
            ...(c.cpu?.proxy?.mainThreadWaitMs !== undefined ? { proxyWaitMs: c.cpu.proxy.mainThreadWaitMs } : {}),
            ...(c.cpu?.browser ? { browserCpuMs: c.cpu.browser.cpuMs } : {}),
            loads: ok.flatMap((r) => (r.loadMs === undefined ? [] : [r.loadMs])),
            ttfbs: ok.flatMap((r) => (r.ttfbMedianMs === undefined ? [] : [r.ttfbMedianMs])),
          };
        }),
      });
    });
  });
}

/** The parts of the lab's results.json this scenario reads. */
interface LabJson {
  machine: { browser: { version: string } };
  config?: { browserNice?: number };
  effects?: {
    dimension: string;
    cell: string;
    versus: string;
    comparison: { ratio: number; p: number; significant: boolean };
  }[];
  via?: { name: string; intercepts?: boolean }[];
  cells: {
    id: string;
    runs: { ok: boolean; protocols?: Record<string, number>; loadMs?: number; ttfbMedianMs?: number }[];
    stats: Record<string, { median: number } | undefined>;
    comparisons: Record<string, { ratio: number; p: number } | undefined>;
    cpu?: RunCpu;
  }[];
}

export function pageTable(r: PageResult): string {
  return mdTable(
    [
      'cell',
      'runs ok',
      'median load',
      'median TTFB',
      '× direct (same protocol)',
      'p (Mann-Whitney)',
      'browser saw',
      'proxy main thread: CPU / queued for a core',
      'browser CPU',
    ],
    r.cells.map((c) => [
      c.cell,
      `${c.ok}/${c.runs}`,
      Number.isFinite(c.loadMs) ? `${Math.round(c.loadMs)} ms` : '–',
      Number.isFinite(c.ttfbMs) ? `${c.ttfbMs.toFixed(1)} ms` : '–',
      fmtRatio(c.ratio),
      Number.isFinite(c.p) ? c.p.toFixed(3) : '–',
      c.protocols || '–',
      c.proxyCpuMs !== undefined && c.proxyWaitMs !== undefined ? `${Math.round(c.proxyCpuMs)} / ${Math.round(c.proxyWaitMs)} ms` : '–',
      c.browserCpuMs !== undefined ? `${Math.round(c.browserCpuMs)} ms` : '–',
    ]),
  );
}
