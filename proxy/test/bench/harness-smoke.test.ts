/**
 * Smoke test of the benchmark harness (not a performance test): a one-second,
 * one-round run of the plain-HTTP scenario with Netlens only must start its
 * child processes, measure, stop them, and write a report with a table and
 * the socket timeline's cost (Netlens with the timeline on vs off).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** Runs a bench script under tsx (killed past 90 s); its exit code and stdout. */
function benchScript(file: string, args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', file, ...args], { cwd: ROOT, timeout: 90_000, killSignal: 'SIGKILL' }, (err, stdout) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout }),
    );
  });
}

/** bench/lab-load.ts at its smallest: a page of 4 images, no added latency, no quiet after a load. */
const LAB_LOAD_SMALL = ['--images', '4', '--latency', '0', '--quiet', '0'];

describe('npm run bench harness', () => {
  it('produces the plain-HTTP table and a report', async () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-bench-smoke-')), 'benchmarks.md');
    const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(
        process.execPath,
        [
          '--import',
          'tsx',
          'bench/run.ts',
          '--quick',
          '--duration',
          '1',
          '--rounds',
          '1',
          '--only',
          'plain',
          '--peers',
          'none',
          '--out',
          out,
        ],
        { cwd: ROOT, timeout: 90_000, killSignal: 'SIGKILL' },
        (err, stdout) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout }),
      );
    });
    expect(code, stdout).toBe(0);
    expect(stdout).toMatch(/\| GET small JSON +\| 64 +\| netlens +\|/);
    // The socket timeline's cost: the same Netlens with it off, measured next to it.
    expect(stdout).toMatch(/\| GET small JSON +\| 64 +\| netlens \(timeline off\) +\|/);
    expect(stdout).toMatch(/timeline cost, plain GET small JSON c=64: proxy CPU\/req on \d+ µs, off \d+ µs: [+-]\d+\.\d% \(goal ≤ 10%\)/);
    const report = fs.readFileSync(out, 'utf8');
    expect(report).toContain('## Plain HTTP forward proxying');
    expect(report).toContain('## Where Netlens stands against the targets');
    expect(report).toContain('## What the socket timeline costs');
    fs.rmSync(path.dirname(out), { recursive: true, force: true });
  }, 100_000);

  it('bench/h2-paired.ts keeps a bundle with --save, then measures it against the floor in alternating windows', async () => {
    const pairedRun = (args: string[]) => benchScript('bench/h2-paired.ts', args);
    const name = `smoke-${process.pid}`;
    const saved = path.join(ROOT, 'dist', 'bench', `netlens-peer-saved-${name}.mjs`);
    try {
      const save = await pairedRun(['--save', name]);
      expect(save.code, save.stdout).toBe(0);
      expect(save.stdout).toContain(`saved as saved:${name}`);
      expect(fs.existsSync(saved)).toBe(true);
      const { code, stdout } = await pairedRun(['--rounds', '2', '--seconds', '1', 'floor', `saved:${name}`]);
      expect(code, stdout).toBe(0);
      expect(stdout).toMatch(/round 2\/2: CPU\/request \d+ vs \d+ µs/);
      expect(stdout).toMatch(/proxy CPU per request B\/A: median \d+\.\d{3} \(rounds \d+\.\d{3}–\d+\.\d{3}\)/);
      expect(stdout).toMatch(/median request latency in a burst B\/A: median \d+\.\d{3}/);
    } finally {
      fs.rmSync(saved, { force: true });
    }
  }, 120_000);

  it("bench/h2-paired.ts measures recording on HTTP/2 in one process, its recorder's own time summed", async () => {
    const { code, stdout } = await benchScript('bench/h2-paired.ts', ['--rounds', '2', '--seconds', '1', 'recorder-off', 'recorder-timed']);
    expect(code, stdout).toBe(0);
    expect(stdout).toContain('A = recorder-off, B = recorder-timed, 2 rounds');
    expect(stdout).toMatch(/round 2\/2: CPU\/request \d+ vs \d+ µs/);
    // The timed state recorded: its time is summed over exchanges it saw (the warm-up's and its windows').
    const timed = /recorder's own time in situ .*: (\d+\.\d+) µs per exchange over (\d+) exchanges/.exec(stdout);
    expect(timed, stdout).not.toBeNull();
    expect(Number(timed![1])).toBeGreaterThan(0);
    expect(Number(timed![2])).toBeGreaterThan(0);
  }, 120_000);

  it('bench/https-paired.ts measures recording on vs off in one process, and two builds in two processes a side', async () => {
    const pairedRun = (args: string[]) => benchScript('bench/https-paired.ts', args);
    const raw = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-smoke-raw-')), 'windows.json');
    for (const subjects of [
      ['recorder-off', 'recorder-on'],
      ['recording-off', 'netlens'],
      ['events-nobodies', 'events-only'],
    ]) {
      const { code, stdout } = await pairedRun(['--rounds', '2', '--window', '200', '--concurrency', '2', '--raw', raw, ...subjects]);
      expect(code, stdout).toBe(0);
      expect(stdout).toContain(`A = ${subjects[0]}, B = ${subjects[1]}`);
      expect(stdout).toMatch(/proxy CPU per request B\/A: median \d+\.\d{3} \(rounds \d+\.\d{3}–\d+\.\d{3}\), sums \d+\.\d{3}/);
      expect(stdout).toMatch(/req\/s B\/A: median \d+\.\d{3}/);
      expect(stdout).toMatch(/A: \d+\.\d µs per request, B: \d+\.\d µs/);
      // Every window: two rounds of an A and a B, each with requests counted and CPU read.
      const windows = JSON.parse(fs.readFileSync(raw, 'utf8')) as { requests: number; cpuNs: number }[][];
      expect(windows.length).toBe(2);
      for (const w of windows.flat()) expect(w.requests > 0 && w.cpuNs > 0).toBe(true);
    }
    fs.rmSync(path.dirname(raw), { recursive: true, force: true });
    expect(fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('netlens-https-paired-'))).toEqual([]);
  }, 120_000);

  it("bench/https-paired.ts --page measures Netlens against the node:https floor on the lab's HTTP/1.1 page shape", async () => {
    const raw = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-smoke-raw-')), 'windows.json');
    const args = ['--page', '--processes', '1', '--rounds', '2', '--window', '200', '--concurrency', '2', '--raw', raw, 'floor', 'netlens'];
    const { code, stdout } = await benchScript('bench/https-paired.ts', args);
    expect(code, stdout).toBe(0);
    expect(stdout).toContain('the page shape: A = floor, B = netlens');
    expect(stdout).toMatch(/proxy CPU per request B\/A: median \d+\.\d{3}/);
    // Both sides answered every request of the test site's images (errors would leave a round out).
    const windows = JSON.parse(fs.readFileSync(raw, 'utf8')) as { requests: number; errors: number; cpuNs: number }[][];
    expect(windows.length).toBe(2);
    for (const w of windows.flat()) expect(w.requests > 0 && w.errors === 0 && w.cpuNs > 0).toBe(true);
    fs.rmSync(path.dirname(raw), { recursive: true, force: true });
    expect(fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('netlens-https-paired-'))).toEqual([]);
  }, 120_000);

  it("bench/lab-load.ts measures the lab's page load without a browser: a fresh Netlens per load against the floor", async () => {
    const args = ['--rounds', '2', ...LAB_LOAD_SMALL, '--competitors', '1', 'lab', 'no-journal', 'no-timeline', 'bare', 'floor'];
    const { code, stdout } = await benchScript('bench/lab-load.ts', args);
    expect(code, stdout).toBe(0);
    expect(stdout).toContain('HTTP/1.1, 2 rounds, 4 images, 0 ms latency, 6 tunnels a load, 0 ms quiet, 1 competitors');
    // Each subject's row: main-thread and process CPU per load and the load's time, each with its ratio to the first.
    for (const s of ['lab', 'no-journal', 'no-timeline', 'bare', 'floor']) {
      const row = new RegExp(`^${s} +(\\d+\\.\\d) \\((\\d+\\.\\d\\d)×\\) +(\\d+\\.\\d) \\((\\d+\\.\\d\\d)×\\) +(\\d+\\.\\d) \\(`, 'm').exec(
        stdout,
      );
      expect(row, `${s} in ${stdout}`).not.toBeNull();
      expect(Number(row![1]) > 0 && Number(row![3]) >= Number(row![1]) * 0.9 && Number(row![5]) > 0).toBe(true);
    }
    expect(stdout).toMatch(/^lab +\d+\.\d \(1\.00×\)/m);
    expect(fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('netlens-lab-load-'))).toEqual([]);
    // The competitor is gone with the script (killed by PID), not left sweeping memory.
    const sweepers = fs.readdirSync('/proc').filter((pid) => {
      try {
        return /^\d+$/.test(pid) && fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('new Uint8Array(64 << 20)');
      } catch {
        return false;
      }
    });
    expect(sweepers).toEqual([]);
  }, 120_000);

  it('bench/lab-load.ts --h2 --paced loads the page over one HTTP/2 tunnel a load, through Netlens and the floor', async () => {
    const { code, stdout } = await benchScript('bench/lab-load.ts', [
      '--h2',
      '--paced',
      '--rounds',
      '1',
      ...LAB_LOAD_SMALL,
      'lab',
      'floor',
    ]);
    expect(code, stdout).toBe(0);
    expect(stdout).toContain('HTTP/2 paced, 1 rounds, 4 images, 0 ms latency, 1 tunnels a load');
    expect(stdout).toMatch(/^lab +\d+\.\d \(1\.00×\)/m);
    expect(stdout).toMatch(/^floor +\d+\.\d \(\d+\.\d\d×\)/m);
  }, 120_000);
});
