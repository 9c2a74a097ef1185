import { describe, expect, it } from 'vitest';
import { ALL_CELLS, baselineFor, cellId, cellSettings, parseCells } from '../../src/lab/cells.js';
import { mulberry32, schedule, shuffle } from '../../src/lab/schedule.js';
import { analyze } from '../../src/lab/analyze.js';
import { checkBudget, checkRegression, parseBudget } from '../../src/lab/checks.js';
import type { CellId, LabResult, RunMeasurement } from '../../src/lab/types.js';

describe('cells', () => {
  it('has the 10 meaningful cells and round-trips settings ↔ id', () => {
    expect(ALL_CELLS).toHaveLength(10);
    for (const id of ALL_CELLS) expect(cellId(cellSettings(id))).toBe(id);
    expect(cellSettings('proxy+h1+intercept+nagle')).toEqual({ proxy: true, http2: false, intercept: true, nagle: true });
    expect(cellSettings('direct+h2')).toEqual({ proxy: false, http2: true, intercept: false, nagle: false });
  });

  it('parses lists, patterns and "all"; rejects unknown names', () => {
    expect(parseCells('all')).toEqual(ALL_CELLS);
    expect(parseCells('direct')).toEqual(['direct+h2', 'direct+h1']);
    expect(parseCells('proxy+nagle')).toHaveLength(4);
    expect(parseCells('proxy+h1+tunnel, direct+h1,direct+h1')).toEqual(['direct+h1', 'proxy+h1+tunnel']); // an exact id is that one cell
    expect(parseCells('h1+tunnel')).toEqual(['proxy+h1+tunnel', 'proxy+h1+tunnel+nagle']);
    expect(() => parseCells('proxy+h3')).toThrow(/unknown cell "proxy\+h3"/);
  });

  it('compares each cell with the direct cell of the same HTTP/2 setting', () => {
    expect(baselineFor('proxy+h2+intercept', 'direct')).toBe('direct+h2');
    expect(baselineFor('proxy+h1+tunnel+nagle', 'direct')).toBe('direct+h1');
    expect(baselineFor('direct+h2', 'direct')).toBeUndefined();
    expect(baselineFor('proxy+h2+intercept+nagle', 'proxy+h2+intercept')).toBe('proxy+h2+intercept');
  });
});

describe('schedule', () => {
  it('runs every cell once per round, interleaved and shuffled, repeatably per seed', () => {
    const cells = ALL_CELLS.slice(0, 6);
    const s = schedule(cells, 4, 42);
    expect(s).toHaveLength(24);
    for (let round = 0; round < 4; round++) {
      expect(
        s
          .filter((r) => r.round === round)
          .map((r) => r.cell)
          .sort(),
      ).toEqual([...cells].sort());
    }
    expect(s.map((r) => r.sequence)).toEqual([...Array(24).keys()]);
    expect(schedule(cells, 4, 42)).toEqual(s);
    const orders = new Set(
      [0, 1, 2, 3].map((round) =>
        s
          .filter((r) => r.round === round)
          .map((r) => r.cell)
          .join(),
      ),
    );
    expect(orders.size).toBeGreaterThan(1); // not the same order every round
  });

  it('shuffles uniformly enough (each item reaches the first slot)', () => {
    const random = mulberry32(7);
    const firsts = new Set<number>();
    for (let i = 0; i < 200; i++) firsts.add(shuffle([0, 1, 2, 3], random)[0]);
    expect(firsts).toEqual(new Set([0, 1, 2, 3]));
  });
});

function run(cell: CellId, loadMs: number, sequence = 0): RunMeasurement {
  return {
    cell,
    round: 0,
    sequence,
    startedAt: '',
    ok: true,
    loadMs,
    onLoadMs: loadMs,
    ttfbMeanMs: loadMs / 10,
    ttfbMedianMs: loadMs / 10,
  };
}

describe('analyze', () => {
  const runs = [
    ...[100, 102, 98, 101, 99].map((v) => run('direct+h2', v)),
    ...[200, 210, 190, 205, 195].map((v) => run('proxy+h2+intercept', v)),
    {
      cell: 'proxy+h2+intercept',
      round: 1,
      sequence: 9,
      startedAt: '',
      ok: false,
      error: { code: 'NL_X', message: 'x' },
    } as RunMeasurement,
  ];

  it('computes per-cell statistics over successful runs and compares with the baseline', () => {
    const cells = analyze(['direct+h2', 'proxy+h2+intercept'], runs, { baseline: 'direct', alpha: 0.05 });
    const [direct, proxied] = cells;
    expect(direct.stats.loadMs?.median).toBe(100);
    expect(direct.comparisons).toEqual({});
    expect(proxied.runs).toHaveLength(6);
    expect(proxied.stats.loadMs?.n).toBe(5);
    expect(proxied.comparisons.loadMs).toMatchObject({ baseline: 'direct+h2', ratio: 2, significant: true, cliffsDelta: 1 });
    expect(direct.noisyBaseline).toBe(false);
    // The run closest to the median load time, for waterfalls.
    expect(direct.runs[direct.representativeRun!].loadMs).toBe(100);
    expect(proxied.runs[proxied.representativeRun!].loadMs).toBe(200);
  });

  it('flags a noisy baseline (CV > 10%)', () => {
    const noisy = [...[50, 100, 150, 80, 120].map((v) => run('direct+h2', v)), ...[100, 101].map((v) => run('proxy+h2+tunnel', v))];
    const [direct] = analyze(['direct+h2', 'proxy+h2+tunnel'], noisy, { baseline: 'direct', alpha: 0.05 });
    expect(direct.noisyBaseline).toBe(true);
  });
});

describe('CI checks', () => {
  const cells = analyze(
    ['direct+h2', 'proxy+h2+intercept'],
    [...[100, 102, 98, 101, 99].map((v) => run('direct+h2', v)), ...[200, 210, 190, 205, 195].map((v) => run('proxy+h2+intercept', v))],
    { baseline: 'direct', alpha: 0.05 },
  );

  it('validates budget files with readable errors', () => {
    expect(() => parseBudget([])).toThrow(/JSON object/);
    expect(() => parseBudget({ 'proxy+h9': {} })).toThrow(/unknown cell "proxy\+h9"/);
    expect(() => parseBudget({ 'direct+h2': { speed: {} } })).toThrow(/unknown metric "speed"/);
    expect(() => parseBudget({ 'direct+h2': { loadMs: { median: 'fast' } } })).toThrow(/must be a number/);
    expect(parseBudget({ 'direct+h2': { loadMs: { median: 5 } } })).toBeTruthy();
  });

  it('fails a cell over budget and passes one under it', () => {
    const failures = checkBudget(cells, {
      'proxy+h2+intercept': { loadMs: { median: 150 } },
      'direct+h2': { loadMs: { median: 150, p95: 500 } },
    });
    expect(failures).toHaveLength(1);
    expect(failures[0].message).toMatch(/proxy\+h2\+intercept: loadMs median 200\.0 ms exceeds the budget of 150 ms/);
    expect(checkBudget(cells, { 'proxy+h1+tunnel': { loadMs: { median: 1 } } })[0].message).toMatch(/no successful runs/);
  });

  it('fails on a significant regression beyond the ratio, not on noise', () => {
    const stored = {
      cells: analyze(
        ['direct+h2', 'proxy+h2+intercept'],
        [...[100, 102, 98, 101, 99].map((v) => run('direct+h2', v)), ...[100, 105, 95, 103, 97].map((v) => run('proxy+h2+intercept', v))],
        { baseline: 'direct', alpha: 0.05 },
      ),
    } as LabResult;
    const failures = checkRegression(cells, stored, { maxRatio: 1.2, alpha: 0.05 });
    expect(failures.map((f) => f.cell)).toEqual(['proxy+h2+intercept']);
    expect(failures[0].message).toMatch(/2\.0\d× the baseline's \(limit 1\.2×/);
    expect(checkRegression(cells, stored, { maxRatio: 3, alpha: 0.05 })).toEqual([]);
  });
});

describe('effects', () => {
  it('pairs cells that differ in one setting and says which way it goes', async () => {
    const { effects } = await import('../../src/lab/analyze.js');
    const cells = analyze(
      ['direct+h2', 'direct+h1', 'proxy+h1+intercept', 'proxy+h1+intercept+nagle'],
      [
        ...[100, 101, 99, 102, 98].map((v) => run('direct+h2', v)),
        ...[200, 201, 199, 202, 198].map((v) => run('direct+h1', v)),
        ...[210, 211, 209, 212, 208].map((v) => run('proxy+h1+intercept', v)),
        ...[400, 401, 399, 402, 398].map((v) => run('proxy+h1+intercept+nagle', v)),
      ],
      { baseline: 'direct', alpha: 0.05 },
    );
    const e = effects(cells, 0.05);
    const by = (d: string) => e.filter((x) => x.dimension === d);
    expect(by('http2').map((x) => [x.cell, x.versus])).toEqual([['direct+h2', 'direct+h1']]);
    expect(by('http2')[0].comparison).toMatchObject({ ratio: 0.5, significant: true });
    expect(by('nagle').map((x) => [x.cell, x.versus])).toEqual([['proxy+h1+intercept+nagle', 'proxy+h1+intercept']]);
    expect(by('nagle')[0].comparison.ratio).toBeGreaterThan(1.8);
    expect(by('proxy').map((x) => [x.cell, x.versus])).toEqual([['proxy+h1+intercept', 'direct+h1']]);
    expect(by('intercept')).toEqual([]); // no tunnel cell ran
  });
});
