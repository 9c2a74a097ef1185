/** A watched rules file: edits apply to the next request; a bad edit keeps the old rules and says why. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { curl, httpOrigin, tempDataDir, testProxy, type Origin, type TestProxy } from '../proxy/harness.js';
import { watchRulesFile, type WatchedRules } from '../../src/rules/load-file.js';
import { mirror } from './rules-harness.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-rules-reload-'));
const file = path.join(dir, 'rules.json');
const mockRules = (body: string) =>
  JSON.stringify({ version: 1, rules: [{ id: 'm', match: { path: '/m' }, actions: [{ type: 'mock', body }] }] });
const reports: ({ rules: number } | { error: Error })[] = [];

let origin: Origin;
let tp: TestProxy;
let watched: WatchedRules;

beforeAll(async () => {
  fs.writeFileSync(file, mockRules('one'));
  fs.writeFileSync(path.join(dir, 'body.html'), '<p>from a file</p>');
  watched = watchRulesFile(file, (r) => reports.push(r), 20);
  origin = await httpOrigin(mirror);
  tp = await testProxy({ dataDir: tempDataDir(), rules: watched.holder });
});
afterAll(async () => {
  watched.close();
  await tp.stop();
  await origin.close();
});

const get = async () => (await curl(['-x', tp.proxy.address.url, `${origin.url}/m`])).stdout;
const until = async (cond: () => boolean) => {
  const end = Date.now() + 5000;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
};

describe('rules file reload', () => {
  it('applies a good edit, keeps the old rules on a bad one, and takes the next good one', async () => {
    expect(await get()).toBe('one');
    fs.writeFileSync(file, mockRules('two, longer'));
    await until(() => reports.length >= 1);
    expect(reports[0]).toEqual({ rules: 1 });
    expect(await get()).toBe('two, longer');

    fs.writeFileSync(
      file,
      JSON.stringify({ version: 1, rules: [{ id: 'm', match: { path: '/m' }, actions: [{ type: 'mock', status: 'bad' }] }] }),
    );
    await until(() => reports.length >= 2);
    const bad = reports[1] as { error: Error & { code: string } };
    expect(bad.error.code).toBe('NL_RULES_INVALID');
    expect(bad.error.message).toContain('rules[0] (id "m"): actions[0].status must be integer');
    expect(await get()).toBe('two, longer');

    fs.writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        rules: [
          { id: 'f', match: { path: '/m' }, actions: [{ type: 'mock', bodyFile: 'body.html', headers: { 'Content-Type': 'text/html' } }] },
        ],
      }),
    );
    await until(() => reports.length >= 3);
    expect(await get()).toBe('<p>from a file</p>');
  });
});
