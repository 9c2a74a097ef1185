/** Issue 15 item 7: run history (list, read, delete, compare; damaged results.json never break the list) and the HTML report. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareRuns, headlines, LabHistory } from '../../src/lab/history.js';
import { buildHtmlReport } from '../../src/lab/html-report.js';
import { parseLabResult } from '../../src/lab/result-file.js';
import { cli } from '../cli/run-cli.js';
import { fakeResult, WALKTHROUGH } from './fake-result.js';
import { writeRun } from './write-run.js';

let root: string;
let labDir: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'nl-labhist-'));
  labDir = path.join(root, 'lab');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const older = fakeResult(WALKTHROUGH, { startedAt: '2026-11-23T09:00:00.000Z', withHars: true });
const newer = fakeResult(
  [
    { cell: 'direct+h2', loadMs: [1000, 1010, 990, 1005, 995], ttfbMs: [75, 74, 76, 77, 73] },
    { cell: 'proxy+h2+intercept', loadMs: [1020, 1015, 1010, 1030, 1025], ttfbMs: [80, 81, 79, 82, 78] },
  ],
  { startedAt: '2026-11-23T11:00:00.000Z', withHars: true },
);

describe('parseLabResult', () => {
  it('accepts a result and names what is wrong with broken ones', () => {
    expect(parseLabResult(JSON.stringify(older)).cells).toHaveLength(2);
    const text = JSON.stringify(older);
    expect(() => parseLabResult(text.slice(0, text.length / 2))).toThrow(/not valid JSON \(cut short\?\)/);
    expect(() => parseLabResult('[]')).toThrow(/the file is not an object/);
    expect(() => parseLabResult(JSON.stringify({ ...older, schemaVersion: 99 }))).toThrow(/schemaVersion is 99/);
    expect(() => parseLabResult(JSON.stringify({ ...older, cells: 'x' }))).toThrow(/"cells" is not a list/);
    const noRuns = { ...older, cells: [{ ...older.cells[0], runs: [null] }] };
    expect(() => parseLabResult(JSON.stringify(noRuns))).toThrow(/cell direct\+h2: runs\[0\] is not an object/);
    const badCmp = {
      ...older,
      cells: [{ ...older.cells[1], comparisons: { loadMs: { ...older.cells[1]!.comparisons.loadMs, ratio: 'x' } } }],
    };
    expect(() => parseLabResult(JSON.stringify(badCmp))).toThrow(/comparisons\.loadMs "ratio" is not a number/);
    expect(() => parseLabResult(JSON.stringify({ ...older, startedAt: 'yesterday' }))).toThrow(/"startedAt" is not a date/);
    // NaN (a ratio against a zero median) is written as null by JSON.stringify: read back as NaN, not refused.
    const nan = {
      ...older,
      cells: [older.cells[0], { ...older.cells[1], comparisons: { loadMs: { ...older.cells[1]!.comparisons.loadMs, ratio: NaN } } }],
    };
    expect(Number.isNaN(parseLabResult(JSON.stringify(nan)).cells[1]!.comparisons.loadMs!.ratio)).toBe(true);
  });
});

describe('LabHistory', () => {
  it('lists good runs newest first with their headlines, and damaged ones with the reason', async () => {
    writeRun(path.join(labDir, '2026-11-23T09-00-00-000Z-1'), older);
    writeRun(path.join(labDir, '2026-11-23T11-00-00-000Z-2'), newer);
    fs.mkdirSync(path.join(labDir, '2026-11-23T12-00-00-000Z-3'));
    fs.writeFileSync(path.join(labDir, '2026-11-23T12-00-00-000Z-3', 'results.json'), '{"schemaVersion": 1, "cells": [');
    fs.mkdirSync(path.join(labDir, '2026-11-23T13-00-00-000Z-4')); // interrupted: no results.json
    fs.mkdirSync(path.join(labDir, '2026-11-23T14-00-00-000Z-5'));
    fs.writeFileSync(path.join(labDir, '2026-11-23T14-00-00-000Z-5', 'results.json'), JSON.stringify({ schemaVersion: 1, config: {} }));
    fs.writeFileSync(path.join(labDir, 'stray-file.txt'), 'not a run');
    const h = new LabHistory(labDir);
    const list = await h.list();
    expect(list.map((e) => e.runId)).toHaveLength(5);
    const ok = list.filter((e) => e.state === 'ok');
    expect(ok.map((e) => e.runId)).toEqual(['2026-11-23T11-00-00-000Z-2', '2026-11-23T09-00-00-000Z-1']);
    expect(ok[1]).toMatchObject({
      target: 'test site, 2 images, 0 ms latency',
      cells: ['direct+h2', 'proxy+h2+intercept'],
      runs: 5,
      noisyCells: ['proxy+h2+intercept'],
    });
    expect(ok[1]!.state === 'ok' && ok[1]!.headlines).toEqual(['proxy+h2+intercept: TTFB slower than direct+h2 (large)']);
    const damaged = Object.fromEntries(
      list.filter((e) => e.state === 'damaged').map((e) => [e.runId, e.state === 'damaged' ? e.reason : '']),
    );
    expect(damaged['2026-11-23T12-00-00-000Z-3']).toMatch(/not valid JSON/);
    expect(damaged['2026-11-23T13-00-00-000Z-4']).toMatch(/no results\.json/);
    expect(damaged['2026-11-23T14-00-00-000Z-5']).toMatch(/config\.target/);
    // Skipped (in progress) runs are left out; a missing lab dir is an empty history.
    expect((await h.list(new Set(['2026-11-23T13-00-00-000Z-4']))).length).toBe(4);
    expect(await new LabHistory(path.join(root, 'none')).list()).toEqual([]);
  });

  it('reads, deletes, and refuses ids that leave the directory', async () => {
    const h = new LabHistory(labDir);
    expect((await h.read('2026-11-23T09-00-00-000Z-1')).startedAt).toBe(older.startedAt);
    await expect(h.read('../etc')).rejects.toMatchObject({ code: 'NL_API_BAD_REQUEST' });
    await expect(h.read('2026-11-23T12-00-00-000Z-3')).rejects.toMatchObject({ code: 'NL_LAB_RESULT_INVALID' });
    expect(await h.remove('2026-11-23T12-00-00-000Z-3')).toBe(true);
    expect(await h.remove('2026-11-23T12-00-00-000Z-3')).toBe(false);
    expect((await h.list()).length).toBe(4);
  });
});

describe('compareRuns', () => {
  it('compares two runs of the same target cell by cell on load time and TTFB', () => {
    const c = compareRuns({ runId: 'a', result: older }, { runId: 'b', result: newer });
    expect(c.cells.map((x) => x.cell)).toEqual(['direct+h2', 'proxy+h2+intercept']);
    const ttfb = c.cells[1]!.metrics.find((m) => m.metric === 'ttfbMedianMs')!;
    expect(ttfb.a).toBe(486);
    expect(ttfb.b).toBe(80);
    expect(ttfb.comparison!.ratio).toBeCloseTo(80 / 486, 3);
    expect(ttfb.comparison!.p).toBeCloseTo(2 / 252, 6);
    expect(c.cells[0]!.metrics[0]!.comparison!.significant).toBe(false);
  });

  it('refuses runs of different targets', () => {
    const other = fakeResult(WALKTHROUGH, { target: { kind: 'site', images: 50, latencyMs: 0 } });
    expect(() => compareRuns({ runId: 'a', result: older }, { runId: 'c', result: other })).toThrow(/different targets/);
  });

  it('headlines list only significant verdicts, bounded', () => {
    expect(headlines(newer)).toEqual([
      'proxy+h2+intercept: load slower than direct+h2 (large)',
      'proxy+h2+intercept: TTFB slower than direct+h2 (large)',
    ]);
    expect(headlines(newer, 1)).toEqual(['proxy+h2+intercept: load slower than direct+h2 (large)', '… 1 more']);
  });
});

describe('HTML report', () => {
  it('is one self-contained file: tables, SVG charts, waterfalls, machine; no script, no external reference', async () => {
    const { html } = await buildHtmlReport(path.join(labDir, '2026-11-23T09-00-00-000Z-1'));
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(|\b(src|href)=/i);
    expect(html).toContain("default-src 'none'");
    expect(html).toContain('<table>');
    expect(html.match(/<svg class="chart"/g)).toHaveLength(2);
    expect(html.match(/<svg class="wf"/g)).toHaveLength(2);
    expect(html).toContain('slower than direct+h2 (large)');
    expect(html).toMatch(/noisy, CV \d+%/);
    expect(html).toContain('Chromium 156');
    expect(html).toContain('Test CPU');
  });

  it('escapes what came from the page and says when a HAR is missing', async () => {
    const evil = fakeResult(WALKTHROUGH, { target: { kind: 'url', url: 'https://x.test/<script>alert(1)</script>' }, withHars: true });
    const dir = writeRun(path.join(root, 'evil'), evil, false);
    const { html } = await buildHtmlReport(dir);
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;');
    expect(html).toMatch(/cannot be read/);
  });

  it('netlens lab report DIR --html FILE writes it; a damaged directory is exit 1 with the reason; bad usage exit 2', async () => {
    const out = path.join(root, 'report.html');
    let r = await cli(['lab', 'report', path.join(labDir, '2026-11-23T09-00-00-000Z-1'), '--html', out]);
    expect(r.err).toMatch(/Report: .*report\.html/);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/proxy\+h2\+intercept\s+5\/5/);
    expect(fs.readFileSync(out, 'utf8')).toContain('<svg class="wf"');
    fs.mkdirSync(path.join(root, 'broken'));
    fs.writeFileSync(path.join(root, 'broken', 'results.json'), '{"schemaVersion":1,');
    r = await cli(['lab', 'report', path.join(root, 'broken')]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/not valid JSON .*NL_LAB_RESULT_INVALID/);
    r = await cli(['lab', 'report', path.join(root, 'nothing-here')]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/has no results\.json/);
    r = await cli(['lab', 'report']);
    expect(r.code).toBe(2);
    r = await cli(['lab', 'report', labDir, '--runs', '3']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/only --html/);
    r = await cli(['lab', 'rapport']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown subcommand "rapport"/);
  });
});
