/** A HAR opened in the page: a body the recorder could not decode shows as raw bytes with the note (as live bodies do). */
import { describe, expect, it } from 'vitest';
import type { HarEntry } from '../../../proxy/src/api/contract';
import { base64ToBytes } from './format';
import { harBody } from './har-rows';

const raw = new Uint8Array([0x1f, 0x8b, 8, 0, 0xde, 0xad, 0xbe, 0xef, 0, 0xff]);
const b64 = btoa(String.fromCharCode(...raw));

function entry(content: Record<string, unknown>): HarEntry {
  return {
    startedDateTime: '2026-01-01T00:00:00.000Z',
    time: 1,
    request: { method: 'GET', url: 'http://127.0.0.1/x', httpVersion: 'HTTP/1.1', cookies: [], headers: [], queryString: [], headersSize: -1, bodySize: 0 },
    response: { status: 200, statusText: 'OK', httpVersion: 'HTTP/1.1', cookies: [], headers: [], content: { size: 10, mimeType: 'text/html', ...content }, redirectURL: '', headersSize: -1, bodySize: 10 },
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
  } as unknown as HarEntry;
}

describe('harBody with _decodingError', () => {
  it('raw bytes as binary, with "Content-Encoding gzip could not be decoded: …; showing the raw bytes."', () => {
    const v = harBody(entry({ text: b64, encoding: 'base64', _decodingError: 'gzip: incorrect header check' }), 'response');
    expect(v.decodeError).toBe('Content-Encoding gzip could not be decoded: incorrect header check; showing the raw bytes.');
    expect(v.kind).toBe('base64');
    expect(Array.from(base64ToBytes(v.data))).toEqual(Array.from(raw));
    // Stored as text by another tool: still shown as bytes, still with the note.
    const t = harBody(entry({ text: 'garbled', _decodingError: 'br: Decompression failed' }), 'response');
    expect(t).toMatchObject({ kind: 'base64', decodeError: expect.stringMatching(/^Content-Encoding br could not be decoded: Decompression failed;/) });
    expect(new TextDecoder().decode(base64ToBytes(t.data))).toBe('garbled');
  });

  it('a body that decoded has no note', () => {
    const v = harBody(entry({ text: '<p>hi</p>' }), 'response');
    expect(v).toMatchObject({ kind: 'text', data: '<p>hi</p>' });
    expect(v.decodeError).toBeUndefined();
  });
});
