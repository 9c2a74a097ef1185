/** A mock answering with a recorded HAR response: served over real sockets, and checked when the rules load. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { curl, httpOrigin, tempDataDir, testProxy, type Origin, type TestProxy } from '../proxy/harness.js';
import { RulesHolder } from '../../src/rules/engine.js';
import { readRulesFile } from '../../src/rules/load-file.js';
import { rulesProblems } from '../../src/rules/validate.js';
import { ErrorCodes } from '../../src/errors.js';
import type { Rule } from '../../src/rules/types.js';
import { harOf, mirror } from './rules-harness.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-har-mock-'));
const entry = (method: string, url: string, status: number, headers: [string, string][], content: object) => ({
  request: { method, url, headers: [] },
  response: { status, headers: headers.map(([name, value]) => ({ name, value })), content },
});
const har = {
  log: {
    version: '1.2',
    entries: [
      entry('POST', 'https://api.test/user?id=7', 201, [['content-type', 'text/plain']], { text: 'posted' }),
      entry(
        'GET',
        'https://api.test/user?id=7',
        404,
        [
          ['content-type', 'application/json'],
          ['Content-Encoding', 'gzip'],
          ['content-length', '999'],
          ['x-recorded', 'yes'],
        ],
        { mimeType: 'application/json', text: '{"error":"no such user"}' },
      ),
      entry('GET', 'https://api.test/logo.png', 200, [['content-type', 'image/png']], { encoding: 'base64', text: 'iVBORw0KGgo=' }),
    ],
  },
};
fs.mkdirSync(path.join(dir, 'recorded'));
fs.writeFileSync(path.join(dir, 'recorded', 'api.har'), JSON.stringify(har));

const writeRules = (name: string, rules: Rule[]) => {
  const f = path.join(dir, name);
  fs.writeFileSync(f, JSON.stringify({ version: 1, rules }));
  return f;
};

let origin: Origin;
let tp: TestProxy;
const holder = new RulesHolder();

beforeAll(async () => {
  origin = await httpOrigin(mirror);
  tp = await testProxy({ dataDir: tempDataDir(), rules: holder });
});
afterAll(async () => {
  await tp.stop();
  await origin.close();
});

describe('mock from a HAR entry', () => {
  it('answers with the recorded status, headers and body of the first entry with that URL and method', async () => {
    const file = writeRules('rules.json', [
      {
        id: 'user',
        match: { path: '/user' },
        actions: [{ type: 'mock', har: { file: 'recorded/api.har', url: 'https://api.test/user?id=7' } }],
      },
      {
        id: 'user-get',
        match: { path: '/user-get' },
        actions: [{ type: 'mock', har: { file: 'recorded/api.har', url: 'https://api.test/user?id=7', method: 'get' } }],
      },
      {
        id: 'logo',
        match: { path: '/logo' },
        actions: [
          {
            type: 'mock',
            status: 203,
            headers: { 'Content-Type': 'image/x-test' },
            har: { file: 'recorded/api.har', url: 'https://api.test/logo.png' },
          },
        ],
      },
    ]);
    // Relative to the rules file's directory, not the working directory.
    holder.set(readRulesFile(file), dir);
    const before = origin.connections;
    const n = tp.exchanges().length;

    const first = await curl(['-x', tp.proxy.address.url, '-i', `${origin.url}/user`]);
    expect(first.stdout).toMatch(/^HTTP\/1\.1 201/);
    expect(first.stdout.endsWith('\r\n\r\nposted')).toBe(true);

    const get = await curl(['-x', tp.proxy.address.url, '-i', `${origin.url}/user-get`]);
    expect(get.stdout).toMatch(/^HTTP\/1\.1 404/);
    expect(get.stdout).toMatch(/x-recorded: yes/i);
    // HAR text is decoded: the recorded coding and length are not repeated; the proxy sets the length.
    expect(get.stdout).not.toMatch(/content-encoding/i);
    expect(get.stdout).toMatch(/content-length: 24\r\n/i);
    expect(get.stdout.endsWith('{"error":"no such user"}')).toBe(true);

    // Base64 content is sent as bytes; the action's own status and headers win over the recorded ones.
    const logo = await curl(['-x', tp.proxy.address.url, '-D', '-', '-o', path.join(dir, 'logo.out'), `${origin.url}/logo`]);
    expect(logo.stdout).toMatch(/^HTTP\/1\.1 203/);
    expect(logo.stdout).toMatch(/content-type: image\/x-test/i);
    expect(logo.stdout).not.toMatch(/image\/png/);
    expect(fs.readFileSync(path.join(dir, 'logo.out')).toString('base64')).toBe('iVBORw0KGgo=');

    await tp.waitFor(n + 3);
    expect(origin.connections).toBe(before);
    expect(harOf(tp.exchanges().at(-1)!)._mocked).toBe(true);
  });

  it('a HAR changed since the rules loaded is read again; one removed answers 500 NL_RULES_FILE naming the rule', async () => {
    const harFile = path.join(dir, 'changing.har');
    fs.writeFileSync(harFile, JSON.stringify({ log: { entries: [entry('GET', 'http://x.test/', 200, [], { text: 'v1' })] } }));
    const file = writeRules('changing.json', [
      { id: 'changing', match: { path: '/c' }, actions: [{ type: 'mock', har: { file: 'changing.har', url: 'http://x.test/' } }] },
    ]);
    holder.set(readRulesFile(file), dir);
    const get = async () => (await curl(['-x', tp.proxy.address.url, '-w', ' %{http_code}', `${origin.url}/c`])).stdout;
    expect(await get()).toBe('v1 200');
    fs.writeFileSync(harFile, JSON.stringify({ log: { entries: [entry('GET', 'http://x.test/', 200, [], { text: 'version 2' })] } }));
    expect(await get()).toBe('version 2 200');
    fs.rmSync(harFile);
    const n = tp.exchanges().length;
    expect(await get()).toMatch(/^Netlens: Rule "changing": har changing\.har \(http:\/\/x\.test\/\) cannot be used: .*ENOENT.* 500$/s);
    await tp.waitFor(n + 1);
    expect(tp.exchanges().at(-1)!.error?.code).toBe(ErrorCodes.RULES_FILE);
  });

  it('refuses at load a missing file, a URL with no entry, a file that is not a HAR, naming the rule and field', () => {
    fs.writeFileSync(path.join(dir, 'not-har.json'), '{"hello": 1}');
    const file = writeRules('bad.json', [
      { id: 'gone', match: {}, actions: [{ type: 'mock', har: { file: 'gone.har', url: 'https://api.test/' } }] },
      { id: 'nourl', match: {}, actions: [{ type: 'mock', har: { file: 'recorded/api.har', url: 'https://api.test/nothing' } }] },
      {
        id: 'nomethod',
        match: {},
        actions: [{ type: 'mock', har: { file: 'recorded/api.har', url: 'https://api.test/logo.png', method: 'PUT' } }],
      },
      { id: 'nothar', match: {}, actions: [{ type: 'mock', har: { file: 'not-har.json', url: 'https://api.test/' } }] },
    ]);
    let message = '';
    try {
      readRulesFile(file);
    } catch (err) {
      expect((err as { code: string }).code).toBe(ErrorCodes.RULES_INVALID);
      message = (err as Error).message;
    }
    expect(message).toContain('has 4 problems');
    expect(message).toContain(`rules[0] (id "gone"): actions[0].har.file ${path.join(dir, 'gone.har')} cannot be read: ENOENT`);
    expect(message).toContain(
      'rules[1] (id "nourl"): actions[0].har.url https://api.test/nothing is not the URL of any entry in recorded/api.har',
    );
    expect(message).toContain('rules[2] (id "nomethod"): actions[0].har.url https://api.test/logo.png (PUT) is not the URL of any entry');
    expect(message).toContain('rules[3] (id "nothar"): actions[0].har.file not-har.json is not a HAR (no log.entries)');
  });

  it('the schema wants file and url, and one body source per mock', () => {
    const problems = rulesProblems({
      version: 1,
      rules: [
        { id: 'a', match: {}, actions: [{ type: 'mock', har: { file: 'x.har' } }] },
        { id: 'b', match: {}, actions: [{ type: 'mock', body: 'x', har: { file: 'x.har', url: 'http://x/' } }] },
        { id: 'c', match: {}, actions: [{ type: 'mock', har: { file: 'x.har', url: 'http://x/', index: 2 } }] },
      ],
    });
    expect(problems).toEqual([
      { rule: 'rules[0] (id "a")', field: 'actions[0].har.url', message: 'is missing' },
      {
        rule: 'rules[1] (id "b")',
        field: 'actions[0]',
        message: 'has more than one of body, bodyFile and har; a mock takes its body from one',
      },
      { rule: 'rules[2] (id "c")', field: 'actions[0].har.index', message: 'has an unknown field "index"' },
    ]);
  });
});
