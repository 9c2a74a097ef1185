/**
 * The one HAR → row/detail module (api/har-row.ts), shared by the core's session
 * views and the renderer's lab waterfalls: real Chrome and Firefox HARs, odd
 * entries, and the pure helpers that replace Buffer there.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { LooseHarEntry, LooseHarLog } from '../../src/har/types.js';
import { fieldChunk, harEntryIndex, harToRows, harView, isBase64Body, normalizeProtocol, utf8Length } from '../../src/api/har-row.js';
import { sessionDetail, sessionRow } from '../../src/api/session-view.js';
import { harBodyView } from '../../src/api/body-view.js';

const fixture = (name: string) =>
  JSON.parse(fs.readFileSync(new URL(`../../../e2e/fixtures/${name}`, import.meta.url), 'utf8')).log as LooseHarLog;
const chrome = fixture('chrome.har');
const firefox = fixture('firefox.har');
const entries = chrome.entries!;

describe('HAR entries → rows', () => {
  it('converts a Chrome HAR: one row per entry, with timings, protocol and type', () => {
    const rows = harToRows(chrome);
    expect(rows).toHaveLength(entries.length);
    const first = rows[0]!;
    expect(first.id).toBe('h0');
    expect(first.url).toBe('https://mitmproxy.org/');
    expect(first.host).toBe('mitmproxy.org');
    expect(first.status).toBe(304);
    expect(first.protocol).toBe('h2');
    expect(first.resourceType).toBe('document');
    expect(first.startTime).toBe(Date.parse(entries[0]!.startedDateTime!));
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

  it('gives the renderer and the core the same rows and details (one module)', () => {
    const plain = harView();
    entries.forEach((e, i) => {
      expect(plain.row(e, i)).toEqual(sessionRow(e, i));
      expect(plain.detail(e, i)).toEqual(sessionDetail(e, i));
    });
  });

  it('marks failed entries (status 0 / _error) as errors', () => {
    const e: LooseHarEntry = { ...entries[0]!, response: { ...entries[0]!.response, status: 0, _error: 'net::ERR_CONNECTION_REFUSED' } };
    const [row] = harToRows({ entries: [e] });
    expect(row!.state).toBe('error');
    expect(row!.error!.message).toBe('net::ERR_CONNECTION_REFUSED');
  });

  it('tolerates missing timings, odd protocols and a log without entries', () => {
    const e: LooseHarEntry = {
      startedDateTime: 'garbage',
      time: 5,
      request: { method: 'GET', url: 'x', httpVersion: 'HTTP/1.1', headers: [] },
      response: { status: 200, httpVersion: '', headers: [], content: { size: 0 } },
    };
    const [row] = harToRows({ entries: [e] });
    expect(row!.startTime).toBe(0);
    expect(row!.timings!.dns).toBe(-1);
    expect(row!.protocol).toBe('http/1.1');
    expect(normalizeProtocol('HTTP/2.0')).toBe('h2');
    expect(normalizeProtocol(undefined)).toBe('–');
    expect(harToRows({})).toEqual([]);
    expect(harToRows(undefined)).toEqual([]);
  });

  it('shows a saved tunnel or WebSocket with its bytes each way (_tunnelBytes), as the live row does', () => {
    const e = {
      request: { method: 'CONNECT', url: 'https://a.test:443', bodySize: 0 },
      response: { status: 200, bodySize: 0, content: { size: 0 } },
      _tunnelBytes: { up: 517, down: 4096 },
    } as LooseHarEntry;
    const row = harToRows({ entries: [e] })[0]!;
    expect([row.requestSize, row.responseSize]).toEqual([517, 4096]);
    // Broken values are ignored rather than shown.
    const odd = harToRows({ entries: [{ ...e, _tunnelBytes: { up: 'x', down: -1 } } as LooseHarEntry] })[0]!;
    expect([odd.requestSize, odd.responseSize]).toEqual([0, 0]);
  });

  it('counts request sizes in UTF-8 bytes when bodySize is unknown', () => {
    const e: LooseHarEntry = {
      request: { method: 'POST', url: 'http://a.test/', bodySize: -1, postData: { mimeType: 'text/plain', text: 'é€😀' } },
    };
    expect(harToRows({ entries: [e] })[0]!.requestSize).toBe(2 + 3 + 4);
  });

  it('gives details, and base64 text bodies decode to text', () => {
    const i = entries.findIndex(
      (e) => e.response?.content?.encoding === 'base64' && /html|css|javascript/.test(e.response.content.mimeType ?? ''),
    );
    expect(i).toBeGreaterThanOrEqual(0);
    const body = harBodyView(entries[i]!, 'response');
    expect(body.kind).toBe('text');
    expect(body.data.length).toBeGreaterThan(10);
    const detail = harView().detail(entries[0]!, 0);
    expect(detail.request.headers.find(([n]) => n === ':authority')?.[1]).toBe('mitmproxy.org');
    expect(harEntryIndex('h12')).toBe(12);
    expect(harEntryIndex('x1')).toBe(-1);
    expect(harBodyView(entries[0]!, 'request').kind).toBe('none');
  });
});

describe('pure helpers', () => {
  it('utf8Length counts as Buffer.byteLength does, lone surrogates included', () => {
    for (const s of ['', 'abc', 'é', '€', '😀', 'a\ud800b', '\udc00', 'x😀\ud83d', 'ü€😀'.repeat(100)]) {
      expect(utf8Length(s), JSON.stringify(s)).toBe(Buffer.byteLength(s));
    }
  });

  it('cuts never split a surrogate pair, and say how much was cut', () => {
    const { cutText } = harView();
    const s = 'a😀b';
    expect(cutText(s, 2)).toEqual({ text: 'a', cut: { fullBytes: 6, shownBytes: 1 } });
    expect(cutText(s, 3)).toEqual({ text: 'a😀', cut: { fullBytes: 6, shownBytes: 5 } });
    expect(cutText(s, 4)).toEqual({ text: s });
    expect(fieldChunk({ value: s }, 0, 2)).toMatchObject({ text: 'a', done: false });
  });

  it('isBase64Body reads `encoding` and postData `_encoding`', () => {
    expect(isBase64Body({ encoding: 'base64' })).toBe(true);
    expect(isBase64Body({ _encoding: 'base64' })).toBe(true);
    expect(isBase64Body({ text: 'x' })).toBe(false);
    expect(isBase64Body(null)).toBe(false);
  });
});
