/**
 * CPU time and memory of a process by PID, from Linux's /proc: how the
 * harness measures servers it did not instrument (any language, any peer).
 */
import fs from 'node:fs';

const CLK_TCK = 100; // sysconf(_SC_CLK_TCK) on Linux x86-64/arm64

/** User+system CPU time of the process so far, in ms (10 ms resolution). */
export function procCpuMs(pid: number): number {
  // Fields after the ")" of comm: utime is field 14, stime 15 (1-based in proc(5)).
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
}

/** Current and peak resident set size, in MiB. */
export function procMemory(pid: number): { rssMiB: number; hwmMiB: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(status.match(new RegExp(`^${k}:\\s+(\\d+)`, 'm'))?.[1] ?? NaN);
  return { rssMiB: kb('VmRSS') / 1024, hwmMiB: kb('VmHWM') / 1024 };
}

/**
 * CPU time of every thread of the process so far, in ns (the scheduler's run time from
 * /proc/<pid>/task/<tid>/schedstat): for windows too short for procCpuMs's 10 ms clock. Threads
 * that ended since the last reading are not counted (Node's threads live as long as the process).
 */
export function procCpuNs(pid: number): number {
  let ns = 0;
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'latin1').split(' ', 1)[0]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return ns;
}
