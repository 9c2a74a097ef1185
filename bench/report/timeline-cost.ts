/**
 * The socket timeline's cost (goal: ≤ 10% more proxy CPU per request): the recording Netlens
 * (timeline on, as the app runs) against the same Netlens with `timeline: false`, both measured
 * in the same interleaved rounds, so the ratio holds even on a busy machine.
 */
import { fmtUs } from '../lib/stats.js';

export const TIMELINE_ON = 'netlens';
export const TIMELINE_OFF = 'netlens (timeline off)';

interface Row {
  workload: string;
  connections: number;
  condition: string;
  cpuUsPerReq: number;
}

/** One line per workload and connection count that has both conditions. */
export function timelineCostLines(rows: Row[]): string[] {
  const out: string[] = [];
  for (const on of rows.filter((r) => r.condition === TIMELINE_ON)) {
    const off = rows.find((r) => r.condition === TIMELINE_OFF && r.workload === on.workload && r.connections === on.connections);
    if (!off || !(off.cpuUsPerReq > 0) || !(on.cpuUsPerReq > 0)) continue;
    const pct = (on.cpuUsPerReq / off.cpuUsPerReq - 1) * 100;
    out.push(
      `timeline cost, ${on.workload} c=${on.connections}: proxy CPU/req on ${fmtUs(on.cpuUsPerReq)}, off ${fmtUs(off.cpuUsPerReq)}: ` +
        `${pct >= 0 ? '+' : ''}${pct.toFixed(1)}% (goal ≤ 10%)`,
    );
  }
  return out;
}
