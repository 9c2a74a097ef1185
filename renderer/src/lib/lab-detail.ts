/**
 * Lab results → the Lab view's stalls and browser/proxy breakdown per cell (the same
 * words as the HTML report: proxy/src/lab/cell-detail.ts). Pure, so it is unit-tested.
 */
import type { LabResult } from '../../../proxy/src/api/contract';
import {
  BREAKDOWN_SEGMENTS,
  breakdownTotal,
  cpuText,
  isNaiveRelay,
  matchedText,
  missingBreakdownReason,
  readBreakdown,
  readStalls,
  stallCountText,
  stallWallMs,
  type BreakdownPart,
} from '../../../proxy/src/lab/cell-detail';

export interface BreakdownSegment {
  part: BreakdownPart;
  label: string;
  color: string;
  ms: number;
  /** Width in % of the cell's bar. */
  widthPct: number;
}

export interface LabDetailRow {
  cell: string;
  /** The cell's proxy uses the naive relay (marked in the table and the charts). */
  naive: boolean;
  /** Stalls per run, `median (min–max)`; undefined when the cell counted none (direct, via). */
  stalls?: string;
  /** Median wall-clock time stalled per run, ms; undefined when unknown. */
  stalledMs?: number;
  /** The five parts, in order; undefined when no run was aligned (`missing` says why). */
  segments?: BreakdownSegment[];
  total?: number;
  /** The bar's width in % of the widest cell's, so bars of different cells share one scale. */
  barPct?: number;
  /** `matched/browser requests in N runs` (summed over the aligned runs). */
  matched?: string;
  missing?: string;
  /** Who used the CPU per page load (browser, proxy, test site), in words; undefined when not measured (not Linux, older results). */
  cpu?: string;
}

export function labDetailRows(result: LabResult): LabDetailRow[] {
  const max = Math.max(
    0,
    ...result.cells.map((c) => {
      const b = readBreakdown(c);
      return b ? breakdownTotal(b.median) : 0;
    }),
  );
  return result.cells.map((c) => {
    const b = readBreakdown(c);
    const row: LabDetailRow = { cell: c.id, naive: isNaiveRelay(c) };
    const cpu = cpuText(c);
    if (cpu) row.cpu = cpu;
    if (readStalls(c)) {
      row.stalls = stallCountText(c);
      row.stalledMs = stallWallMs(c);
    }
    if (b) {
      const total = breakdownTotal(b.median);
      row.segments = BREAKDOWN_SEGMENTS.map((s) => {
        const ms = Math.max(0, b.median[s.part] ?? 0);
        return { ...s, ms, widthPct: total > 0 ? (ms / total) * 100 : 0 };
      });
      row.total = total;
      row.barPct = max > 0 ? (total / max) * 100 : 0;
      row.matched = matchedText(b);
    } else {
      row.missing = missingBreakdownReason(c);
    }
    return row;
  });
}
