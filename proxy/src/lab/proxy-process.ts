/**
 * Runs the lab's proxies in a Node process of their own: one process for the
 * whole lab, a fresh proxy (new listener, upstream pools, recorder) per run.
 *
 * Why another process: the lab's own process drives the browser over the
 * DevTools protocol and parses several events per request of the page; a
 * proxy sharing that event loop queued proxied requests behind the measuring
 * instrument's work. Why one process for all runs: a process per run would
 * measure a cold one (modules loading, code not yet optimised by V8), which is
 * not how users run a proxy; no connection or cache survives a run either way.
 */
import { appPaths } from '../app-paths.js';
import type { ProxyOptions } from '../options.js';
import type { RulesFile } from '../rules/types.js';
import type { RunMeasurement } from './types.js';
import { WASM_BASELINE_ONLY_FLAG } from '../upstream/wasm-tiering.js';
import { HEAP_GROWING_FLAG } from '../server/heap-growth.js';
import { startLabChild, type LabChild } from './child-process.js';

export interface ProxyRunOptions {
  /** Without `rules`: a holder cannot cross the process boundary; see `rules` below. */
  proxy: Omit<ProxyOptions, 'rules'>;
  /**
   * Variant cells: the validated rules (a plain object, serialized to the child, which
   * builds its own holder) and the directory mock `bodyFile`s resolve against.
   */
  rules?: { file: RulesFile; baseDir?: string };
  /** Record every exchange into this journal (the run's proxy-side HAR). */
  journal?: { file: string; name: string };
}

export interface ProxyRunResult {
  metrics: NonNullable<RunMeasurement['proxy']>;
  /** Entries written to the journal (when recording). */
  recorded: number;
  /** Event-loop lag of the proxy's process during the run (see measure.ts). */
  eventLoopDelayMs?: { p50: number; p99: number; max: number };
}

export interface ProxyRun {
  url: string;
  port: number;
  /** Stops this run's proxy (closing its journal); resolves with what it saw. Idempotent. */
  stop(): Promise<ProxyRunResult>;
}

export interface ProxyHost {
  pid: number;
  /** Starts a fresh proxy for one run. */
  startRun(options: ProxyRunOptions): Promise<ProxyRun>;
  /** Stops any run still going and ends the process. Idempotent. */
  close(): Promise<void>;
}

export async function startProxyHost(): Promise<ProxyHost> {
  // The proxy under test runs as the CLI and the app run it: undici's parser on V8's baseline tier (wasm-tiering.ts),
  // the old generation's growth between full collections fixed (heap-growth.ts).
  const child: LabChild<Record<string, never>, unknown> = await startLabChild('proxy', appPaths().labChildren.proxy, {}, [
    WASM_BASELINE_ONLY_FLAG,
    HEAP_GROWING_FLAG,
  ]);
  return {
    pid: child.pid,
    startRun: async (options) => {
      const { url, port } = await child.call<{ url: string; port: number }>('run-start', options);
      let stopping: Promise<ProxyRunResult> | undefined;
      return { url, port, stop: () => (stopping ??= child.call<ProxyRunResult>('run-stop')) };
    },
    close: async () => void (await child.close()),
  };
}
