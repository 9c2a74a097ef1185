/** JSON-path body matching: the path language, the matcher on parsed bodies, validation, and the 1 MiB bound over a socket. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileJsonPath, selectJson } from '../../src/rules/json-path.js';
import { CompiledRules } from '../../src/rules/engine.js';
import { rulesProblems } from '../../src/rules/validate.js';
import type { JsonBodyCondition, Rule } from '../../src/rules/types.js';
import { curl, httpOrigin, tempDataDir, testProxy, type Origin, type TestProxy } from '../proxy/harness.js';
import { holderWith, mirror } from './rules-harness.js';

describe('JSON paths', () => {
  it('compiles names, quoted names, indices and wildcards', () => {
    expect(compileJsonPath(`$.user['first name']["x\\"y"][0][-1][*].*`)).toEqual([
      { key: 'user' },
      { key: 'first name' },
      { key: 'x"y' },
      { index: 0 },
      { index: -1 },
      { any: true },
      { any: true },
    ]);
    expect(compileJsonPath('$')).toEqual([]);
  });

  it('refuses what it does not know, saying where', () => {
    expect(() => compileJsonPath('user.id')).toThrow('must start with $');
    expect(() => compileJsonPath('$.')).toThrow('expected a name after "." at character 3 of "$."');
    expect(() => compileJsonPath('$[?(@.a)]')).toThrow('expected [*], [number] or a quoted name in brackets at character 2');
    expect(() => compileJsonPath('$..a')).toThrow('expected a name after "."');
  });

  it('selects every value reached, none when a step does not apply', () => {
    const doc = { items: [{ sku: 'a' }, { sku: 'b' }, { other: 1 }], n: null };
    expect(selectJson(doc, compileJsonPath('$.items[*].sku'))).toEqual(['a', 'b']);
    expect(selectJson(doc, compileJsonPath('$.items[-1].other'))).toEqual([1]);
    expect(selectJson(doc, compileJsonPath('$.n'))).toEqual([null]);
    expect(selectJson(doc, compileJsonPath('$.items.sku'))).toEqual([]);
    expect(selectJson(doc, compileJsonPath('$.items[5]'))).toEqual([]);
    expect(selectJson('text', compileJsonPath('$.a'))).toEqual([]);
  });
});

describe('the body.json matcher', () => {
  const matches = (json: JsonBodyCondition, body: string | null) =>
    new CompiledRules({
      version: 1,
      rules: [{ id: 'j', match: { body: { json } }, actions: [{ type: 'delay', before: 'request', ms: 1 }] }],
    }).evaluate({
      method: 'POST',
      url: new URL('http://a.test/'),
      headers: [],
      httpVersion: 'http/1.1',
      body: body === null ? null : Buffer.from(body),
    }) !== undefined;
  const user = JSON.stringify({ user: { id: 42, name: 'Ada', tags: ['x', 'admin'], meta: { a: [1, { b: 2 }] } } });

  it('equals any JSON value (objects by content, in any key order)', () => {
    expect(matches({ path: '$.user.id', equals: 42 }, user)).toBe(true);
    expect(matches({ path: '$.user.id', equals: '42' }, user)).toBe(false);
    expect(matches({ path: '$.user.meta', equals: { a: [1, { b: 2 }] } }, user)).toBe(true);
    expect(matches({ path: '$.user.meta', equals: { a: [1, { b: 3 }] } }, user)).toBe(false);
    expect(matches({ path: '$.user.tags[*]', equals: 'admin' }, user)).toBe(true);
  });

  it('exists (the default) and exists: false', () => {
    expect(matches({ path: '$.user.name' }, user)).toBe(true);
    expect(matches({ path: '$.user.email' }, user)).toBe(false);
    expect(matches({ path: '$.user.email', exists: false }, user)).toBe(true);
    expect(matches({ path: '$.user.name', exists: false }, user)).toBe(false);
  });

  it('regex on strings and on numbers as their text, never on objects', () => {
    expect(matches({ path: '$.user.name', regex: '^A' }, user)).toBe(true);
    expect(matches({ path: '$.user.id', regex: '^4\\d$' }, user)).toBe(true);
    expect(matches({ path: '$.user.meta', regex: '.' }, user)).toBe(false);
  });

  it('a body that is not JSON, empty, or absent (over the bound) never matches, not even exists: false', () => {
    for (const body of ['user=42', '{"user":', '', null]) {
      expect(matches({ path: '$.user' }, body)).toBe(false);
      expect(matches({ path: '$.user', exists: false }, body)).toBe(false);
    }
  });
});

describe('body.json validation', () => {
  const problems = (json: unknown) =>
    rulesProblems({ version: 1, rules: [{ id: 'j', name: 'by user', match: { body: { json } }, actions: [{ type: 'mock' }] }] });

  it('names the rule and the field of a bad path, regex or contradiction', () => {
    expect(problems({ path: 'user.id', equals: 1 })).toEqual([
      {
        rule: 'rules[0] ("by user", id "j")',
        field: 'match.body.json.path',
        message: 'is not a JSON path this matcher knows: must start with $ (e.g. "$.user.id")',
      },
    ]);
    expect(problems({ path: '$.a', regex: '(' })[0]).toMatchObject({
      field: 'match.body.json.regex',
      message: expect.stringContaining('not a valid regular expression'),
    });
    expect(problems({ path: '$.a', exists: false, equals: 1 })[0]).toMatchObject({ field: 'match.body.json.exists' });
    expect(problems({ equals: 1 })).toEqual([
      { rule: 'rules[0] ("by user", id "j")', field: 'match.body.json.path', message: 'is missing' },
    ]);
    expect(problems({ path: '$.a', contains: 'x' })[0]).toMatchObject({
      field: 'match.body.json.contains',
      message: 'has an unknown field "contains"',
    });
    expect(problems({ path: '$.a', equals: null })).toEqual([]);
  });
});

describe('body.json over a socket', () => {
  let origin: Origin;
  let tp: TestProxy;
  const rules: Rule[] = [
    {
      id: 'admin',
      match: { method: 'POST', body: { json: { path: '$.role', equals: 'admin' } } },
      actions: [{ type: 'mock', body: 'caught' }],
    },
  ];
  beforeAll(async () => {
    origin = await httpOrigin(mirror);
    tp = await testProxy({ dataDir: tempDataDir(), rules: holderWith(rules) });
  });
  afterAll(async () => {
    await tp.stop();
    await origin.close();
  });
  const post = (args: string[]) => curl(['-x', tp.proxy.address.url, '-H', 'content-type: application/json', ...args, `${origin.url}/j`]);

  it('matches a JSON body, forwards others intact, and never matches a body over the 1 MiB read bound', async () => {
    expect((await post(['--data', '{"role":"admin"}'])).stdout).toBe('caught');
    expect(JSON.parse((await post(['--data', '{"role":"user"}'])).stdout).body).toBe('{"role":"user"}');
    expect(JSON.parse((await post(['--data', 'role=admin'])).stdout).body).toBe('role=admin');
    const big = path.join(tempDataDir(), 'big.json');
    fs.writeFileSync(big, JSON.stringify({ pad: 'x'.repeat(1_100_000), role: 'admin' }));
    const passed = JSON.parse((await post(['--data-binary', `@${big}`])).stdout);
    expect(passed.body.length).toBe(fs.statSync(big).size);
  });
});
