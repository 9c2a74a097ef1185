/**
 * Runs a launched browser at a lower CPU priority (`netlens lab --browser-nice`).
 *
 * Why: on a machine with few cores the browser's processes keep the cores busy
 * during a page load, and a proxy or test site that is runnable waits in the run
 * queue behind them; the lab then measures that queueing as the proxy's cost
 * (lab/cpu-use.ts shows the wait). A lower priority for the browser lets the
 * proxy and the origin answer when their data arrives, as on a machine with cores
 * to spare. Every cell's browser gets the same priority, direct cells included.
 *
 * Linux with autogroup scheduling (the default on desktops): the browser starts
 * in a session of its own (launch.ts spawns it detached), and the scheduler
 * shares CPU between sessions before it looks at a process's own nice value, so
 * the nice value is set on the browser's autogroup (`/proc/<pid>/autogroup`),
 * which covers every process Chrome forks later. Elsewhere, and without
 * autogroup, the browser process's own priority (os.setPriority); its helper
 * processes forked before that keep the default.
 */
import fs from 'node:fs';
import os from 'node:os';

export type PriorityScope = 'autogroup' | 'process';

/** Lowest priority a process can be given (POSIX nice 19). */
export const MAX_NICENESS = 19;

function autogroupEnabled(): boolean {
  try {
    return fs.readFileSync('/proc/sys/kernel/sched_autogroup_enabled', 'utf8').trim() === '1';
  } catch {
    return false;
  }
}

/** Lowers `pid`'s CPU priority by `niceness` (1–19); says where it applied. Throws when the system refuses. */
export function lowerPriority(pid: number, niceness: number): PriorityScope {
  if (process.platform === 'linux' && autogroupEnabled()) {
    try {
      fs.writeFileSync(`/proc/${pid}/autogroup`, String(niceness));
      return 'autogroup';
    } catch {
      // e.g. /proc mounted read-only in a container: the process's own priority still helps.
    }
  }
  os.setPriority(pid, niceness);
  return 'process';
}
