import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../cli/run-cli.js';
import { chromePath } from '../browser/chrome-available.js';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nl-labcli-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('netlens lab / site / record: usage errors', () => {
  it('rejects contradictory or bad flags with exit 2 and a reason', async () => {
    let r = await cli(['lab', '--url', 'https://example.com/', '--images', '5']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/cannot be combined with --url/);
    r = await cli(['lab', '--cells', 'proxy+h3']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--cells: unknown cell "proxy\+h3"/);
    r = await cli(['lab', '--runs', '0']);
    expect(r.code).toBe(2);
    const bad = path.join(dir, 'bad-budget.json');
    fs.writeFileSync(bad, '{"direct+h2": {"speed": {"median": 1}}}');
    r = await cli(['lab', '--budget', bad]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown metric "speed"/);
    r = await cli(['record']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/give the URL/);
    r = await cli(['record', 'file:///etc/passwd']);
    expect(r.code).toBe(2);
    r = await cli(['site', '--images', 'many']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--images must be a whole number/);
  });

  it('refuses a --baseline-cell that is not being run, and bad --runs, before any page load (issue 15)', async () => {
    let r = await cli(['lab', '--cells', 'proxy+h1+intercept+nagle', '--baseline-cell', 'proxy+h1+intercept', '--images', '1']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /--baseline-cell: baseline cell "proxy\+h1\+intercept" is not among the cells being run \(proxy\+h1\+intercept\+nagle\)/,
    );
    r = await cli(['lab', '--cells', 'proxy+h1', '--baseline-cell', 'direct+h1']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/not among the cells being run/);
    r = await cli(['lab', '--cells', 'direct+h2', '--baseline-cell', 'proxy+h9']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--baseline-cell: unknown cell "proxy\+h9"/);
    r = await cli(['lab', '--baseline-cell', 'proxy+h2']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/exactly one cell .*matches proxy\+h2\+intercept, /);
    for (const runs of ['0', '-1', '1001', '99999999999999999999', '1.5', 'five']) {
      r = await cli(['lab', `--runs=${runs}`, '--cells', 'direct+h2']);
      expect(r.code, runs).toBe(2);
      expect(r.err).toMatch(/--runs must be a whole number between 1 and 1000/);
    }
    r = await cli(['lab', '--images', '100001']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--images must be a whole number between 0 and 100000/);
  });

  it('documents its flags in --help', async () => {
    const r = await cli(['lab', '--help']);
    expect(r.code).toBe(0);
    for (const f of [
      '--url',
      '--images',
      '--cells',
      '--runs',
      '--latency',
      '--out',
      '--json',
      '--budget',
      '--baseline',
      'lab report DIR',
      '--html',
    ])
      expect(r.out).toContain(f);
    expect(r.out).toContain('5 runs 0.0079');
  });
});

describe.skipIf(!chromePath)('netlens lab in CI mode (real Chromium)', () => {
  it('prints the table, writes results, and exits 1 with a readable reason when over budget', async () => {
    const out = path.join(dir, 'run');
    const budget = path.join(dir, 'budget.json');
    // A budget no real page load can meet (0.001 ms), and one it always meets.
    fs.writeFileSync(budget, JSON.stringify({ 'direct+h2': { loadMs: { median: 0.001 }, onLoadMs: { max: 1e9 } } }));
    const r = await cli([
      'lab',
      '--images',
      '4',
      '--cells',
      'direct+h2',
      '--runs',
      '2',
      '--quiet-ms',
      '100',
      '--out',
      out,
      '--budget',
      budget,
      '--data-dir',
      path.join(dir, 'data'),
    ]);
    expect(r.err).toMatch(/FAIL direct\+h2: loadMs median [\d.]+ ms exceeds the budget of 0\.001 ms/);
    expect(r.err).not.toMatch(/onLoadMs/);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/direct\+h2\s+2\/2/);
    expect(fs.existsSync(path.join(out, 'results.json'))).toBe(true);

    // The same run as its own baseline: no significant regression → exit 0; --json prints results.json.
    const again = await cli([
      'lab',
      '--images',
      '4',
      '--cells',
      'direct+h2',
      '--runs',
      '2',
      '--quiet-ms',
      '100',
      '--baseline',
      path.join(out, 'results.json'),
      '--max-ratio',
      '5',
      '--json',
      '--data-dir',
      path.join(dir, 'data'),
    ]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.out)).toMatchObject({ schemaVersion: 1, cells: [{ id: 'direct+h2' }] });
  }, 60_000);
});
