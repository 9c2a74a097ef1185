/** Rules files: validation errors name the rule and the field; good files pass; loading reports file problems. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { rulesProblems, validateRules } from '../../src/rules/validate.js';
import { readRulesFile } from '../../src/rules/load-file.js';
import { ErrorCodes } from '../../src/errors.js';

const file = (rules: unknown[]) => ({ version: 1, rules });
const rule = (extra: object) => ({
  id: 'r1',
  name: 'my rule',
  match: {},
  actions: [{ type: 'delay', before: 'request', ms: 1 }],
  ...extra,
});

describe('rules validation', () => {
  it('accepts one of each action', () => {
    const ok = file([
      rule({
        id: 'a',
        match: { method: ['GET', 'post'], host: '*.example.com', path: { regex: '^/api/' }, query: { q: true, v: '1' } },
        actions: [{ type: 'mock', status: 204 }],
      }),
      rule({
        id: 'b',
        match: { headers: [{ name: 'X-A', regex: '^y' }], filter: 'method:GET -png' },
        actions: [{ type: 'rewriteRequest', url: { host: 'h', port: 81, path: '/x' }, headers: { set: { A: 'b' } } }],
      }),
      rule({
        id: 'c',
        actions: [
          {
            type: 'rewriteResponse',
            status: 500,
            addCors: true,
            stripCacheControl: true,
            injectScript: '/x.js',
            body: { jsonMergePatch: { a: null } },
          },
        ],
      }),
      rule({
        id: 'd',
        actions: [
          { type: 'throttle', profile: 'slow-4g' },
          { type: 'delay', before: 'response', ms: 10 },
        ],
      }),
      rule({ id: 'e', actions: [{ type: 'fault', fault: 'truncate', bytes: 10 }] }),
    ]);
    expect(rulesProblems(ok)).toEqual([]);
  });

  it('names the rule and the field of each schema problem', () => {
    const bad = file([
      rule({}),
      rule({
        id: 'two',
        name: 'second',
        actions: [
          { type: 'mock', status: 'x' },
          { type: 'fault', fault: 'explode' },
        ],
      }),
    ]);
    const problems = rulesProblems(bad);
    expect(problems).toContainEqual({ rule: 'rules[1] ("second", id "two")', field: 'actions[0].status', message: 'must be integer' });
    expect(problems.find((p) => p.field === 'actions[1].fault')?.message).toMatch(/must be one of "close"/);
    expect(problems.every((p) => p.rule.startsWith('rules[1]'))).toBe(true);
  });

  it('reports unknown fields, missing fields and unknown action types by name', () => {
    const problems = rulesProblems(
      file([
        { id: 'x', match: { hots: 'a' }, actions: [{ type: 'teleport' }] },
        { match: {}, actions: [] },
      ]),
    );
    const text = problems.map((p) => `${p.rule}: ${p.field} ${p.message}`).join('\n');
    expect(text).toContain('rules[0] (id "x"): match.hots has an unknown field "hots"');
    expect(text).toContain('rules[0] (id "x"): actions[0].type must be one of');
    expect(text).toContain('rules[1] (no id): id is missing');
    expect(text).toContain('rules[1] (no id): actions must NOT have fewer than 1 items');
  });

  it('checks what a schema cannot: regexes, unique ids, profiles, filter keys', () => {
    const problems = rulesProblems(
      file([
        rule({ id: 'a', match: { path: { regex: '(' } } }),
        rule({ id: 'a', actions: [{ type: 'throttle', profile: 'dialup' }] }),
        rule({ id: 'c', match: { filter: 'status:404' } }),
      ]),
    );
    const text = problems.map((p) => `${p.rule}: ${p.field} ${p.message}`).join('\n');
    expect(text).toMatch(/rules\[0\] \("my rule", id "a"\): match\.path\.regex is not a valid regular expression/);
    expect(text).toContain('rules[1] ("my rule", id "a"): id repeats the id of rules[0]');
    expect(text).toContain('actions[0].profile is not a known profile');
    expect(text).toContain('rules[2] ("my rule", id "c"): match.filter "status:" is not a request field');
  });

  it('throws NL_RULES_INVALID with every problem in the message', () => {
    try {
      validateRules(file([rule({ actions: [{ type: 'delay', before: 'later', ms: -1 }] })]), 'r.json');
      expect.unreachable();
    } catch (err) {
      expect((err as { code: string }).code).toBe(ErrorCodes.RULES_INVALID);
      expect((err as Error).message).toContain('r.json has 2 problems');
      expect((err as Error).message).toContain('actions[0].before');
      expect((err as Error).message).toContain('actions[0].ms');
    }
  });

  it('reports unreadable, non-JSON files and missing mock bodyFiles as NL_RULES_FILE / NL_RULES_INVALID naming the file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-rules-'));
    const missing = path.join(dir, 'none.json');
    expect(() => readRulesFile(missing)).toThrow(
      expect.objectContaining({ code: ErrorCodes.RULES_FILE, message: expect.stringContaining(missing) }),
    );
    const notJson = path.join(dir, 'bad.json');
    fs.writeFileSync(notJson, '{"version": 1,');
    expect(() => readRulesFile(notJson)).toThrow(
      expect.objectContaining({ code: ErrorCodes.RULES_FILE, message: expect.stringContaining('is not JSON') }),
    );
    const noBody = path.join(dir, 'nobody.json');
    fs.writeFileSync(noBody, JSON.stringify(file([rule({ id: 'm', actions: [{ type: 'mock', bodyFile: 'gone.txt' }] })])));
    expect(() => readRulesFile(noBody)).toThrow(
      expect.objectContaining({ code: ErrorCodes.RULES_INVALID, message: expect.stringContaining('actions[0].bodyFile') }),
    );
  });
});
