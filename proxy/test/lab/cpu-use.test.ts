/**
 * Who used the CPU during a page load (lab/cpu-use.ts): the scheduler's per-thread
 * accounting read from /proc, summed per process and per process tree, and the
 * per-cell medians and text the lab prints. The /proc readers run on Linux only.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cellCpu } from '../../src/lab/analyze.js';
import { cpuText } from '../../src/lab/cell-detail.js';
import { cpuUse, parseParentPid, parseSchedstat, sampleProcess, sampleTree, startCpuWatch } from '../../src/lab/cpu-use.js';
import { formatCpu } from '../../src/lab/report.js';
import { lowerPriority } from '../../src/browser/priority.js';
import type { RunMeasurement } from '../../src/lab/types.js';
import { fakeResult } from './fake-result.js';

const burn = (ms: number) => {
  const end = performance.now() + ms;
  let x = 0;
  while (performance.now() < end) x += Math.sqrt(x + 1);
  return x;
};

describe('parsing /proc', () => {
  it('reads run and wait time from a schedstat line and refuses anything else', () => {
    expect(parseSchedstat('123456 7890 12\n')).toEqual([123456, 7890]);
    expect(parseSchedstat('')).toBeUndefined();
    expect(parseSchedstat('abc def 1')).toBeUndefined();
    expect(parseSchedstat('-5 3 1')).toBeUndefined();
  });

  it('finds the parent PID after a command name holding spaces and parentheses', () => {
    expect(parseParentPid('4242 (node) S 17 4242 17 0 -1 4194560')).toBe(17);
    expect(parseParentPid('99 (Web Content (x) ) R 4 99 4 0')).toBe(4);
    expect(parseParentPid('garbage')).toBeUndefined();
  });

  it('gives no use when either sample is missing, and clamps a tree that lost a process to zero', () => {
    expect(cpuUse(undefined, { cpuNs: 1, waitNs: 1 })).toBeUndefined();
    expect(cpuUse({ cpuNs: 5e6, waitNs: 5e6 }, { cpuNs: 2e6, waitNs: 9e6 })).toEqual({ cpuMs: 0, waitMs: 4 });
  });
});

const onLinux = process.platform === 'linux';
if (!onLinux) console.log(`cpu-use: the /proc readers are Linux-only; skipped on ${process.platform}`);

describe.skipIf(!onLinux)('reading this machine (Linux)', () => {
  it("counts this process's CPU time, main thread included, as process.cpuUsage does", () => {
    const before = sampleProcess(process.pid)!;
    const usage = process.cpuUsage();
    burn(150);
    const used = process.cpuUsage(usage);
    const use = cpuUse(before, sampleProcess(process.pid))!;
    const cpuUsageMs = (used.user + used.system) / 1000;
    expect(use.mainThreadCpuMs).toBeGreaterThan(0.5 * cpuUsageMs);
    expect(use.cpuMs).toBeGreaterThanOrEqual(use.mainThreadCpuMs!);
    expect(use.cpuMs).toBeLessThan(2 * cpuUsageMs + 50);
  });

  it('is undefined for a process that does not exist', () => {
    expect(sampleProcess(2 ** 22 + 7)).toBeUndefined();
    expect(sampleTree(2 ** 22 + 7)).toBeUndefined();
  });

  it("adds a child's CPU time to its parent's tree, not to the parent process", async () => {
    const watch = startCpuWatch({ browser: process.pid, proxy: process.pid });
    const child = spawn(process.execPath, [
      '-e',
      'const e=Date.now()+300;let x=0;while(Date.now()<e)x+=Math.sqrt(x+1);setTimeout(()=>{},5000)',
    ]);
    try {
      // The tree is read while the child still lives (a process that exits takes its time with it).
      await new Promise((r) => setTimeout(r, 450));
      const cpu = watch()!;
      expect(cpu.browser!.cpuMs - cpu.proxy!.cpuMs).toBeGreaterThan(150);
      expect(cpu.browser!.mainThreadCpuMs).toBeUndefined();
      expect(cpu.site).toBeUndefined();
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('per cell', () => {
  const run = (cpu: unknown, ok = true) => ({ ok, cpu }) as unknown as RunMeasurement;

  it('takes the median of each field over the successful runs, and ignores what a damaged file holds', () => {
    const cpu = cellCpu([
      run({ proxy: { cpuMs: 10, waitMs: 40, mainThreadCpuMs: 8, mainThreadWaitMs: 30 }, browser: { cpuMs: 900, waitMs: 100 } }),
      run({ proxy: { cpuMs: 30, waitMs: 20, mainThreadCpuMs: 20, mainThreadWaitMs: 10 }, browser: { cpuMs: 'x', waitMs: null } }),
      run({ proxy: { cpuMs: 20, waitMs: 60, mainThreadCpuMs: 14, mainThreadWaitMs: 50 } }),
      run({ proxy: { cpuMs: 1e9, waitMs: 1e9 } }, false),
      run('not an object'),
    ]);
    expect(cpu).toEqual({
      proxy: { cpuMs: 20, waitMs: 40, mainThreadCpuMs: 14, mainThreadWaitMs: 30 },
      browser: { cpuMs: 900, waitMs: 100 },
    });
    expect(cellCpu([run(undefined)])).toBeUndefined();
  });

  it('says it in words, the main thread’s wait for a Node process, and prints nothing for results without it', () => {
    expect(
      cpuText({
        cpu: {
          browser: { cpuMs: 812.4, waitMs: 150 },
          proxy: { cpuMs: 64, waitMs: 120, mainThreadCpuMs: 50, mainThreadWaitMs: 90 },
          site: { cpuMs: 3.14, waitMs: 1 },
        },
      }),
    ).toBe(
      'browser 812 ms (waited 150 ms for a core) · proxy 64 ms (main thread 50 ms, waited 90 ms for a core) · test site 3.1 ms (waited 1.0 ms for a core)',
    );
    expect(cpuText({})).toBeUndefined();
    const result = fakeResult([{ cell: 'direct+h2', loadMs: [100, 110, 120], ttfbMs: [10, 11, 12] }]);
    expect(formatCpu(result)).toEqual([]);
    result.cells[0].cpu = { browser: { cpuMs: 500, waitMs: 20 } };
    expect(formatCpu(result).join('\n')).toContain('direct+h2  browser 500 ms (waited 20 ms for a core)');
    // The header says at what priority the browsers ran (--browser-nice), since the waits depend on it.
    expect(formatCpu(result).join('\n')).toContain('browsers at normal priority;');
    result.config.browserNice = 10;
    expect(formatCpu(result).join('\n')).toContain('browsers at nice 10;');
  });
});

describe('lowering a process priority (browser/priority.ts)', () => {
  it('throws for a process that does not exist rather than measuring with the wrong priority', () => {
    expect(() => lowerPriority(2 ** 22 + 7, 5)).toThrow();
  });
});
