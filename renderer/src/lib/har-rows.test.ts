import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import type { HarEntry, HarLog } from '../../../proxy/src/api/contract';
import { harBody, harEntryDetail, harEntryIndex, harToRows, normalizeProtocol } from './har-rows';
import { upsertRows, EMPTY_ROWS } from './rows-store';

const chrome = JSON.parse(fs.readFileSync(new URL('../../../e2e/fixtures/chrome.har', import.meta.url), 'utf8')).log as HarLog;
const firefox = JSON.parse(fs.readFileSync(new URL('../../../e2e/fixtures/firefox.har', import.meta.url), 'utf8')).log as HarLog;

describe('HAR entries → rows', () => {
  it('converts a Chrome HAR: one row per entry, with timings, protocol and type', () => {
    const rows = harToRows(chrome);
    expect(rows).toHaveLength(chrome.entries.length);
    const first = rows[0]!;
    expect(first.id).toBe('h0');
    expect(first.url).toBe('https://mitmproxy.org/');
    expect(first.host).toBe('mitmproxy.org');
    expect(first.status).toBe(304);
    expect(first.protocol).toBe('h2');
    expect(first.resourceType).toBe('document');
    expect(first.startTime).toBe(Date.parse(chrome.entries[0]!.startedDateTime));
    expect(rows[1]!.state).toBe('error'); // net::ERR_INTERNET_DISCONNECTED, status 0
    expect(rows[1]!.error!.message).toContain('ERR_INTERNET_DISCONNECTED');
    expect(first.timings!.wait).toBeGreaterThan(0);
    expect(first.state).toBe('complete');
  });

  it('converts a Firefox HAR without Chrome fields', () => {
    const rows = harToRows(firefox);
    expect(rows).toHaveLength(14);
    expect(rows.every((r) => Number.isFinite(r.startTime) && r.method.length > 0)).toBe(true);
  });

  it('marks failed entries (status 0 / _error) as errors', () => {
    const e = { ...chrome.entries[0]!, response: { ...chrome.entries[0]!.response, status: 0, _error: 'net::ERR_CONNECTION_REFUSED' } } as HarEntry;
    const [row] = harToRows({ entries: [e] });
    expect(row!.state).toBe('error');
    expect(row!.error!.message).toBe('net::ERR_CONNECTION_REFUSED');
  });

  it('tolerates missing timings and odd protocols', () => {
    const e = { startedDateTime: 'garbage', time: 5, request: { method: 'GET', url: 'x', httpVersion: 'HTTP/1.1', headers: [] }, response: { status: 200, httpVersion: '', headers: [], content: { size: 0 } } } as unknown as HarEntry;
    const [row] = harToRows({ entries: [e] });
    expect(row!.startTime).toBe(0);
    expect(row!.timings!.dns).toBe(-1);
    expect(row!.protocol).toBe('http/1.1');
    expect(normalizeProtocol('HTTP/2.0')).toBe('h2');
  });

  it('gives details and decodes base64 text bodies', () => {
    const i = chrome.entries.findIndex((e) => e.response.content.encoding === 'base64' && /html|css|javascript/.test(e.response.content.mimeType ?? ''));
    expect(i).toBeGreaterThanOrEqual(0);
    const body = harBody(chrome.entries[i]!, 'response');
    expect(body.kind).toBe('text');
    expect(body.data.length).toBeGreaterThan(10);
    const detail = harEntryDetail(chrome.entries[0]!, 0);
    expect(detail.request.headers.find(([n]) => n === ':authority')?.[1]).toBe('mitmproxy.org');
    expect(harEntryIndex('h12')).toBe(12);
    expect(harEntryIndex('x1')).toBe(-1);
    expect(harBody(chrome.entries[0]!, 'request').kind).toBe('none');
  });
});

describe('live rows store', () => {
  it('upserts by id in arrival order and never lets a pending update undo a finished row', () => {
    const base = harToRows(chrome);
    let s = upsertRows(EMPTY_ROWS, [{ ...base[0]!, id: 'x1', state: 'pending' }, { ...base[2]!, id: 'x2' }]);
    s = upsertRows(s, [{ ...base[0]!, id: 'x1', state: 'complete', status: 200 }]);
    expect(s.rows.map((r) => [r.id, r.state])).toEqual([
      ['x1', 'complete'],
      ['x2', 'complete'],
    ]);
    const same = upsertRows(s, [{ ...base[0]!, id: 'x1', state: 'pending' }]);
    expect(same.rows[0]!.state).toBe('complete');
    expect(upsertRows(s, [])).toBe(s);
  });
});
