import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropPageref, parseHar } from '../../src/har/reader.js';
import { scanHarFile } from '../../src/har/stream-reader.js';
import type { HarEntry } from '../../src/har/types.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/har');
const ALL = fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.har'));

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-stream-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function scan(file: string) {
  const entries: HarEntry[] = [];
  const r = await scanHarFile(file, (e) => entries.push(e));
  for (const e of entries) if (typeof e.pageref === 'string' && r.danglingPagerefs.has(e.pageref)) dropPageref(e, e.pageref);
  return { ...r, entryList: entries };
}

const sortIssues = <T extends { path: string; message: string }>(l: T[]) =>
  [...l].sort((a, b) => (a.path + a.message).localeCompare(b.path + b.message));

describe('scanHarFile reads like parseHar, one entry at a time', () => {
  it.each(ALL)('%s: same entries, warnings and errors', async (name) => {
    const file = path.join(FIXTURES, name);
    const whole = parseHar(fs.readFileSync(file, 'utf8'));
    const streamed = await scan(file);
    expect(streamed.errors.length > 0).toBe(whole.errors.length > 0);
    if (whole.har) {
      expect(streamed.entryList).toEqual(whole.har.log.entries);
      const { entries: _e, ...head } = whole.har.log;
      const { entries: _s, ...streamedHead } = streamed.log!;
      expect(streamedHead).toEqual(head);
      expect(sortIssues(streamed.warnings)).toEqual(sortIssues(whole.warnings));
    }
  });

  const cases: Array<[string, string, RegExp]> = [
    ['empty', '  \n', /empty/],
    ['not JSON', 'hello', /^not valid JSON at line 1, column 1/],
    ['bad token on line 3', '{"log":\n {"entries":\n  [x]}}', /^not valid JSON at line 3, column 4/],
    ['truncated', '{"log": {"entries": [{"request": {', /^truncated/],
    ['an array', '[1, 2]', /JSON array/],
    ['no log', '{"foo": 1}', /^log: missing/],
    ['no entries', '{"log": {"version": "1.2"}}', /^log\.entries: missing/],
    ['entries not an array', '{"log": {"entries": {"a": 1}}}', /^log\.entries: must be an array/],
    [
      'entry without response',
      '{"log": {"entries": [{"request": {"method": "GET", "url": "http://a/"}}]}}',
      /^log\.entries\[0\]\.response: missing/,
    ],
    ['data after the HAR', '{"log": {"entries": []}} {"log": 1}', /more data after the end/],
  ];
  it.each(cases)('%s → a named error', async (_name, text, expected) => {
    const file = path.join(dir, 'case.har');
    fs.writeFileSync(file, text);
    const r = await scan(file);
    expect(r.log).toBeUndefined();
    const e = r.errors[0];
    expect(`${e.path ? `${e.path}: ` : ''}${e.message}`).toMatch(expected);
  });

  it('stops after the first few bad entries and calls onEntry for none after an error', async () => {
    const good = { request: { method: 'GET', url: 'http://a/' }, response: { status: 200 } };
    const entries = [good, {}, good, ...Array.from({ length: 50 }, () => ({}))];
    const file = path.join(dir, 'many-bad.har');
    fs.writeFileSync(file, JSON.stringify({ log: { entries } }));
    const seen: number[] = [];
    const r = await scanHarFile(file, (_e, i) => seen.push(i));
    expect(r.errors[0].path).toBe('log.entries[1].request');
    expect(r.errors.length).toBe(10);
    expect(seen).toEqual([0]);
  });
});
