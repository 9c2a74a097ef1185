import { describe, expect, it } from 'vitest';
import type { ExchangeDetail, ExchangeSummary, Rule } from '../../../proxy/src/api/contract';
import {
  actionSummary,
  breakpointFromExchange,
  deleteRule,
  formFromRule,
  headerRecord,
  matchFromExchange,
  matchSummary,
  mockFromExchange,
  moveRule,
  putRule,
  rewriteFromExchange,
  ruleFromForm,
  toggleRule,
  uniqueRuleId,
} from './rules-model';

const a: Rule = { id: 'a', match: {}, actions: [{ type: 'delay', before: 'request', ms: 10 }] };
const b: Rule = { id: 'b', match: { host: 'x.test' }, actions: [{ type: 'fault', fault: 'reset' }] };
const c: Rule = { id: 'c', enabled: false, match: { method: 'POST', path: { regex: '^/v\\d' } }, actions: [{ type: 'mock' }] };

describe('list edits', () => {
  it('moves a rule up and down, clamped at the ends', () => {
    expect(moveRule([a, b, c], 2, -1).map((r) => r.id)).toEqual(['a', 'c', 'b']);
    expect(moveRule([a, b, c], 0, 1).map((r) => r.id)).toEqual(['b', 'a', 'c']);
    expect(moveRule([a, b, c], 0, -1).map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect(moveRule([a, b, c], 2, 1).map((r) => r.id)).toEqual(['a', 'b', 'c']);
  });

  it('toggles, deletes and puts rules (an edit that renames keeps the position)', () => {
    expect(toggleRule([a, c], 'c')[1]!.enabled).toBe(true);
    expect(toggleRule([a, c], 'a')[0]!.enabled).toBe(false);
    expect(deleteRule([a, b, c], 'b').map((r) => r.id)).toEqual(['a', 'c']);
    expect(putRule([a, b], { ...b, id: 'b2' }, 'b').map((r) => r.id)).toEqual(['a', 'b2']);
    expect(putRule([a, b], c).map((r) => r.id)).toEqual(['a', 'b', 'c']);
  });

  it('makes unique ids from any text', () => {
    expect(uniqueRuleId([a, b], 'c')).toBe('c');
    expect(uniqueRuleId([a, b, { ...a, id: 'a-2' }], 'a')).toBe('a-3');
    expect(uniqueRuleId([], 'mock-api.test/v1/user?x')).toBe('mock-api.test-v1-user-x');
    expect(uniqueRuleId([], '///')).toBe('rule');
  });
});

describe('summaries', () => {
  it('says what a rule matches and does', () => {
    expect(matchSummary(a)).toBe('any request');
    expect(matchSummary(c)).toBe('POST /^/v\\d/');
    expect(matchSummary({ ...b, match: { host: 'x.test', query: { q: true } } })).toBe('x.test + query');
    expect(actionSummary({ type: 'mock' })).toBe('mock 200');
    expect(actionSummary({ type: 'delay', before: 'response', ms: 300 })).toBe('delay 300 ms before response');
    expect(actionSummary({ type: 'throttle', profile: 'slow-4g' })).toBe('throttle slow-4g');
    expect(actionSummary({ type: 'fault', fault: 'close' })).toBe('fault close');
    expect(actionSummary({ type: 'breakpoint', on: 'request' })).toBe('breakpoint on request');
  });
});

describe('the form', () => {
  it('round-trips the fields it shows', () => {
    const rule: Rule = {
      id: 'm',
      name: 'fake',
      match: { method: 'GET', host: 'api.test', path: '/user' },
      actions: [
        { type: 'mock', status: 201, headers: { 'Content-Type': 'application/json' }, body: '{}' },
        { type: 'delay', before: 'response', ms: 50 },
      ],
    };
    expect(ruleFromForm(formFromRule(rule), rule)).toEqual(rule);
  });

  it('keeps what only the JSON editor shows: other match fields, regex patterns, other actions and action fields', () => {
    const rule: Rule = {
      id: 'r',
      match: { path: { regex: '^/a' }, query: { debug: true } },
      actions: [
        { type: 'rewriteRequest', url: { host: 'staging.test' } },
        { type: 'rewriteResponse', addCors: true, headers: { set: { 'X-A': '1' } } },
      ],
    };
    const f = formFromRule(rule);
    expect(f.path).toBe('');
    expect(f.headers).toEqual({ on: true, set: 'X-A: 1', remove: '' });
    f.headers.on = false;
    f.method = 'post';
    f.delay.on = true;
    f.delay.ms = '120';
    expect(ruleFromForm(f, rule)).toEqual({
      id: 'r',
      match: { path: { regex: '^/a' }, query: { debug: true }, method: 'POST' },
      actions: [
        { type: 'rewriteRequest', url: { host: 'staging.test' } },
        { type: 'rewriteResponse', addCors: true },
        { type: 'delay', before: 'response', ms: 120 },
      ],
    });
  });

  it('builds header rewrites, faults, throttles and a disabled rule from a blank form', () => {
    const f = formFromRule({ id: 'n', match: {}, actions: [] });
    Object.assign(f, { enabled: false, host: '*.cdn.test', name: ' ' });
    f.headers = { on: true, set: 'Cache-Control: no-store\n\nX-Empty', remove: 'ETag, Expires' };
    f.fault = { on: true, fault: 'truncate' };
    f.throttle = { on: true, profile: '3g' };
    expect(ruleFromForm(f)).toEqual({
      id: 'n',
      enabled: false,
      match: { host: '*.cdn.test' },
      actions: [
        { type: 'rewriteResponse', headers: { set: { 'Cache-Control': 'no-store', 'X-Empty': '' }, remove: ['ETag', 'Expires'] } },
        { type: 'fault', fault: 'truncate' },
        { type: 'throttle', profile: '3g' },
      ],
    });
  });

  it('leaves a number that is not one as typed, for the validator to name the field', () => {
    const f = formFromRule({ id: 'n', match: {}, actions: [{ type: 'mock' }] });
    f.mock.status = 'abc';
    expect((ruleFromForm(f).actions[0] as { status: unknown }).status).toBe('abc');
  });

  it('parses header lines', () => {
    expect(headerRecord('A: 1\n B : two: three \n\n:bad')).toEqual({ A: '1', B: 'two: three' });
  });
});

describe('mockFromExchange', () => {
  const detail = (headers: Array<[string, string]>): ExchangeDetail => ({
    summary: {
      id: '1',
      startedDateTime: '',
      startTime: 0,
      method: 'GET',
      url: 'https://api.test/v1/user?id=7',
      host: 'api.test',
      path: '/v1/user?id=7',
      status: 404,
      mimeType: 'application/json',
      protocol: 'h2',
      requestSize: 0,
      responseSize: 10,
      duration: 1,
      state: 'complete',
    },
    request: { httpVersion: 'h2', headers: [], bodySize: 0, bodyTruncated: false },
    response: { httpVersion: 'h2', headers, bodySize: 10, bodyTruncated: false },
  });
  const text = {
    kind: 'text' as const,
    data: '{"e":1}',
    mimeType: 'application/json',
    wireSize: 7,
    decodedSize: 7,
    captureTruncated: false,
    displayTruncated: false,
  };

  it('prefills method, host, path (no query), status, headers a mock can send, and the decoded body', () => {
    const d = detail([
      [':status', '404'],
      ['content-type', 'application/json'],
      ['Content-Encoding', 'gzip'],
      ['content-length', '27'],
      ['x-request-id', 'abc'],
    ]);
    const { rule, note } = mockFromExchange(d, text, [{ id: 'mock-api.test-v1-user', match: {}, actions: [] }]);
    expect(note).toBeUndefined();
    expect(rule).toEqual({
      id: 'mock-api.test-v1-user-2',
      name: 'Mock GET api.test/v1/user',
      match: { method: 'GET', host: 'api.test', path: '/v1/user' },
      actions: [{ type: 'mock', status: 404, headers: { 'content-type': 'application/json', 'x-request-id': 'abc' }, body: '{"e":1}' }],
    });
  });

  it('leaves a binary or cut body empty and says why', () => {
    const bin = mockFromExchange(detail([]), { ...text, kind: 'base64' }, []);
    expect(bin.note).toMatch(/binary/);
    expect(bin.rule.actions[0]).toEqual({ type: 'mock', status: 404, body: '' });
    expect(mockFromExchange(detail([]), { ...text, displayTruncated: true }, []).note).toMatch(/part of the recorded body/);
  });
});

describe('a mock from a HAR entry in the form', () => {
  const har: Rule = { id: 'h', match: {}, actions: [{ type: 'mock', har: { file: 'rec.har', url: 'https://a.test/' } }] };

  it('shows an empty status and body, and saves the har source unchanged when they stay empty', () => {
    const f = formFromRule(har);
    expect([f.mock.on, f.mock.status, f.mock.body]).toEqual([true, '', '']);
    expect(ruleFromForm(f, har).actions).toEqual(har.actions);
  });

  it('a typed status overrides the recorded one; a typed body replaces the har source', () => {
    const f = formFromRule(har);
    expect(ruleFromForm({ ...f, mock: { ...f.mock, status: '503' } }, har).actions).toEqual([
      { type: 'mock', status: 503, har: { file: 'rec.har', url: 'https://a.test/' } },
    ]);
    expect(ruleFromForm({ ...f, mock: { ...f.mock, body: 'typed' } }, har).actions).toEqual([{ type: 'mock', body: 'typed' }]);
  });
});

describe('rules from a Traffic row (context menu)', () => {
  const row = (url: string, path: string): ExchangeSummary => ({
    id: '3',
    startedDateTime: '',
    startTime: 0,
    method: 'POST',
    url,
    host: 'shop.test:8443',
    path,
    mimeType: '',
    protocol: 'http/1.1',
    requestSize: 0,
    responseSize: 0,
    duration: 1,
    state: 'complete',
  });

  it('matches the method, the host without its port and the path without its query', () => {
    expect(matchFromExchange(row('https://shop.test:8443/cart/add?item=9', '/cart/add?item=9'))).toEqual({
      method: 'POST',
      host: 'shop.test',
      path: '/cart/add',
    });
  });

  it('falls back to the row host and path when the URL does not parse (a cut session URL)', () => {
    expect(matchFromExchange(row('not a url', '/cart?x=1'))).toEqual({ method: 'POST', host: 'shop.test:8443', path: '/cart' });
  });

  it('drafts a response rewrite whose header edits the form shows switched on and empty', () => {
    const { rule, note } = rewriteFromExchange(row('https://shop.test/cart', '/cart'), [
      { id: 'rewrite-shop.test-cart', match: {}, actions: [] },
    ]);
    expect(rule).toEqual({
      id: 'rewrite-shop.test-cart-2',
      name: 'Rewrite POST shop.test/cart',
      match: { method: 'POST', host: 'shop.test', path: '/cart' },
      actions: [{ type: 'rewriteResponse', headers: {} }],
    });
    expect(note).toMatch(/response headers/);
    const form = formFromRule(rule);
    expect(form.headers.on).toBe(true);
    expect(form.mock.on).toBe(false);
    // Saved as drafted, the form keeps the one action and adds none.
    expect(ruleFromForm(form, rule).actions).toEqual([{ type: 'rewriteResponse', headers: {} }]);
  });

  it('drafts a request breakpoint that the form keeps when saved', () => {
    const { rule } = breakpointFromExchange(row('https://shop.test/cart', '/cart'), []);
    expect(rule).toEqual({
      id: 'break-shop.test-cart',
      name: 'Break POST shop.test/cart',
      match: { method: 'POST', host: 'shop.test', path: '/cart' },
      actions: [{ type: 'breakpoint', on: 'request' }],
    });
    expect(ruleFromForm(formFromRule(rule), rule)).toEqual(rule);
  });
});
