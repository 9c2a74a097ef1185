/**
 * The opt-in naive-relay cells: how they are named and selected (never by `all` or by
 * patterns without `naive`), what they stand for, which pairs the effects table makes,
 * the runner's default, and the stall counts per cell in the table and results.
 */
import { describe, expect, it } from 'vitest';
import { ALL_CELLS, NAIVE_CELLS, allCells, cellId, cellSettings, defaultCells, isCellId, parseCells } from '../../src/lab/cells.js';
import { analyze, effects } from '../../src/lab/analyze.js';
import { formatTable } from '../../src/lab/report.js';
import { resolveLabConfig } from '../../src/lab/runner.js';
import type { CellId, RunMeasurement } from '../../src/lab/types.js';
import { fakeResult } from './fake-result.js';

describe('naive-relay cells', () => {
  it('are named like the others and round-trip settings ↔ id', () => {
    expect(NAIVE_CELLS).toEqual(['proxy+h1+intercept+naive', 'proxy+h1+intercept+naive+nagle']);
    expect(cellSettings('proxy+h1+intercept+naive+nagle')).toEqual({
      proxy: true,
      http2: false,
      intercept: true,
      nagle: true,
      naive: true,
    });
    expect(cellSettings('proxy+h1+intercept+nagle')).toEqual({ proxy: true, http2: false, intercept: true, nagle: true }); // no naive key
    for (const id of [...ALL_CELLS, ...NAIVE_CELLS]) expect(cellId(cellSettings(id))).toBe(id);
    expect(isCellId('proxy+h1+intercept+naive')).toBe(true);
    expect(isCellId('proxy+h2+intercept+naive')).toBe(false);
  });

  it('are selected by id or by "naive" patterns, never by "all" or patterns without "naive"', () => {
    expect(parseCells('naive')).toEqual(NAIVE_CELLS);
    expect(parseCells('naive+nagle')).toEqual(['proxy+h1+intercept+naive+nagle']);
    expect(parseCells('proxy+h1+intercept+naive')).toEqual(['proxy+h1+intercept+naive']); // an exact id is that one cell
    expect(parseCells('all')).toEqual(ALL_CELLS);
    expect(parseCells('all,naive')).toEqual([...ALL_CELLS, ...NAIVE_CELLS]);
    expect(parseCells('nagle')).toHaveLength(4);
    expect(parseCells('h1+intercept')).toEqual(['proxy+h1+intercept', 'proxy+h1+intercept+nagle']);
    expect(parseCells('h1+intercept,naive')).toEqual(['proxy+h1+intercept', 'proxy+h1+intercept+nagle', ...NAIVE_CELLS]);
    expect(() => parseCells('h2+naive')).toThrow(/unknown cell "h2\+naive"/);
    expect(allCells()).toEqual([...ALL_CELLS, ...NAIVE_CELLS]);
    expect(defaultCells(['x'])).toEqual([...ALL_CELLS, 'via-x+h2', 'via-x+h1']);
  });

  it('the runner runs them only when asked', () => {
    const site = { kind: 'site', images: 10, latencyMs: 0 } as const;
    expect(resolveLabConfig({ target: site }).cells).toEqual(ALL_CELLS);
    expect(resolveLabConfig({ target: site, cells: [...NAIVE_CELLS] }).cells).toEqual(NAIVE_CELLS);
  });

  it('effects: Nagle within the naive relay, naive vs coalescing relay; the proxy pair skips them', () => {
    const ids: CellId[] = ['direct+h1', 'proxy+h1+intercept', 'proxy+h1+intercept+nagle', ...NAIVE_CELLS];
    const loadMs = (i: number) => [100, 102, 104, 106, 108].map((v) => v + i * 50);
    const r = fakeResult(ids.map((cell, i) => ({ cell, loadMs: loadMs(i), ttfbMs: [5, 5, 5, 5, 5] })));
    const pairs = r.effects.map((e) => `${e.dimension}: ${e.cell} vs ${e.versus}`);
    expect(pairs).toEqual([
      'nagle: proxy+h1+intercept+nagle vs proxy+h1+intercept',
      'nagle: proxy+h1+intercept+naive+nagle vs proxy+h1+intercept+naive',
      'naive: proxy+h1+intercept+naive vs proxy+h1+intercept',
      'naive: proxy+h1+intercept+naive+nagle vs proxy+h1+intercept+nagle',
      'proxy: proxy+h1+intercept vs direct+h1',
    ]);
    expect(formatTable(r)).toMatch(/naive relay on +proxy\+h1\+intercept\+naive vs proxy\+h1\+intercept/);
  });

  it('stall counts per cell: median and range in the results and the table, absent without a count', () => {
    const run = (cell: CellId, i: number, stalls?: number): RunMeasurement => ({
      cell,
      round: i,
      sequence: i,
      startedAt: '',
      ok: true,
      loadMs: 100 + i,
      onLoadMs: 100,
      ttfbMeanMs: 1,
      ttfbMedianMs: 1,
      requests: 3,
      ...(stalls === undefined
        ? {}
        : { proxy: { exchanges: 3, errors: 0, upstreamConnections: 1, protocols: {}, stalls, stallWallMs: stalls * 40 } }),
    });
    const runs = [
      ...[30, 12, 40].map((n, i) => run('proxy+h1+intercept+naive+nagle', i, n)),
      ...[0, 0, 0].map((n, i) => run('proxy+h1+intercept+naive', i, n)),
      ...[0, 1, 2].map((_, i) => run('direct+h1', i)),
    ];
    const cells = analyze(['direct+h1', ...NAIVE_CELLS], runs, { baseline: 'direct', alpha: 0.05 });
    const byId = new Map(cells.map((c) => [c.id, c]));
    expect(byId.get('proxy+h1+intercept+naive+nagle')!.stalls).toEqual({ runs: 3, median: 30, min: 12, max: 40, medianWallMs: 1200 });
    expect(byId.get('proxy+h1+intercept+naive')!.stalls).toEqual({ runs: 3, median: 0, min: 0, max: 0, medianWallMs: 0 });
    expect(byId.get('direct+h1')!.stalls).toBeUndefined();
    const r = fakeResult([{ cell: 'direct+h1', loadMs: [1, 2, 3], ttfbMs: [1, 1, 1] }]);
    const table = formatTable({ ...r, cells, effects: effects(cells, 0.05) });
    const line = (id: string) => table.split('\n').find((l) => l.startsWith(id + ' '))!;
    expect(line('proxy+h1+intercept+naive+nagle')).toMatch(/ 30 \(12–40\) /);
    expect(line('proxy+h1+intercept+naive ')).toMatch(/ 0 /);
    expect(table.split('\n').find((l) => l.startsWith('cell '))).toMatch(/ stalls /);
  });
});
