/**
 * Page load scenario: runs page-load-child.ts (the lab) in its own process,
 * bounded in time, and turns its result into a table.
 */
import { spawn } from 'node:child_process';
import { ROOT_DIR, tsArgs } from '../lib/child.js';
import { fmtRatio, mdTable } from '../lib/stats.js';

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
  const [cmd, args] = tsArgs('scenarios/page-load-child.ts', [dataDir, String(runs), String(images)]);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
    // Bounded: 6 cells × runs × at most 60 s per load, killed by PID past that.
    const timer = setTimeout(() => child.kill('SIGKILL'), 6 * runs * 60_000 + 60_000);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => d.toString().split('\n').filter((l) => l.startsWith('  page load')).forEach((l) => log(l)));
    child.once('exit', (code) => {
      clearTimeout(timer);
      const m = out.match(/^RESULT (.*)$/m);
      if (!m) return reject(new Error(`page load: lab exited with ${code} and no result`));
      resolve({ images, ...(JSON.parse(m[1]!) as Omit<PageResult, 'images'>) });
    });
  });
}

export function pageTable(r: PageResult): string {
  return mdTable(
    ['cell', 'runs ok', 'median load', 'median TTFB', '× direct (same protocol)', 'p (Mann-Whitney)'],
    r.cells.map((c) => [c.cell, `${c.ok}/${c.runs}`, `${Math.round(c.loadMs)} ms`, `${c.ttfbMs.toFixed(1)} ms`, fmtRatio(c.ratio), Number.isFinite(c.p) ? c.p.toFixed(3) : '–']),
  );
}
