/**
 * Per-request readings of a CPU profile and of V8's GC statistics, for `bench/profile.ts`.
 *
 * Why "nearest Netlens frame": a function's self time leaves out the Node internals it calls (node:http2's
 * `request`, the compatibility layer, stream plumbing), and its inclusive time counts callers twice. Charging each
 * sample to the innermost frame of the proxy's own code on its stack (or to the Node function itself when no
 * proxy frame is there: Node's event plumbing, GC) splits the process's busy time once, into what each of our
 * functions costs with everything it calls. That is how recording's in-situ cost (recording on vs off) and the
 * HTTP/2 path's parts were taken apart for issue 17.
 */

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
}

/** Samples V8 labels as the process doing nothing. */
const IDLE = '(idle)';

/**
 * µs of busy time per request, by the nearest frame whose URL `isOurs` accepts ("function (file)"), else by the
 * sampled Node function ("[node] function"). Idle samples are left out; `busy` is the sum of the rest.
 */
export function chargeToNearest(
  profile: CpuProfile,
  requests: number,
  isOurs: (url: string) => boolean,
): { busy: number; by: [string, number][] } {
  const parent = new Map<number, ProfileNode>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n);
  const samples = profile.samples?.length ?? profile.nodes.reduce((s, n) => s + (n.hitCount ?? 0), 0);
  const usPerSample = samples > 0 ? (profile.endTime - profile.startTime) / samples : 0;
  const by = new Map<string, number>();
  let busy = 0;
  for (const n of profile.nodes) {
    const hits = n.hitCount ?? 0;
    if (hits === 0 || n.callFrame.functionName === IDLE) continue;
    let ours: ProfileNode | undefined;
    for (let a: ProfileNode | undefined = n; a && !ours; a = parent.get(a.id)) if (isOurs(a.callFrame.url)) ours = a;
    const key = ours ? ownKey(ours.callFrame) : nodeKey(n.callFrame);
    const us = (hits * usPerSample) / Math.max(1, requests);
    by.set(key, (by.get(key) ?? 0) + us);
    busy += us;
  }
  return { busy, by: largestFirst(by) };
}

/** A node of V8's sampling heap profile (HeapProfiler.stopSampling): bytes sampled at this stack, and its callees. */
export interface AllocNode {
  callFrame: { functionName: string; url: string };
  selfSize: number;
  children: AllocNode[];
}

/**
 * KB allocated per request, by the nearest frame whose URL `isOurs` accepts ("function (file)"), else by the
 * allocating Node function ("[node] function"), as chargeToNearest splits CPU time. `total` is the sum.
 */
export function chargeAllocations(
  head: AllocNode,
  requests: number,
  isOurs: (url: string) => boolean,
): { total: number; by: [string, number][] } {
  const by = new Map<string, number>();
  let total = 0;
  const n = Math.max(1, requests);
  // Depth-first with the nearest own frame carried down (no recursion: stacks can be deep).
  const stack: { node: AllocNode; ours: string | undefined }[] = [{ node: head, ours: undefined }];
  while (stack.length) {
    const { node, ours: above } = stack.pop()!;
    const ours = isOurs(node.callFrame.url) ? ownKey(node.callFrame) : above;
    if (node.selfSize > 0) {
      const key = ours ?? nodeKey(node.callFrame);
      const kb = node.selfSize / 1024 / n;
      by.set(key, (by.get(key) ?? 0) + kb);
      total += kb;
    }
    for (const c of node.children) stack.push({ node: c, ours });
  }
  return { total, by: largestFirst(by) };
}

type Frame = { functionName: string; url: string };
/** A frame of the proxy's own code: "function (file)". */
const ownKey = (f: Frame) => `${f.functionName || '(anonymous)'} (${f.url.slice(f.url.lastIndexOf('/') + 1)})`;
/** A Node function charged for itself: "[node] function". */
const nodeKey = (f: Frame) => `[node] ${f.functionName || '(anonymous)'}`;
const largestFirst = (by: Map<string, number>): [string, number][] => [...by].sort((a, b) => b[1] - a[1]);

/** One collection as `v8.GCProfiler`'s stop() reports it (the fields used here). */
export interface GcStat {
  gcType: string;
  /** Microseconds. */
  cost: number;
  beforeGC: { heapSpaceStatistics: { spaceName: string; spaceUsedSize: number }[] };
  afterGC: { heapSpaceStatistics: { spaceName: string; spaceUsedSize: number }[] };
}

export interface GcSummary {
  type: string;
  count: number;
  ms: number;
  /** Young generation in use when a collection started, on average (MB). */
  youngBeforeMB: number;
  /** Of it, still in the young generation after (copied) and moved to the old one (promoted), on average (MB). */
  copiedMB: number;
  promotedMB: number;
}

const used = (s: GcStat['beforeGC'], space: string) => s.heapSpaceStatistics.find((x) => x.spaceName === space)?.spaceUsedSize ?? 0;

/** Collections by type, with what a scavenge found and kept (the survivors are what it copies: its cost). */
export function summarizeGc(stats: readonly GcStat[]): GcSummary[] {
  const by = new Map<string, { count: number; cost: number; before: number; after: number; promoted: number }>();
  for (const g of stats) {
    const x = by.get(g.gcType) ?? { count: 0, cost: 0, before: 0, after: 0, promoted: 0 };
    x.count++;
    x.cost += g.cost;
    x.before += used(g.beforeGC, 'new_space');
    x.after += used(g.afterGC, 'new_space');
    x.promoted += Math.max(0, used(g.afterGC, 'old_space') - used(g.beforeGC, 'old_space'));
    by.set(g.gcType, x);
  }
  const mb = (bytes: number, n: number) => bytes / n / 2 ** 20;
  return [...by].map(([type, x]) => ({
    type,
    count: x.count,
    ms: x.cost / 1000,
    youngBeforeMB: mb(x.before, x.count),
    copiedMB: mb(x.after, x.count),
    promotedMB: mb(x.promoted, x.count),
  }));
}
