import { describe, expect, it } from 'vitest';
import type { PausedBreakpoint } from '../../../proxy/src/api/contract';
import { draftOf, editsFrom, hasEdits, headersToText, parseHeaderText, pausedLabel, pickSelected, secondsLeft } from './breakpoint-edits';

const req: PausedBreakpoint = {
  id: 'bp1',
  exchangeId: 'x1',
  phase: 'request',
  ruleId: 'r',
  method: 'POST',
  url: 'http://api.test:8080/v1/items?q=1',
  headers: [
    ['Host', 'api.test:8080'],
    ['X-Token', 'a: b'],
  ],
  body: '{"a":1}',
  bodyCut: false,
  pausedAt: 1000,
  timeoutAt: 61_000,
};
const res: PausedBreakpoint = { ...req, id: 'bp2', phase: 'response', status: 200, headers: [['Content-Type', 'text/plain']], body: 'ok' };

describe('header text', () => {
  it('round-trips headers, values with colons included', () => {
    const text = headersToText(req.headers);
    expect(text).toBe('Host: api.test:8080\nX-Token: a: b');
    expect(parseHeaderText(text)).toEqual({ headers: req.headers });
  });
  it('skips blank lines and names the first bad line', () => {
    expect(parseHeaderText('\nA: 1\n\n')).toEqual({ headers: [['A', '1']] });
    expect(parseHeaderText('A: 1\nno colon here')).toEqual({ error: expect.stringMatching(/^Line 2: /) });
    expect(parseHeaderText('bad name: 1')).toEqual({ error: expect.stringMatching(/^Line 1: /) });
  });
});

describe('editsFrom', () => {
  it('sends nothing when nothing changed', () => {
    const r = editsFrom(req, draftOf(req));
    expect(r).toEqual({ edits: {} });
    expect(hasEdits((r as { edits: object }).edits)).toBe(false);
  });
  it('sends only the changed fields of a request', () => {
    const d = { ...draftOf(req), headersText: 'Host: api.test:8080\nX-Token: a: b\nX-New: 1', url: ' http://other.test/x ' };
    expect(editsFrom(req, d)).toEqual({ edits: { headers: [...req.headers, ['X-New', '1']], url: 'http://other.test/x' } });
  });
  it('never sends a body edit for a cut body', () => {
    expect(editsFrom({ ...req, bodyCut: true, body: '' }, { ...draftOf(req), body: 'x' })).toEqual({ edits: {} });
  });
  it('checks the URL of a request and the status of a response', () => {
    expect(editsFrom(req, { ...draftOf(req), url: 'ftp://x' })).toHaveProperty('error');
    expect(editsFrom(res, { ...draftOf(res), status: '99' })).toHaveProperty('error');
    expect(editsFrom(res, { ...draftOf(res), status: '404', body: 'gone' })).toEqual({ edits: { status: 404, body: 'gone' } });
  });
  it('reports a header line it cannot read', () => {
    expect(editsFrom(req, { ...draftOf(req), headersText: 'oops' })).toEqual({ error: expect.stringMatching(/Line 1/) });
  });
});

describe('queue', () => {
  it('keeps the selection while it is paused, else picks the oldest', () => {
    expect(pickSelected([req, res], 'bp2')).toBe('bp2');
    expect(pickSelected([req], 'bp2')).toBe('bp1');
    expect(pickSelected([], 'bp2')).toBeUndefined();
  });
  it('counts down whole seconds, never below zero', () => {
    expect(secondsLeft(req, 1000)).toBe(60);
    expect(secondsLeft(req, 60_500)).toBe(1);
    expect(secondsLeft(req, 90_000)).toBe(0);
  });
  it('labels requests and responses', () => {
    expect(pausedLabel(req)).toBe('REQ POST api.test:8080/v1/items?q=1');
    expect(pausedLabel(res)).toBe('RES 200 api.test:8080/v1/items?q=1');
  });
});
