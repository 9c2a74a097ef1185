/**
 * Budgets and baselines can name variant cells (`<cell>~<name>`, issue 18): `--budget` keys, `--baseline-cell`
 * and the runner's baseline; `--baseline results.json` compares variant cells with the same cells stored. A bad
 * variant cell name is a usage error listing the valid ones.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/lab/analyze.js';
import { cellSettings } from '../../src/lab/cells.js';
import { checkBudget, checkRegression, parseBudget } from '../../src/lab/checks.js';
import { resolveLabConfig } from '../../src/lab/runner.js';
import type { CellId, CellResult, LabResult } from '../../src/lab/types.js';
import { checkVariantCellName, loadVariant, validateVariants } from '../../src/lab/variants.js';
import { cli } from '../cli/run-cli.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nl-variant-checks-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const rulesFile = path.join(dir, 'slow.json');
fs.writeFileSync(
  rulesFile,
  JSON.stringify({ version: 1, rules: [{ id: 's', match: {}, actions: [{ type: 'delay', before: 'response', ms: 300 }] }] }),
);

function cell(id: CellId, loads: number[]): CellResult {
  const runs = loads.map((loadMs, i) => ({ cell: id, round: i, sequence: i, startedAt: '', ok: true, loadMs }));
  return analyze([id], runs, { baseline: 'direct', alpha: 0.05 })[0] ?? { id, settings: cellSettings(id), runs, stats: {} };
}

describe('variant cell names', () => {
  it('accepts <proxy cell>~<variant given>, ignores names without ~, lists the valid ones otherwise', () => {
    const cells: CellId[] = ['direct+h2', 'proxy+h2+intercept', 'proxy+h1+tunnel'];
    expect(checkVariantCellName('proxy+h1+tunnel~slow', cells, ['slow'])).toBe('proxy+h1+tunnel~slow');
    expect(checkVariantCellName('proxy+h1+tunnel', cells, ['slow'])).toBeUndefined();
    expect(() => checkVariantCellName('proxy+h2+intercept~fast', cells, ['slow', 'mock'])).toThrow(
      'unknown variant cell "proxy+h2+intercept~fast" (no variant is named "fast"; given: slow, mock). Valid variant cells: ' +
        'proxy+h2+intercept~slow, proxy+h2+intercept~mock, proxy+h1+tunnel~slow, proxy+h1+tunnel~mock',
    );
    expect(() => checkVariantCellName('direct+h2~slow', cells, ['slow'])).toThrow(
      /unknown variant cell "direct\+h2~slow"\. Valid variant cells: proxy\+h2\+intercept~slow, proxy\+h1\+tunnel~slow$/,
    );
    expect(() => checkVariantCellName('proxy+h2+intercept~slow', cells, [])).toThrow(/no variant is given \(--variant NAME=FILE\)/);
  });
});

describe('budgets on variant cells', () => {
  it('parseBudget accepts a variant cell of a variant given and refuses others, listing the valid names', () => {
    const budget = { 'proxy+h2+intercept~slow': { loadMs: { median: 200 } } };
    expect(parseBudget(budget, [], ['slow'])).toEqual(budget);
    expect(() => parseBudget(budget)).toThrow(/budget: "proxy\+h2\+intercept~slow" names a variant cell, but no variant is given/);
    expect(() => parseBudget({ 'proxy+h2+intercept~slwo': {} }, [], ['slow'])).toThrow(
      /^budget: unknown variant cell "proxy\+h2\+intercept~slwo" \(no variant is named "slwo"; given: slow\)\. Valid variant cells: .*proxy\+h2\+intercept~slow/,
    );
    expect(() => parseBudget({ 'proxy+h9': {} }, [], ['slow'])).toThrow(/budget: unknown cell "proxy\+h9"\. Valid cells: direct\+h2, /);
  });

  it('checkBudget checks a variant cell like any other', () => {
    const cells = [cell('proxy+h2+intercept', [100, 110, 120]), cell('proxy+h2+intercept~slow', [400, 410, 420])];
    const budget = parseBudget(
      { 'proxy+h2+intercept': { loadMs: { median: 200 } }, 'proxy+h2+intercept~slow': { loadMs: { median: 200 } } },
      [],
      ['slow'],
    );
    const failures = checkBudget(cells, budget);
    expect(failures.map((f) => f.cell)).toEqual(['proxy+h2+intercept~slow']);
    expect(failures[0].message).toMatch(/proxy\+h2\+intercept~slow: loadMs median 410\.0 ms exceeds the budget of 200 ms/);
  });

  it('--baseline results.json compares a variant cell with the same variant cell stored', () => {
    const stored = { cells: [cell('proxy+h2+intercept~slow', [100, 101, 102, 103, 104])] } as LabResult;
    const now = [cell('proxy+h2+intercept~slow', [400, 401, 402, 403, 404])];
    const failures = checkRegression(now, stored, { maxRatio: 1.2, alpha: 0.05 });
    expect(failures).toEqual([expect.objectContaining({ cell: 'proxy+h2+intercept~slow', metric: 'loadMs' })]);
  });
});

describe('a variant cell as the baseline cell', () => {
  const site = { kind: 'site' as const, images: 1, latencyMs: 0 };
  it('the runner accepts a variant cell being run as the baseline, and compares the others with it', () => {
    const variants = [loadVariant('slow', rulesFile)];
    const resolved = resolveLabConfig({ target: site, cells: ['proxy+h2+intercept'], variants, baseline: 'proxy+h2+intercept~slow' });
    expect(resolved.baseline).toBe('proxy+h2+intercept~slow');
    const runs = (id: CellId, ms: number) =>
      [0, 1, 2].map((i) => ({ cell: id, round: i, sequence: i, startedAt: '', ok: true, loadMs: ms + i }));
    const out = analyze(resolved.cells, [...runs('proxy+h2+intercept', 100), ...runs('proxy+h2+intercept~slow', 400)], {
      baseline: 'proxy+h2+intercept~slow',
      alpha: 0.05,
    });
    expect(out[0].comparisons.loadMs?.baseline).toBe('proxy+h2+intercept~slow');
    expect(() =>
      resolveLabConfig({ target: site, cells: ['proxy+h2+intercept'], variants, baseline: 'proxy+h2+intercept~fast' as CellId }),
    ).toThrow(
      /baseline cell "proxy\+h2\+intercept~fast" is not among the cells being run .*pick a baseline among: .*proxy\+h2\+intercept~slow/,
    );
  });

  it('netlens lab: a bad --baseline-cell or budget variant cell is a usage error listing the valid ones, before any run', async () => {
    let r = await cli([
      'lab',
      '--cells',
      'proxy+h2+intercept',
      '--variant',
      `slow=${rulesFile}`,
      '--baseline-cell',
      'proxy+h2+intercept~fast',
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /--baseline-cell: unknown variant cell "proxy\+h2\+intercept~fast" .*Valid variant cells: proxy\+h2\+intercept~slow/,
    );
    r = await cli(['lab', '--cells', 'proxy+h2+intercept', '--baseline-cell', 'proxy+h2+intercept~slow']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--baseline-cell: .*no variant is given/);
    const budget = path.join(dir, 'budget.json');
    fs.writeFileSync(budget, JSON.stringify({ 'proxy+h2+tunnel~slow': { loadMs: { median: 1 } }, 'proxy+h2+intercept~slowx': {} }));
    r = await cli(['lab', '--cells', 'proxy+h2+intercept', '--variant', `slow=${rulesFile}`, '--budget', budget]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/budget: unknown variant cell "proxy\+h2\+intercept~slowx" .*Valid variant cells: .*proxy\+h2\+intercept~slow/);
    expect(r.err).not.toMatch(/Lab: /); // no run started
  });
});

describe('variant rules', () => {
  it('refuses a variant whose enabled rule has a breakpoint (nobody can continue it in the lab), accepts it switched off', () => {
    const pause = (enabled: boolean) => ({
      version: 1,
      rules: [{ id: 'p', name: 'pause api', enabled, match: {}, actions: [{ type: 'breakpoint', on: 'request' }] }],
    });
    expect(() => validateVariants([{ name: 'paused', file: '', rules: pause(true) as never }])).toThrow(
      /variant "paused": rule "pause api" has a breakpoint/,
    );
    expect(validateVariants([{ name: 'paused', file: '', rules: pause(false) as never }])).toHaveLength(1);
  });
});
