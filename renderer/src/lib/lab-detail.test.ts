import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLabResult } from '../../../proxy/src/lab/result-file';
import { damageOf } from '../../../proxy/test/lab/damage';
import { fakeResult, NAGLE_STORY, WALKTHROUGH } from '../../../proxy/test/lab/fake-result';
import { labDetailRows } from './lab-detail';

describe('labDetailRows', () => {
  const rows = new Map(labDetailRows(fakeResult(NAGLE_STORY)).map((r) => [r.cell, r]));

  it('gives stalls per run (median, range) and the median wall-clock time stalled', () => {
    expect(rows.get('proxy+h1+intercept+naive+nagle')).toMatchObject({ stalls: '189 (184–194)', stalledMs: 1510, naive: true });
    expect(rows.get('proxy+h1+intercept')).toMatchObject({ stalls: '0 (0–2)', stalledMs: 0, naive: false });
    // Counted, but from a file without stallWallMs: the count, no time.
    expect(rows.get('proxy+h1+tunnel')).toMatchObject({ stalls: '0' });
    expect(rows.get('proxy+h1+tunnel')!.stalledMs).toBeUndefined();
    expect(rows.get('direct+h1')!.stalls).toBeUndefined();
  });

  it('says who used the CPU per load where it was measured', () => {
    expect(rows.get('direct+h1')!.cpu).toBe(
      'browser 1820 ms (waited 900 ms for a core) · test site 40 ms (main thread 30 ms, waited 10 ms for a core)',
    );
    expect(rows.get('proxy+h1+intercept')!.cpu).toContain('proxy 182 ms (main thread 122 ms, waited 450 ms for a core)');
    expect(rows.get('proxy+h1+tunnel')!.cpu).toBeUndefined();
  });

  it('gives the five parts in order, scaled to the widest cell, and says why a cell has none', () => {
    const slow = rows.get('proxy+h1+intercept+naive+nagle')!;
    expect(slow.segments!.map((s) => [s.part, s.ms])).toEqual([
      ['queue', 2],
      ['clientLeg', 6],
      ['proxy', 2],
      ['upstream', 22],
      ['back', 44],
    ]);
    expect(slow.total).toBe(76);
    expect(slow.barPct).toBe(100);
    expect(slow.segments!.reduce((n, s) => n + s.widthPct, 0)).toBeCloseTo(100, 6);
    expect(slow.matched).toBe('15/15 in 5 runs');
    expect(rows.get('proxy+h1+intercept+naive')!.barPct).toBeCloseTo((35 / 76) * 100, 6);
    expect(rows.get('direct+h1')!.segments).toBeUndefined();
    expect(rows.get('direct+h1')!.missing).toMatch(/^No breakdown: no alignment was made — a direct cell/);
    expect(rows.get('proxy+h1+tunnel')!.missing).toMatch(/^No breakdown: no alignment was made — a tunnel/);
    const unaligned = labDetailRows(fakeResult(WALKTHROUGH));
    expect(unaligned.map((r) => r.missing)).toEqual([expect.stringMatching(/direct cell/), expect.stringMatching(/no run was aligned/)]);
    expect(unaligned.some((r) => r.naive)).toBe(false);
  });

  it('copes with damaged stalls, breakdowns and alignments: rows for every cell, widths that are numbers', () => {
    const { damage, apply } = damageOf(fakeResult(NAGLE_STORY), (p) =>
      ['stalls', 'breakdown', 'proxy', 'alignment'].includes(String(p[2])),
    );
    fc.assert(
      fc.property(damage, (edits) => {
        let result;
        try {
          result = parseLabResult(apply(edits));
        } catch {
          return;
        }
        const rows = labDetailRows(result);
        expect(rows).toHaveLength(result.cells.length);
        for (const r of rows) {
          expect(r.segments !== undefined || typeof r.missing === 'string').toBe(true);
          for (const s of r.segments ?? []) expect(Number.isFinite(s.widthPct)).toBe(true);
          if (r.segments) expect(Number.isFinite(r.barPct)).toBe(true);
        }
      }),
      { seed: 42, numRuns: 300 },
    );
  });
});
