/**
 * Plain HTTP forward proxying with wrk: GET of a small JSON document and POST
 * of ~1 KiB echoed back, at 1 and 64 connections, direct and through every
 * peer that forwards. Rounds interleave conditions (round → workload →
 * condition) so drift on the shared machine spreads over all of them.
 */
import type { Child } from '../lib/child.js';
import { runWrk } from '../load/wrk.js';
import { fmtInt, fmtRatio, fmtUs, mdTable, median } from '../lib/stats.js';
import type { PeerInfo } from '../peers/index.js';

export interface Condition {
  name: string;
  /** Undefined: direct to the origin. */
  child?: Child<PeerInfo>;
}

const BODY_1K = `{"pad":"${'x'.repeat(1024 - 10)}"}`;

export const WORKLOADS = [
  { name: 'GET small JSON', method: 'GET' as const, path: '/small', connections: 1 },
  { name: 'GET small JSON', method: 'GET' as const, path: '/small', connections: 64 },
  { name: 'POST 1 KiB echo', method: 'POST' as const, path: '/echo', connections: 1, body: BODY_1K },
  { name: 'POST 1 KiB echo', method: 'POST' as const, path: '/echo', connections: 64, body: BODY_1K },
];

export interface PlainRow {
  workload: string;
  connections: number;
  condition: string;
  rps: number;
  p50us: number;
  p99us: number;
  cpuUsPerReq: number;
  errors: number;
  ratio: number;
}

export async function plainHttp(
  originPort: number,
  conditions: Condition[],
  rounds: number,
  durationS: number,
  log: (s: string) => void,
): Promise<PlainRow[]> {
  const samples = new Map<string, { rps: number[]; p50: number[]; p99: number[]; cpu: number[]; errors: number }>();
  const key = (w: number, c: string) => `${w}\u0000${c}`;
  for (let r = 0; r < rounds; r++) {
    for (const [wi, w] of WORKLOADS.entries()) {
      // Every other round in reverse: no condition always runs right after the same other one (whose leftover
      // work, e.g. a recorder's deferred writes, would share the CPU with it).
      for (const c of r % 2 ? [...conditions].reverse() : conditions) {
        const cpu0 = c.child?.cpuMs() ?? 0;
        let run;
        try {
          run = await runWrk({
            originPort,
            proxyPort: c.child?.info.port,
            method: w.method,
            path: w.path,
            body: w.body,
            connections: w.connections,
            durationS,
          });
        } catch (err) {
          log(`  ${c.name}: ${(err as Error).message.split('\n')[0]}`);
          continue;
        }
        const cpuMs = (c.child?.cpuMs() ?? 0) - cpu0;
        const s = samples.get(key(wi, c.name)) ?? { rps: [], p50: [], p99: [], cpu: [], errors: 0 };
        s.rps.push(run.rps);
        s.p50.push(run.p50us);
        s.p99.push(run.p99us);
        if (c.child && run.requests) s.cpu.push((cpuMs * 1000) / run.requests);
        s.errors += run.errors;
        samples.set(key(wi, c.name), s);
        log(
          `  round ${r + 1}/${rounds} ${w.name} c=${w.connections} ${c.name}: ${fmtInt(run.rps)} req/s p50 ${fmtUs(run.p50us)} p99 ${fmtUs(run.p99us)}${run.errors ? ` errors ${run.errors}` : ''}`,
        );
      }
    }
  }
  const rows: PlainRow[] = [];
  for (const [wi, w] of WORKLOADS.entries()) {
    const direct = median(samples.get(key(wi, 'direct'))?.rps ?? []);
    for (const c of conditions) {
      const s = samples.get(key(wi, c.name));
      if (!s) continue;
      const rps = median(s.rps);
      rows.push({
        workload: w.name,
        connections: w.connections,
        condition: c.name,
        rps,
        p50us: median(s.p50),
        p99us: median(s.p99),
        cpuUsPerReq: median(s.cpu),
        errors: s.errors,
        ratio: rps / direct,
      });
    }
  }
  return rows;
}

export function plainTable(rows: PlainRow[]): string {
  return mdTable(
    ['workload', 'c', 'condition', 'req/s', '× direct', 'p50', 'p99', 'proxy CPU/req', 'errors'],
    rows.map((r) => [
      r.workload,
      String(r.connections),
      r.condition,
      fmtInt(r.rps),
      fmtRatio(r.ratio),
      fmtUs(r.p50us),
      fmtUs(r.p99us),
      r.condition === 'direct' ? '–' : fmtUs(r.cpuUsPerReq),
      String(r.errors),
    ]),
  );
}
