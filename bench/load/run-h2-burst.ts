/**
 * Runs bench/load/h2-burst.ts in a process of its own (as bench/profile.ts and bench/h2-paired.ts do) against the
 * lab's test site through a proxy, and reads its RESULT line.
 */
import { execFile } from 'node:child_process';
import { ROOT_DIR, tsArgs } from '../lib/child.js';

export interface H2BurstRun {
  /** https://host:port of the test site. */
  origin: string;
  proxyPort: number;
  /** The proxy's process, whose CPU time the load reads from /proc over its window. */
  proxyPid: number;
  caFiles: string[];
  durationMs: number;
  /** Send only :path, not Chromium's request headers. */
  bareHeaders?: boolean;
}

/** What h2-burst.ts reports (see its RESULT line); absent when it gave none. */
export interface H2BurstResult {
  requests: number;
  p50Ms: number;
  proxyCpuUsPerRequest: number;
}

/** Bursts of 200 image GETs for `durationMs`; resolves with the load's output and its parsed RESULT. */
export function runH2Burst(run: H2BurstRun): Promise<{ output: string; result?: H2BurstResult }> {
  const cfg = {
    origin: run.origin,
    proxy: `http://127.0.0.1:${run.proxyPort}`,
    proxyPid: run.proxyPid,
    caFiles: run.caFiles,
    burst: 200,
    durationMs: run.durationMs,
    bareHeaders: run.bareHeaders === true,
  };
  const [cmd, args] = tsArgs('load/h2-burst.ts', [JSON.stringify(cfg)]);
  return new Promise((resolve) =>
    execFile(cmd, args, { cwd: ROOT_DIR, timeout: run.durationMs + 30_000 }, (err, stdout, stderr) => {
      const line = /^RESULT (.*)$/m.exec(stdout)?.[1];
      const output = `${stdout}${stderr}${line ? '' : (err?.message ?? '')}`;
      resolve({ output, ...(line ? { result: JSON.parse(line) as H2BurstResult } : {}) });
    }),
  );
}
