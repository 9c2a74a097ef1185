/**
 * Page load scenario: `netlens lab` run from the CLI bundle (as users run it;
 * the lab's proxy and test site each in their own process), headless Chromium
 * from the lab's launcher, the lab's test site (N images, 10 ms added latency),
 * cells direct / blind tunnel / Netlens intercepting (recording, as the app
 * does), HTTP/1.1 and HTTP/2, a fresh browser and proxy per run. Bounded in time.
 */
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT_DIR } from '../lib/child.js';
import { fmtRatio, mdTable } from '../lib/stats.js';

const CELLS = ['direct+h1', 'proxy+h1+tunnel', 'proxy+h1+intercept', 'direct+h2', 'proxy+h2+tunnel', 'proxy+h2+intercept'];

export interface PageRow {
  cell: string;
  ok: number;
  runs: number;
  loadMs: number;
  ttfbMs: number;
  ratio: number;
  p: number;
}

export interface PageResult {
  browser: string;
  images: number;
  cells: PageRow[];
}

export function pageLoad(dataDir: string, runs: number, images: number, log: (s: string) => void): Promise<PageResult> {
  execFileSync(process.execPath, [path.join(ROOT_DIR, 'scripts', 'build-cli.mjs')], { cwd: ROOT_DIR, stdio: 'ignore' });
  const args = [path.join(ROOT_DIR, 'bin', 'netlens.js'), 'lab', '--images', String(images), '--latency', '10', '--cells', CELLS.join(','), '--runs', String(runs), '--data-dir', dataDir, '--json'];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
    // Bounded: 6 cells × runs × at most 60 s per load, killed by PID past that.
    const timer = setTimeout(() => child.kill('SIGKILL'), 6 * runs * 60_000 + 60_000);
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => {
      err = (err + d.toString()).slice(-4000);
      // Progress lines: "[####…] 3/30 proxy+h2+intercept 1234 ms"
      for (const m of d.toString().matchAll(/\] (\d+\/\d+) (\S+) (\d+ ms|failed[^\n]*)/g)) log(`  page load ${m[1]} ${m[2]}: ${m[3]}`);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      let result: LabJson;
      try {
        result = JSON.parse(out) as LabJson;
      } catch {
        return reject(new Error(`page load: netlens lab exited with ${code} and no result: ${err.trim().split('\n').slice(-3).join(' / ')}`));
      }
      resolve({
        images,
        browser: result.machine.browser.version,
        cells: result.cells.map((c) => ({
          cell: c.id,
          ok: c.runs.filter((r) => r.ok).length,
          runs: c.runs.length,
          loadMs: c.stats.loadMs?.median ?? NaN,
          ttfbMs: c.stats.ttfbMedianMs?.median ?? NaN,
          ratio: c.comparisons.loadMs?.ratio ?? (c.id.startsWith('direct') ? 1 : NaN),
          p: c.comparisons.loadMs?.p ?? NaN,
        })),
      });
    });
  });
}

/** The parts of the lab's results.json this scenario reads. */
interface LabJson {
  machine: { browser: { version: string } };
  cells: { id: string; runs: { ok: boolean }[]; stats: Record<string, { median: number } | undefined>; comparisons: Record<string, { ratio: number; p: number } | undefined> }[];
}

export function pageTable(r: PageResult): string {
  return mdTable(
    ['cell', 'runs ok', 'median load', 'median TTFB', '× direct (same protocol)', 'p (Mann-Whitney)'],
    r.cells.map((c) => [c.cell, `${c.ok}/${c.runs}`, `${Math.round(c.loadMs)} ms`, `${c.ttfbMs.toFixed(1)} ms`, fmtRatio(c.ratio), Number.isFinite(c.p) ? c.p.toFixed(3) : '–']),
  );
}
