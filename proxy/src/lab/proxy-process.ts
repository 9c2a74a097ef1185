/**
 * Runs the proxy of a lab cell in its own Node process.
 *
 * Why: the lab's own process drives the browser over the DevTools protocol and
 * parses several events per request of the page; a proxy sharing that event
 * loop would queue requests behind the measuring instrument's work, which
 * inflated proxy cells' time-to-first-byte. Like the test site (site-process.ts),
 * the proxy gets an event loop of its own, as it has when users run it.
 */
import type { ProxyOptions } from '../options.js';
import type { RunMeasurement } from './types.js';
import { startLabChild } from './child-process.js';

export interface ProxyProcessOptions {
  proxy: ProxyOptions;
  /** Record every exchange into this journal (the cell's proxy-side HAR). */
  journal?: { file: string; name: string };
}

export interface ProxyProcessResult {
  metrics: NonNullable<RunMeasurement['proxy']>;
  /** Entries written to the journal (when recording). */
  recorded: number;
  /** Event-loop lag of the proxy's process while it ran (see measure.ts). */
  eventLoopDelayMs?: { p50: number; p99: number; max: number };
}

export interface ProxyProcess {
  url: string;
  port: number;
  pid: number;
  /** Stops the proxy (closing the journal) and its process; resolves with what it saw. Idempotent. */
  close(): Promise<ProxyProcessResult | undefined>;
}

// netlens:bundle-relative — in a bundle, import.meta.url is the bundle's and the child is built next to it.
export async function startProxyProcess(options: ProxyProcessOptions): Promise<ProxyProcess> {
  const child = await startLabChild<{ url: string; port: number }, ProxyProcessResult>('proxy', new URL('./proxy-child', import.meta.url), import.meta.url.endsWith('.ts'), options);
  return { ...child.info, pid: child.pid, close: child.close };
}
