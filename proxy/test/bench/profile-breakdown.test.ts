/**
 * bench/profile.ts's per-request readings (bench/lib/profile-breakdown.ts): samples charged to the nearest proxy
 * frame on the stack, and what scavenges found and kept, on hand-made inputs with known answers.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  chargeAllocations,
  chargeToNearest,
  summarizeGc,
  type AllocNode,
  type CpuProfile,
  type GcStat,
} from '../../../bench/lib/profile-breakdown.js';

const frame = (id: number, functionName: string, url: string, hitCount: number, children: number[] = []) => ({
  id,
  callFrame: { functionName, url, lineNumber: 0 },
  hitCount,
  children,
});

describe('chargeToNearest', () => {
  // 100 samples over 1,000 µs (10 µs each), 10 requests: a sample is 1 µs per request.
  const profile: CpuProfile = {
    startTime: 0,
    endTime: 1000,
    samples: Array(100).fill(0),
    nodes: [
      frame(1, '(root)', '', 0, [2, 3, 6, 7]),
      frame(2, '(idle)', '', 50),
      // handleRequest → node:http2 request → util.deprecate: all of it is handleRequest's.
      frame(3, 'handleRequest', 'file:///x/dist/bench/netlens-peer-1.mjs', 10, [4]),
      frame(4, 'request', 'node:internal/http2/core', 15, [5]),
      frame(5, 'deprecate', 'node:internal/util', 5),
      // Node's own work with no proxy frame above it stays Node's.
      frame(6, 'processTicksAndRejections', 'node:internal/process/task_queues', 8),
      frame(7, '(garbage collector)', '', 12),
    ],
  };

  it('charges Node work to the proxy function that called it, keeps the rest as Node’s, and leaves idle out', () => {
    const { busy, by } = chargeToNearest(profile, 10, (url) => url.includes('netlens-peer-'));
    expect(busy).toBeCloseTo(50);
    expect(Object.fromEntries(by.map(([k, v]) => [k, Number(v.toFixed(3))]))).toEqual({
      'handleRequest (netlens-peer-1.mjs)': 30,
      '[node] processTicksAndRejections': 8,
      '[node] (garbage collector)': 12,
    });
    // Largest first.
    expect(by[0]![0]).toBe('handleRequest (netlens-peer-1.mjs)');
  });

  it('with no proxy frame recognised, every sample is charged to the Node function sampled', () => {
    const { by } = chargeToNearest(profile, 10, () => false);
    expect(by.find(([k]) => k === '[node] request')?.[1]).toBeCloseTo(15);
    expect(by.find(([k]) => k === '[node] deprecate')?.[1]).toBeCloseTo(5);
  });
});

describe('chargeAllocations', () => {
  const node = (functionName: string, url: string, selfSize: number, children: AllocNode[] = []): AllocNode => ({
    callFrame: { functionName, url },
    selfSize,
    children,
  });
  // 10 requests; sizes in bytes, so 1,024 bytes is 0.1 KB per request.
  const head = node('(root)', '', 0, [
    // handleRequest → node:http2 request → ClientHttp2Stream: all of it is handleRequest's.
    node('handleRequest', 'file:///x/dist/bench/netlens-peer-1.mjs', 1024, [
      node('request', 'node:internal/http2/core', 2048, [node('ClientHttp2Stream', 'node:internal/http2/core', 4096)]),
    ]),
    // Node's own allocations with no proxy frame above them stay Node's.
    node('onSessionHeaders', 'node:internal/http2/core', 3072),
  ]);

  it('the preload (bench/lib/alloc-profile-preload.mjs) writes a sampling profile that counts freed objects too', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-alloc-'));
    const file = path.join(dir, 'alloc.json');
    const preload = path.resolve(import.meta.dirname, '../../../bench/lib/alloc-profile-preload.mjs');
    // Some 20 MB of short-lived objects (kept a moment, so V8 cannot optimise them away), all garbage by the end:
    // only a profile that counts freed objects sees them.
    const script =
      'const keep = []; function churn() { for (let i = 0; i < 5e5; i++) { keep.push({ i, a: [i] }); if (keep.length > 1000) keep.length = 0; } } churn(); keep.length = 0;';
    await new Promise<void>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--import', preload, '-e', script],
        { env: { ...process.env, NETLENS_ALLOC_PROFILE_FILE: file } },
        (err) => (err ? reject(err) : resolve()),
      ),
    );
    const head = (JSON.parse(fs.readFileSync(file, 'utf8')) as { head: AllocNode }).head;
    const { total, by } = chargeAllocations(head, 1, () => false);
    fs.rmSync(dir, { recursive: true, force: true });
    expect(total).toBeGreaterThan(4 * 1024);
    expect(by.find(([k]) => k === '[node] churn')?.[1]).toBeGreaterThan(4 * 1024);
  });

  it('charges allocations to the proxy function whose stack made them, the rest to the allocating Node function', () => {
    const { total, by } = chargeAllocations(head, 10, (url) => url.includes('netlens-peer-'));
    expect(total).toBeCloseTo(1);
    expect(Object.fromEntries(by.map(([k, v]) => [k, Number(v.toFixed(3))]))).toEqual({
      'handleRequest (netlens-peer-1.mjs)': 0.7,
      '[node] onSessionHeaders': 0.3,
    });
  });
});

describe('summarizeGc', () => {
  const MB = 2 ** 20;
  const spaces = (young: number, old: number) => ({
    heapSpaceStatistics: [
      { spaceName: 'new_space', spaceUsedSize: young * MB },
      { spaceName: 'old_space', spaceUsedSize: old * MB },
    ],
  });
  const stats: GcStat[] = [
    { gcType: 'Scavenge', cost: 4000, beforeGC: spaces(12, 50), afterGC: spaces(3, 52) },
    { gcType: 'Scavenge', cost: 6000, beforeGC: spaces(14, 52), afterGC: spaces(5, 56) },
    { gcType: 'MarkSweepCompact', cost: 20000, beforeGC: spaces(6, 80), afterGC: spaces(0, 40) },
  ];

  it('averages what each scavenge found, copied and promoted, and sums their time', () => {
    const [scavenge, major] = summarizeGc(stats);
    expect(scavenge).toEqual({ type: 'Scavenge', count: 2, ms: 10, youngBeforeMB: 13, copiedMB: 4, promotedMB: 3 });
    // A full collection shrinks the old generation: nothing promoted.
    expect(major).toMatchObject({ type: 'MarkSweepCompact', count: 1, ms: 20, promotedMB: 0 });
  });
});
