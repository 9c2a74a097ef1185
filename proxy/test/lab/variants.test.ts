/**
 * Lab variants (`--variant NAME=FILE`): parsing and cell naming, the CLI's checks before any run,
 * and a real short lab run (Chromium, the proxy child, the test site) where a variant that delays
 * every image is slower than its base cell side by side, and its exchanges carry `_rules` in the HARs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cellId, cellSettings } from '../../src/lab/cells.js';
import { effects } from '../../src/lab/analyze.js';
import { resolveLabConfig, runLab } from '../../src/lab/runner.js';
import type { CellResult, LabResult } from '../../src/lab/types.js';
import { loadVariant, parseVariantCell, parseVariantFlag, withVariantCells } from '../../src/lab/variants.js';
import type { RulesFile } from '../../src/rules/types.js';
import { chromePath } from '../browser/chrome-available.js';
import { cli } from '../cli/run-cli.js';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nl-labvariant-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const SLOW_IMAGES: RulesFile = {
  version: 1,
  rules: [{ id: 'slow-img', match: { path: '/img/**' }, actions: [{ type: 'delay', before: 'response', ms: 300 }] }],
};

function writeRules(name: string, content: unknown): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('variant specs and cell names', () => {
  it('parses NAME=FILE and refuses bad names or missing files', () => {
    expect(parseVariantFlag('slow-img=rules/a=b.json')).toEqual({ name: 'slow-img', file: 'rules/a=b.json' });
    expect(() => parseVariantFlag('slow')).toThrow(/not NAME=FILE/);
    expect(() => parseVariantFlag('Slow=x.json')).toThrow(/variant name "Slow"/);
    expect(() => parseVariantFlag('a~b=x.json')).toThrow(/variant name/);
    expect(() => parseVariantFlag('slow=')).toThrow(/names no rules file/);
  });

  it('adds <cell>~NAME after each proxy cell only, and the settings round-trip', () => {
    const cells = withVariantCells(['direct+h2', 'proxy+h2+intercept', 'proxy+h1+tunnel', 'via-x+h2'], [{ name: 'a' }, { name: 'b' }]);
    expect(cells).toEqual([
      'direct+h2',
      'proxy+h2+intercept',
      'proxy+h2+intercept~a',
      'proxy+h2+intercept~b',
      'proxy+h1+tunnel',
      'proxy+h1+tunnel~a',
      'proxy+h1+tunnel~b',
      'via-x+h2',
    ]);
    expect(cellSettings('proxy+h1+tunnel~a')).toEqual({ ...cellSettings('proxy+h1+tunnel'), variant: 'a' });
    expect(cellId(cellSettings('proxy+h2+intercept~b'))).toBe('proxy+h2+intercept~b');
    expect(parseVariantCell('proxy+h2+intercept~b')).toEqual({ base: 'proxy+h2+intercept', name: 'b' });
    expect(parseVariantCell('proxy+h2+intercept')).toBeUndefined();
  });

  it('the resolved config runs the variant cells and keeps name, file and rules', () => {
    const file = writeRules('slow.json', SLOW_IMAGES);
    const resolved = resolveLabConfig({
      target: { kind: 'site', images: 1, latencyMs: 0 },
      cells: ['direct+h2', 'proxy+h2+intercept'],
      variants: [loadVariant('slow', file)],
    });
    expect(resolved.cells).toEqual(['direct+h2', 'proxy+h2+intercept', 'proxy+h2+intercept~slow']);
    expect(resolved.variants).toEqual([{ name: 'slow', file, rules: SLOW_IMAGES }]);
    const directOnly = { target: { kind: 'site' as const, images: 1, latencyMs: 0 }, cells: ['direct+h2' as const] };
    const variants = [loadVariant('slow', file)];
    expect(() => resolveLabConfig({ ...directOnly, variants })).toThrow(/variants apply to the Netlens proxy cells/);
  });

  it('effects compare each variant cell with its base cell', () => {
    const cell = (id: CellResult['id'], loads: number[]): CellResult => ({
      id,
      settings: cellSettings(id),
      stats: {},
      comparisons: {},
      noisyBaseline: false,
      runs: loads.map((loadMs, i) => ({ cell: id, round: i, sequence: i, startedAt: '', ok: true, loadMs })),
    });
    const out = effects([cell('proxy+h2+intercept', [100, 101, 102, 103]), cell('proxy+h2+intercept~slow', [400, 401, 402, 403])], 0.05);
    expect(out).toEqual([expect.objectContaining({ dimension: 'variant', cell: 'proxy+h2+intercept~slow', versus: 'proxy+h2+intercept' })]);
    expect(out[0].comparison.ratio).toBeGreaterThan(3);
    expect(out[0].comparison.cliffsDelta).toBe(1);
  });
});

describe('netlens lab --variant: checks before any run', () => {
  it('a bad spec is a usage error (exit 2)', async () => {
    let r = await cli(['lab', '--variant', 'nofile', '--cells', 'proxy+h2+intercept']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--variant: "nofile" is not NAME=FILE/);
    const file = writeRules('ok.json', SLOW_IMAGES);
    r = await cli(['lab', '--variant', `a=${file}`, '--variant', `a=${file}`]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/the name "a" is given twice/);
    r = await cli(['lab', '--variant', `a=${file}`, '--cells', 'direct+h2']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/variants apply to the Netlens proxy cells/);
  });

  it('an unreadable or invalid rules file stops the lab with NL_RULES_FILE / NL_RULES_INVALID naming the variant', async () => {
    let r = await cli(['lab', '--variant', `gone=${path.join(dir, 'missing.json')}`, '--cells', 'proxy+h2+intercept']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/variant "gone": Cannot read the rules file .*\[NL_RULES_FILE\]/s);
    const badRule = { id: 'x', match: {}, actions: [{ type: 'delay', before: 'later', ms: 1 }] };
    const bad = writeRules('bad.json', { version: 1, rules: [badRule] });
    r = await cli(['lab', '--variant', `bad=${bad}`, '--cells', 'proxy+h2+intercept']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/variant "bad": .*\[NL_RULES_INVALID\]/s);
    expect(r.err).not.toMatch(/Lab: /); // no run started
  });
});

describe.skipIf(!chromePath)('a variant in a real lab run', () => {
  let result: LabResult;
  let file: string;
  const BASE = 'proxy+h2+intercept';
  const VARIANT = 'proxy+h2+intercept~slow';
  beforeAll(async () => {
    file = writeRules('slow-run.json', SLOW_IMAGES);
    const variant = loadVariant('slow', file);
    // The file changes after loading: the runs must apply what was validated, not re-read it.
    fs.writeFileSync(file, '{ "broken": ');
    result = await runLab(
      {
        target: { kind: 'site', images: 4, latencyMs: 10 },
        cells: [BASE],
        variants: [variant],
        runs: 3,
        quietMs: 200,
        timeoutMs: 15_000,
        seed: 5,
        outDir: path.join(dir, 'out'),
        dataDir: path.join(dir, 'data'),
        chromePath,
      },
      { signal: AbortSignal.timeout(90_000) },
    );
    expect(result.aborted).toBe(false);
  }, 120_000);

  const cell = (id: string) => result.cells.find((c) => c.id === id)!;
  const proxyHar = (r: LabResult['cells'][number]['runs'][number]) =>
    JSON.parse(fs.readFileSync(path.join(dir, 'out', r.proxyHar!), 'utf8')) as { log: { entries: Array<Record<string, unknown>> } };

  it('runs the variant cell next to its base cell, both in every shuffled round', () => {
    expect(result.cells.map((c) => c.id)).toEqual([BASE, VARIANT]);
    for (const c of result.cells)
      expect(
        c.runs.map((r) => r.error?.message ?? 'ok'),
        c.id,
      ).toEqual(['ok', 'ok', 'ok']);
    for (const round of [0, 1, 2]) {
      const cellsInRound = result.cells.flatMap((c) => c.runs.filter((r) => r.round === round).map((r) => r.cell)).sort();
      expect(cellsInRound).toEqual([BASE, VARIANT]);
    }
  });

  it('the variant (300 ms before each image response) is slower than its base cell, side by side', () => {
    const slow = cell(VARIANT).stats.loadMs!;
    const base = cell(BASE).stats.loadMs!;
    console.log(`variant slow: median load ${slow.median.toFixed(0)} ms vs ${base.median.toFixed(0)} ms without it`);
    // Measured ~+250-300 ms (the delay overlaps part of the upstream wait); 150 leaves room for a busy machine.
    expect(slow.median - base.median).toBeGreaterThan(150);
    expect(slow.min).toBeGreaterThan(base.median);
    const effect = result.effects.find((e) => e.dimension === 'variant')!;
    expect(effect).toMatchObject({ cell: VARIANT, versus: BASE });
    expect(effect.comparison.ratio).toBeGreaterThan(1);
    expect(effect.comparison.cliffsDelta).toBeGreaterThan(0.5);
  });

  it("the variant's image exchanges carry _rules in the proxy HARs; the base cell's carry none", () => {
    for (const r of cell(VARIANT).runs) {
      const images = proxyHar(r).log.entries.filter((e) => /\/img\/\d+\.png$/.test((e.request as { url: string }).url));
      expect(images.length).toBe(4);
      for (const e of images) expect(e._rules).toEqual([expect.objectContaining({ id: 'slow-img' })]);
    }
    for (const r of cell(BASE).runs) {
      for (const e of proxyHar(r).log.entries) expect(e._rules).toBeUndefined();
    }
  });

  it('results.json records each variant: name, file and the rules applied', () => {
    const stored = JSON.parse(fs.readFileSync(path.join(dir, 'out', 'results.json'), 'utf8')) as LabResult;
    expect(stored.config.variants).toEqual([{ name: 'slow', file, rules: SLOW_IMAGES }]);
    expect(stored.config.cells).toEqual([BASE, VARIANT]);
  });

  it('netlens lab report prints the stored run with the variant cell and its effect', async () => {
    const r = await cli(['lab', 'report', path.join(dir, 'out')]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(VARIANT);
    expect(r.out).toMatch(/variant on\s+proxy\+h2\+intercept~slow vs proxy\+h2\+intercept\s+\d\.\d\d×/);
  });
});
