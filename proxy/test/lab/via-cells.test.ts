/**
 * Via cells (page loads through an external proxy): naming, validation, the
 * CLI's --via flag, and how they enter statistics and effects. No browser.
 */
import { describe, expect, it } from 'vitest';
import { analyze, effects } from '../../src/lab/analyze.js';
import { ALL_CELLS, baselineFor, cellId, cellSettings, isCellId, parseCells } from '../../src/lab/cells.js';
import { checkBudget, parseBudget } from '../../src/lab/checks.js';
import { formatTable } from '../../src/lab/report.js';
import { resolveLabConfig } from '../../src/lab/runner.js';
import type { CellId, LabResult, RunMeasurement } from '../../src/lab/types.js';
import { parseViaFlag, validateVia } from '../../src/lab/via.js';
import { cli } from '../cli/run-cli.js';

const site = { kind: 'site', images: 3, latencyMs: 0 } as const;
const mitm = { name: 'mitm', url: 'http://127.0.0.1:8081' };
const corp = { name: 'corp-1', url: 'http://proxy.example:3128' };

describe('via cell ids', () => {
  it('exist only for the names given, with settings that say which proxy', () => {
    expect(isCellId('via-mitm+h2', ['mitm'])).toBe(true);
    expect(isCellId('via-mitm+h1', ['mitm'])).toBe(true);
    expect(isCellId('via-mitm+h2')).toBe(false);
    expect(isCellId('via-other+h2', ['mitm'])).toBe(false);
    expect(isCellId('via-mitm+h3', ['mitm'])).toBe(false);
    expect(isCellId('via-mitm+h2+nagle', ['mitm'])).toBe(false);
    expect(cellSettings('via-corp-1+h1')).toEqual({ proxy: true, http2: false, intercept: false, nagle: false, via: 'corp-1' });
    for (const id of ['via-mitm+h2', 'via-corp-1+h1'] as CellId[]) expect(cellId(cellSettings(id))).toBe(id);
    // The built-in cells are untouched: same 10, same order, no via setting.
    expect(ALL_CELLS).toHaveLength(10);
    expect(ALL_CELLS.every((c) => cellSettings(c).via === undefined)).toBe(true);
  });

  it('parses lists: exact ids, "via", "via-NAME", protocol parts, "all"; rejects via cells of unknown proxies', () => {
    const names = ['mitm', 'corp-1'];
    expect(parseCells('via', names)).toEqual(['via-mitm+h2', 'via-mitm+h1', 'via-corp-1+h2', 'via-corp-1+h1']);
    expect(parseCells('via-corp-1', names)).toEqual(['via-corp-1+h2', 'via-corp-1+h1']);
    expect(parseCells('via+h1', names)).toEqual(['via-mitm+h1', 'via-corp-1+h1']);
    expect(parseCells('via-mitm+h2,direct+h2', names)).toEqual(['direct+h2', 'via-mitm+h2']); // built-in cells first
    expect(parseCells('h2+tunnel', names)).toEqual(['proxy+h2+tunnel', 'proxy+h2+tunnel+nagle']);
    expect(parseCells('proxy', names).some((c) => c.startsWith('via'))).toBe(false); // "proxy" means Netlens
    expect(parseCells('all', names)).toEqual([...ALL_CELLS, 'via-mitm+h2', 'via-mitm+h1', 'via-corp-1+h2', 'via-corp-1+h1']);
    expect(parseCells('all')).toEqual(ALL_CELLS);
    expect(() => parseCells('via-nope+h2', names)).toThrow(
      /unknown cell "via-nope\+h2" \(external proxies given: mitm, corp-1\)\. Valid cells: .*via-mitm\+h2/,
    );
    expect(() => parseCells('via')).toThrow(/via cells need their external proxy: --via NAME=URL/);
  });

  it('compares a via cell with the direct cell of its protocol', () => {
    expect(baselineFor('via-mitm+h2', 'direct')).toBe('direct+h2');
    expect(baselineFor('via-mitm+h1', 'direct')).toBe('direct+h1');
    expect(baselineFor('via-mitm+h1', 'via-mitm+h2')).toBe('via-mitm+h2');
  });
});

describe('external proxy validation', () => {
  it('accepts good names and http://host:port, normalising the URL', () => {
    expect(validateVia([mitm, corp])).toEqual([mitm, corp]);
    expect(validateVia([{ name: 'x', url: 'http://localhost' }])).toEqual([{ name: 'x', url: 'http://localhost:80' }]);
    expect(validateVia([{ name: '9', url: 'http://[::1]:8080/' }])).toEqual([{ name: '9', url: 'http://[::1]:8080' }]);
    expect(parseViaFlag('mitm=http://127.0.0.1:8081')).toEqual(mitm);
  });

  it.each([
    ['Upper', 'http://127.0.0.1:1', /name "Upper" is not valid/],
    ['-lead', 'http://127.0.0.1:1', /name "-lead" is not valid/],
    ['a'.repeat(33), 'http://127.0.0.1:1', /is not valid/],
    ['has+plus', 'http://127.0.0.1:1', /is not valid/],
    ['ok', 'https://127.0.0.1:1', /has scheme https; give the address of an HTTP proxy/],
    ['ok', 'socks5://127.0.0.1:1', /has scheme socks5/],
    ['ok', '127.0.0.1:8080', /is not a URL \(it needs http:\/\/\)/],
    ['ok', 'http://u:p@127.0.0.1:1', /carries credentials/],
    ['ok', 'http://127.0.0.1:1/path', /has a path/],
    ['ok', 'not a url', /is not a URL/],
  ])('rejects name %j with url %j', (name, url, message) => {
    expect(() => validateVia([{ name, url }])).toThrow(message);
    try {
      validateVia([{ name, url }]);
    } catch (err) {
      expect((err as { code: string }).code).toBe('NL_USAGE');
    }
  });

  it('rejects duplicate names and --via without NAME=', () => {
    expect(() => validateVia([mitm, { ...mitm, url: 'http://127.0.0.1:9' }])).toThrow(/"mitm" is given twice/);
    expect(() => parseViaFlag('http://127.0.0.1:8081')).toThrow(/--via takes NAME=URL/);
    expect(() => parseViaFlag('=http://127.0.0.1:8081')).toThrow(/--via takes NAME=URL/);
  });
});

describe('resolveLabConfig with via', () => {
  it('adds both cells of every external proxy when the list names no via cell', () => {
    expect(resolveLabConfig({ target: site, cells: ['direct+h2'], via: [mitm, corp] }).cells).toEqual([
      'direct+h2',
      'via-mitm+h2',
      'via-mitm+h1',
      'via-corp-1+h2',
      'via-corp-1+h1',
    ]);
    const all = resolveLabConfig({ target: site, via: [mitm] });
    expect(all.cells).toEqual([...ALL_CELLS, 'via-mitm+h2', 'via-mitm+h1']);
    expect(all.via).toEqual([mitm]);
  });

  it('keeps an explicit choice of via cells, and leaves configs without via as before', () => {
    expect(resolveLabConfig({ target: site, cells: ['via-mitm+h1', 'direct+h1'], via: [mitm, corp] }).cells).toEqual([
      'direct+h1',
      'via-mitm+h1',
    ]);
    const plain = resolveLabConfig({ target: site, cells: ['direct+h2'] });
    expect(plain.cells).toEqual(['direct+h2']);
    expect('via' in plain).toBe(false);
  });

  it('rejects via cells of proxies not given, and bad proxies, with NL_USAGE', () => {
    expect(() => resolveLabConfig({ target: site, cells: ['via-mitm+h2'] })).toThrow(/unknown cell "via-mitm\+h2"/);
    expect(() => resolveLabConfig({ target: site, cells: ['via-x+h2'], via: [mitm] })).toThrow(
      expect.objectContaining({ code: 'NL_USAGE' }),
    );
    expect(() => resolveLabConfig({ target: site, via: [{ name: 'Bad', url: 'http://127.0.0.1:1' }] })).toThrow(
      expect.objectContaining({ code: 'NL_USAGE' }),
    );
  });
});

function run(cell: CellId, loadMs: number): RunMeasurement {
  return { cell, round: 0, sequence: 0, startedAt: '', ok: true, loadMs, onLoadMs: loadMs, ttfbMeanMs: 1, ttfbMedianMs: 1 };
}

describe('via cells in statistics', () => {
  const ids: CellId[] = ['direct+h2', 'direct+h1', 'proxy+h2+tunnel', 'proxy+h1+tunnel', 'via-mitm+h2', 'via-mitm+h1'];
  const cells = analyze(
    ids,
    [
      ...[100, 101, 99, 102, 98].map((v) => run('direct+h2', v)),
      ...[200, 201, 199, 202, 198].map((v) => run('direct+h1', v)),
      ...[110, 111, 109, 112, 108].map((v) => run('proxy+h2+tunnel', v)),
      ...[210, 211, 209, 212, 208].map((v) => run('proxy+h1+tunnel', v)),
      ...[300, 301, 299, 302, 298].map((v) => run('via-mitm+h2', v)),
      ...[600, 601, 599, 602, 598].map((v) => run('via-mitm+h1', v)),
    ],
    { baseline: 'direct', alpha: 0.05 },
  );

  it('compares via cells with the direct cell of the same protocol', () => {
    const by = (id: string) => cells.find((c) => c.id === id)!;
    expect(by('via-mitm+h2').comparisons.loadMs).toMatchObject({ baseline: 'direct+h2', ratio: 3, significant: true });
    expect(by('via-mitm+h1').comparisons.loadMs).toMatchObject({ baseline: 'direct+h1', ratio: 3 });
  });

  it('pairs a via cell only with its own other protocol, never with a Netlens cell', () => {
    const e = effects(cells, 0.05);
    const viaPairs = e.filter((x) => x.cell.startsWith('via') || x.versus.startsWith('via'));
    expect(viaPairs.map((x) => [x.dimension, x.cell, x.versus])).toEqual([['http2', 'via-mitm+h2', 'via-mitm+h1']]);
    expect(viaPairs[0].comparison.ratio).toBe(0.5);
    // The Netlens pairs are still there.
    expect(e.some((x) => x.cell === 'proxy+h2+tunnel' && x.versus === 'proxy+h1+tunnel')).toBe(true);
  });

  it('budgets accept via cells of the proxies given', () => {
    expect(() => parseBudget({ 'via-mitm+h2': { loadMs: { median: 1 } } })).toThrow(/unknown cell "via-mitm\+h2"/);
    const budget = parseBudget({ 'via-mitm+h2': { loadMs: { median: 250 } } }, ['mitm']);
    expect(checkBudget(cells, budget).map((f) => f.message)).toEqual(['via-mitm+h2: loadMs median 300.0 ms exceeds the budget of 250 ms']);
  });

  it('a cell with no successful run says so instead of claiming to be a baseline', () => {
    const failed = cells.map((c) =>
      c.id === 'via-mitm+h1' ? { ...c, runs: c.runs.map((r) => ({ ...r, ok: false })), stats: {}, comparisons: {} } : c,
    );
    const result = {
      config: { target: site, runs: 5, seed: 1, baseline: 'direct', alpha: 0.05 },
      url: 'https://127.0.0.1:1/',
      expectedRequests: 7,
      aborted: false,
      cells: failed,
      effects: [],
    } as unknown as LabResult;
    const table = formatTable(result);
    expect(table).toMatch(/via-mitm\+h1\s+0\/5 .*no successful run/);
    expect(table).toMatch(/direct\+h1 .*baseline/);
  });

  it('the table names each external proxy and says it is warm', () => {
    const result = {
      config: { target: site, runs: 5, seed: 1, baseline: 'direct', alpha: 0.05 },
      url: 'https://127.0.0.1:1/',
      expectedRequests: 7,
      aborted: false,
      cells,
      effects: effects(cells, 0.05),
      via: [{ ...mitm, leafSpkiHash: 'x', intercepts: true, note: 'n' }],
    } as unknown as LabResult;
    const table = formatTable(result);
    expect(table).toMatch(/via-mitm: external proxy http:\/\/127\.0\.0\.1:8081 \(terminates TLS\); warm/);
    expect(table).toMatch(/via-mitm\+h1\s+5\/5\s+600/);
  });
});

describe('netlens lab --via: usage errors (exit 2)', () => {
  it.each([
    [['--via', 'http://127.0.0.1:8081'], /--via: --via takes NAME=URL/],
    [['--via', 'Mitm=http://127.0.0.1:8081'], /--via: external proxy name "Mitm" is not valid/],
    [['--via', 'mitm=https://127.0.0.1:8081'], /--via: external proxy mitm: "https:\/\/127\.0\.0\.1:8081" has scheme https/],
    [['--via', 'a=http://127.0.0.1:1', '--via', 'a=http://127.0.0.1:2'], /--via: the name "a" is given twice/],
    [['--cells', 'via-mitm+h2'], /--cells: unknown cell "via-mitm\+h2" \(via cells need their external proxy: --via NAME=URL\)/],
    [
      ['--via', 'mitm=http://127.0.0.1:1', '--cells', 'via-other+h2'],
      /--cells: unknown cell "via-other\+h2" \(external proxies given: mitm\)/,
    ],
  ])('%j', async (args, message) => {
    const r = await cli(['lab', ...args]);
    expect(r.err).toMatch(message);
    expect(r.code).toBe(2);
  });

  it('documents --via in --help', async () => {
    const r = await cli(['lab', '--help']);
    expect(r.out).toMatch(/--via NAME=URL/);
    expect(r.out).toMatch(/via-NAME\+h2/);
  });
});
