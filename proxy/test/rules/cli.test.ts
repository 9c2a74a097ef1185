/** `netlens proxy --rules FILE`: a bad file stops it naming rule and field; a good one mocks, and an edit is picked up live. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../cli/run-cli.js';
import { curl, httpOrigin } from '../proxy/harness.js';
import { mirror } from './rules-harness.js';

const BIN = path.join(import.meta.dirname, '..', '..', '..', 'bin', 'netlens.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-rules-cli-'));
const mock = (body: string) =>
  JSON.stringify({ version: 1, rules: [{ id: 'm', name: 'cli mock', match: { path: '/m' }, actions: [{ type: 'mock', body }] }] });

describe('netlens proxy --rules', () => {
  it('refuses to start on an invalid or unreadable rules file, naming the rule and field', async () => {
    const bad = path.join(dir, 'bad.json');
    fs.writeFileSync(
      bad,
      JSON.stringify({ version: 1, rules: [{ id: 'x', name: 'broken', match: {}, actions: [{ type: 'delay', before: 'soon', ms: 1 }] }] }),
    );
    const r = await cli(['proxy', '--port', '0', '--data-dir', dir, '--rules', bad]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('rules[0] ("broken", id "x"): actions[0].before must be one of "request", "response"');
    expect(r.err).toContain('[NL_RULES_INVALID]');
    const missing = await cli(['proxy', '--port', '0', '--data-dir', dir, '--rules', path.join(dir, 'nope.json')]);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('[NL_RULES_FILE]');
  });

  it('applies the rules and reloads them when the file changes', async () => {
    const origin = await httpOrigin(mirror);
    const file = path.join(dir, 'rules.json');
    fs.writeFileSync(file, mock('first'));
    const child = spawn(process.execPath, [BIN, 'proxy', '--port', '0', '--data-dir', dir, '--rules', file], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const wait = async (cond: () => boolean) => {
      const deadline = Date.now() + 20_000;
      while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    };
    try {
      await wait(() => /listening on http:\/\/127\.0\.0\.1:\d+/.test(out));
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!;
      expect(err).toContain(`Rules: 1 rule from ${file}`);
      expect((await curl(['-x', url, `${origin.url}/m`])).stdout).toBe('first');
      await wait(() => out.includes(`${origin.url}/m`));
      expect(out).toContain(`GET     ${origin.url}/m 200`);
      expect(out).toMatch(/\[mocked, rules: m\]/);
      fs.writeFileSync(file, mock('second, edited'));
      await wait(() => err.includes(`${file} reloaded: 1 rule`));
      expect((await curl(['-x', url, `${origin.url}/m`])).stdout).toBe('second, edited');
      fs.writeFileSync(file, '{ not json');
      await wait(() => err.includes('was not applied'));
      expect(err).toContain('[NL_RULES_FILE]');
      expect((await curl(['-x', url, `${origin.url}/m`])).stdout).toBe('second, edited');
    } finally {
      child.kill('SIGKILL');
      await origin.close();
    }
  });
});
