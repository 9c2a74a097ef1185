import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CoreService } from '../../src/api/core-service.js';
import { startHttpTransport, type HttpTransport } from '../../src/api/http-transport.js';
import type { Rule, RulesState } from '../../src/api/contract.js';
import type { RulesHolder } from '../../src/rules/engine.js';
import { fakeProxy, type FakeProxy } from './helpers.js';
import { fakeBackends } from './fake-backends.js';

const TOKEN = 'test-token-rules-0123456789';
let dir: string;
let service: CoreService;
let transport: HttpTransport;
let proxy: FakeProxy;

async function open(): Promise<void> {
  proxy = fakeProxy();
  service = new CoreService({ ...fakeBackends(), dataDir: dir, startProxy: proxy.start, batchMs: 50 });
  await service.startProxy();
  transport = await startHttpTransport({ service, token: TOKEN, staticDir: dir });
}

async function close(): Promise<void> {
  await transport.close();
  await service.close();
}

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-rules-api-'));
  await open();
});

afterEach(async () => {
  await close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function call(
  name: string,
  args?: unknown,
): Promise<{ status: number; ok: boolean; result: unknown; error?: { code: string; message: string } }> {
  const res = await fetch(`http://127.0.0.1:${transport.port}/api/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: args === undefined ? '' : JSON.stringify(args),
  });
  return { status: res.status, ...((await res.json()) as { ok: boolean; result: unknown }) };
}

async function ok<T>(name: string, args?: unknown): Promise<T> {
  const r = await call(name, args);
  expect(r.error?.message ?? '', name).toBe('');
  return r.result as T;
}

const mock: Rule = {
  id: 'm1',
  name: 'fake user',
  match: { method: 'GET', host: 'api.test', path: '/user' },
  actions: [{ type: 'mock', status: 201, headers: { 'Content-Type': 'application/json' }, body: '{"mocked":true}' }],
};

/** Evaluates the rules the running (fake) proxy was handed, as the real one does per request. */
function evaluate(holder: RulesHolder | undefined, url: string) {
  return holder?.current?.evaluate({ method: 'GET', url: new URL(url), headers: [], httpVersion: 'http/1.1', body: null });
}

describe('rules commands over HTTP', () => {
  it('starts empty, then setRules applies to the running proxy at once and counts hits per rule', async () => {
    const empty = await ok<RulesState>('getRules');
    expect(empty).toEqual({ rules: [], hits: {} });
    const set = await ok<RulesState>('setRules', { rules: [mock] });
    expect(set.rules.map((r) => r.id)).toEqual(['m1']);
    expect(set.file).toBe(path.join(dir, 'rules.json'));
    const holder = proxy.starts[0]!.rules;
    expect(evaluate(holder, 'http://api.test/user')?.mock?.status).toBe(201);
    expect(evaluate(holder, 'http://api.test/other')).toBeUndefined();
    expect(evaluate(holder, 'http://api.test/user')?.hits).toEqual([{ id: 'm1', name: 'fake user', actions: ['mock'] }]);
    expect((await ok<RulesState>('getRules')).hits).toEqual({ m1: 2 });
  });

  it('keeps a rule’s hit count when it is disabled and enabled again; a disabled rule no longer matches', async () => {
    await ok('setRules', { rules: [mock] });
    const holder = proxy.starts[0]!.rules;
    evaluate(holder, 'http://api.test/user');
    const off = await ok<RulesState>('setRules', { rules: [{ ...mock, enabled: false }] });
    expect(off.hits).toEqual({ m1: 1 });
    expect(evaluate(holder, 'http://api.test/user')).toBeUndefined();
    await ok('setRules', { rules: [mock] });
    evaluate(holder, 'http://api.test/user');
    expect((await ok<RulesState>('getRules')).hits).toEqual({ m1: 2 });
  });

  it('refuses an invalid rule with NL_RULES_INVALID naming the rule and the field, and keeps the rules in force', async () => {
    await ok('setRules', { rules: [mock] });
    const bad = { ...mock, id: 'b2', name: 'broken', actions: [{ type: 'mock', status: 'ok' }] };
    const r = await call('setRules', { rules: [mock, bad] });
    expect(r.ok).toBe(false);
    expect(r.error?.code).toBe('NL_RULES_INVALID');
    expect(r.error?.message).toContain('rules[1] ("broken", id "b2"): actions[0].status must be integer');
    const dup = await call('setRules', { rules: [mock, mock] });
    expect(dup.error?.message).toContain('rules[1] ("fake user", id "m1"): id repeats the id of rules[0]');
    const notArray = await call('setRules', { rules: 'x' });
    expect([notArray.status, notArray.error?.code]).toEqual([400, 'NL_API_BAD_REQUEST']);
    expect((await ok<RulesState>('getRules')).rules.map((r) => r.id)).toEqual(['m1']);
  });

  it("setRules resolves a mock's har file from the data directory and refuses a URL the HAR does not have", async () => {
    const entries = [
      { request: { method: 'GET', url: 'https://a.test/' }, response: { status: 200, headers: [], content: { text: 'hi' } } },
    ];
    fs.writeFileSync(path.join(dir, 'rec.har'), JSON.stringify({ log: { entries } }));
    const har = (url: string): Rule => ({ id: 'h', match: {}, actions: [{ type: 'mock', har: { file: 'rec.har', url } }] });
    await ok('setRules', { rules: [har('https://a.test/')] });
    const r = await call('setRules', { rules: [har('https://a.test/other')] });
    expect(r.error?.code).toBe('NL_RULES_INVALID');
    expect(r.error?.message).toBe('rules[0] (id "h"): actions[0].har.url https://a.test/other is not the URL of any entry in rec.har');
    expect((await ok<RulesState>('getRules')).rules[0]!.actions).toEqual([
      { type: 'mock', har: { file: 'rec.har', url: 'https://a.test/' } },
    ]);
  });

  it('a proxy restart keeps the rules (the same holder is handed to the new proxy)', async () => {
    await ok('setRules', { rules: [mock] });
    await ok('configureProxy', { nagle: true });
    expect(proxy.starts).toHaveLength(2);
    expect(evaluate(proxy.starts[1]!.rules, 'http://api.test/user')?.mock?.body).toBe('{"mocked":true}');
  });

  it('keeps the rules in <dataDir>/rules.json: a new core (the app launched again) starts with them', async () => {
    await ok('setRules', { rules: [mock, { id: 'slow', match: {}, actions: [{ type: 'delay', before: 'request', ms: 5 }] }] });
    await close();
    await open();
    const state = await ok<RulesState>('getRules');
    expect(state.rules.map((r) => r.id)).toEqual(['m1', 'slow']);
    expect(evaluate(proxy.starts[0]!.rules, 'http://api.test/user')?.mock?.status).toBe(201);
  });

  it('a damaged rules.json does not stop the core: it starts without rules and getRules says why', async () => {
    await close();
    fs.writeFileSync(path.join(dir, 'rules.json'), '{"version":1,"rules":[{"id":"x"}]}');
    await open();
    const state = await ok<RulesState>('getRules');
    expect(state.rules).toEqual([]);
    expect(state.loadError?.code).toBe('NL_RULES_INVALID');
    expect(state.loadError?.message).toContain('match is missing');
  });

  it('exportRules gives a rules file importRules takes back; a file that is not JSON is NL_RULES_FILE', async () => {
    await ok('setRules', { rules: [mock] });
    const file = await ok<{ fileName: string; text: string }>('exportRules');
    expect(file.fileName).toBe('netlens-rules.json');
    expect(JSON.parse(file.text)).toEqual({ version: 1, rules: [mock] });
    await ok('setRules', { rules: [] });
    const back = await ok<RulesState>('importRules', { fileName: file.fileName, text: file.text });
    expect(back.rules).toEqual([mock]);
    const notJson = await call('importRules', { fileName: 'x.json', text: '{nope' });
    expect(notJson.error?.code).toBe('NL_RULES_FILE');
    expect(notJson.error?.message).toMatch(/^x\.json is not JSON/);
    const wrong = await call('importRules', { fileName: 'y.json', text: '{"version":2,"rules":[]}' });
    expect(wrong.error?.code).toBe('NL_RULES_INVALID');
    expect(wrong.error?.message).toContain('y.json has 1 problem');
  });

  it('an imported HAR keeps which rules touched each entry (_rules, _mocked) in its rows and details', async () => {
    const entry = (url: string, extra: Record<string, unknown>) => ({
      startedDateTime: '2026-01-01T00:00:00.000Z',
      time: 1,
      request: { method: 'GET', url, httpVersion: 'HTTP/1.1', headers: [], queryString: [], cookies: [], headersSize: -1, bodySize: 0 },
      response: {
        status: 200,
        statusText: 'OK',
        httpVersion: 'HTTP/1.1',
        headers: [],
        cookies: [],
        content: { size: 2, mimeType: 'text/plain', text: 'ok' },
        redirectURL: '',
        headersSize: -1,
        bodySize: 2,
      },
      cache: {},
      timings: { send: 0, wait: 1, receive: 0 },
      ...extra,
    });
    const har = {
      log: {
        version: '1.2',
        creator: { name: 'test', version: '1' },
        entries: [
          entry('http://api.test/user', {
            _rules: [
              { id: 'm1', name: 'fake user', actions: ['mock'] },
              { bogus: 1 },
              { id: 'rw', actions: ['rewriteResponse'], note: 'skipped' },
            ],
            _mocked: true,
          }),
          entry('http://api.test/other', { _rules: 'not a list', _mocked: 'yes' }),
        ],
      },
    };
    const info = await ok<{ id: string }>('importHar', { fileName: 'ruled.har', text: JSON.stringify(har) });
    const opened = await ok<{ rows: Array<{ mocked?: boolean }> }>('openSession', { id: info.id });
    expect(opened.rows.map((r) => r.mocked)).toEqual([true, undefined]);
    const mocked = await ok<{ rules?: unknown; mocked?: boolean }>('getSessionEntry', { id: info.id, index: 0 });
    expect([mocked.rules, mocked.mocked]).toEqual([
      [
        { id: 'm1', name: 'fake user', actions: ['mock'] },
        { id: 'rw', actions: ['rewriteResponse'], note: 'skipped' },
      ],
      true,
    ]);
    const plain = await ok<{ rules?: unknown; mocked?: boolean }>('getSessionEntry', { id: info.id, index: 1 });
    expect([plain.rules, plain.mocked]).toEqual([undefined, undefined]);
  });
});
