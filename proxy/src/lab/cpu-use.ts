/**
 * Who used the CPU during a page load, and who waited for it (Linux only).
 *
 * Why: on a machine with few cores the browser, the proxy and the test site
 * take turns on the same CPUs. A proxy that is runnable but queued behind the
 * browser's processes adds that queueing to every response it relays, and the
 * lab would blame the proxy's code for the machine's contention. Measured for
 * issue 17: in an intercepting HTTP/2 page load the proxy's main thread spent
 * longer waiting for a core than running on one.
 *
 * Read from the scheduler's own accounting, `/proc/<pid>/task/<tid>/schedstat`:
 * time on a CPU and time runnable in a run queue, in ns, per thread. A process
 * tree (the browser: its renderer, GPU and network-service processes) is found
 * by parent PIDs in `/proc/<pid>/stat`; a process that exits during the load
 * takes its time with it, so a tree's figures are a lower bound.
 * Elsewhere (macOS, Windows) every function returns undefined.
 */
import fs from 'node:fs';
import type { CpuUse, RunCpu } from './types.js';

/** Totals of one process (all its threads) or of a process tree, at one moment, ns. */
export interface CpuSample {
  cpuNs: number;
  waitNs: number;
  /** The process's main thread (TID = PID): the event loop of a Node process. Absent for trees. */
  mainCpuNs?: number;
  mainWaitNs?: number;
}

/** "run_ns wait_ns timeslices" → [run, wait]; undefined for anything else. */
export function parseSchedstat(text: string): [number, number] | undefined {
  const [run, wait] = text.trim().split(/\s+/).map(Number);
  return Number.isFinite(run) && Number.isFinite(wait) && run >= 0 && wait >= 0 ? [run, wait] : undefined;
}

/** The parent PID from /proc/<pid>/stat (the command name in parentheses may hold spaces and parentheses). */
export function parseParentPid(stat: string): number | undefined {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(fields[1]);
  return Number.isInteger(ppid) ? ppid : undefined;
}

const read = (file: string): string | undefined => {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined; // gone (exited) or not Linux
  }
};

/** All threads of one process; undefined when the process is gone or this is not Linux. */
export function sampleProcess(pid: number): CpuSample | undefined {
  if (process.platform !== 'linux') return undefined;
  let tids: string[];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  const sample: CpuSample = { cpuNs: 0, waitNs: 0 };
  for (const tid of tids) {
    const t = parseSchedstat(read(`/proc/${pid}/task/${tid}/schedstat`) ?? '');
    if (!t) continue;
    sample.cpuNs += t[0];
    sample.waitNs += t[1];
    if (tid === String(pid)) [sample.mainCpuNs, sample.mainWaitNs] = t;
  }
  return sample;
}

/** The process and all its descendants, summed. */
export function sampleTree(rootPid: number): CpuSample | undefined {
  if (process.platform !== 'linux') return undefined;
  const children = new Map<number, number[]>();
  for (const name of fs.readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const ppid = parseParentPid(read(`/proc/${pid}/stat`) ?? '');
    if (ppid === undefined) continue;
    const list = children.get(ppid);
    if (list) list.push(pid);
    else children.set(ppid, [pid]);
  }
  const total: CpuSample = { cpuNs: 0, waitNs: 0 };
  let found = false;
  for (const todo = [rootPid]; todo.length;) {
    const pid = todo.pop()!;
    const s = sampleProcess(pid);
    if (s) {
      found = true;
      total.cpuNs += s.cpuNs;
      total.waitNs += s.waitNs;
    }
    todo.push(...(children.get(pid) ?? []));
  }
  return found ? total : undefined;
}

const ms = (ns: number) => Math.round(ns / 1e4) / 100;

/** The use between two samples; undefined when either is missing. Negative deltas (a tree lost a process) clamp to 0. */
export function cpuUse(before: CpuSample | undefined, after: CpuSample | undefined): CpuUse | undefined {
  if (!before || !after) return undefined;
  const use: CpuUse = { cpuMs: ms(Math.max(0, after.cpuNs - before.cpuNs)), waitMs: ms(Math.max(0, after.waitNs - before.waitNs)) };
  if (before.mainCpuNs !== undefined && after.mainCpuNs !== undefined)
    use.mainThreadCpuMs = ms(Math.max(0, after.mainCpuNs - before.mainCpuNs));
  if (before.mainWaitNs !== undefined && after.mainWaitNs !== undefined)
    use.mainThreadWaitMs = ms(Math.max(0, after.mainWaitNs - before.mainWaitNs));
  return use;
}

/**
 * Several processes summed (an external proxy with worker processes sharing its socket); one process as
 * sampleProcess, main thread included. Undefined when none of them can be read.
 */
export function sampleProcesses(pids: readonly number[]): CpuSample | undefined {
  if (pids.length === 1) return sampleProcess(pids[0]!);
  let total: CpuSample | undefined;
  for (const pid of pids) {
    const s = sampleProcess(pid);
    if (!s) continue;
    total ??= { cpuNs: 0, waitNs: 0 };
    total.cpuNs += s.cpuNs;
    total.waitNs += s.waitNs;
  }
  return total;
}

/**
 * Samples the browser (as a tree), the proxy and the site now; `finish()` gives each one's use since. The proxy is
 * the lab's proxy process, or the processes of an external proxy on this machine (via cells, listener-pids.ts).
 */
export function startCpuWatch(pids: { browser?: number; proxy?: number | readonly number[]; site?: number }): () => RunCpu | undefined {
  const proxy = pids.proxy === undefined ? [] : typeof pids.proxy === 'number' ? [pids.proxy] : pids.proxy;
  const take = () => ({
    browser: pids.browser === undefined ? undefined : sampleTree(pids.browser),
    proxy: proxy.length ? sampleProcesses(proxy) : undefined,
    site: pids.site === undefined ? undefined : sampleProcess(pids.site),
  });
  const before = take();
  return () => {
    const after = take();
    const out: RunCpu = {};
    for (const k of ['browser', 'proxy', 'site'] as const) {
      const use = cpuUse(before[k], after[k]);
      if (use) out[k] = use;
    }
    return Object.keys(out).length ? out : undefined;
  };
}
