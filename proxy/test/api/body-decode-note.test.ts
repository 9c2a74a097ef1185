/**
 * A body whose Content-Encoding does not decode (corrupt gzip) is shown as raw
 * bytes with a note saying so: live (bodyView), from a stored session
 * (harBodyView, which also serves the page's opened HARs).
 */
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bodyView, harBodyView } from '../../src/api/body-view.js';
import { decodeFailureNote } from '../../src/api/decode-note.js';
import type { HarContent, LooseHarEntry } from '../../src/har/types.js';

const corrupt = Buffer.from('1f8b0800000000000003' + 'deadbeef'.repeat(8), 'hex');
const capture = (bytes: Buffer) => ({ bytes: new Uint8Array(bytes), size: bytes.length, truncated: false });
const NOTE = /^Content-Encoding gzip could not be decoded: .+; showing the raw bytes\.$/;

function entry(content: Partial<HarContent>): LooseHarEntry {
  return {
    startedDateTime: '2026-01-01T00:00:00.000Z',
    time: 1,
    request: {
      method: 'GET',
      url: 'http://127.0.0.1/x',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [],
      queryString: [],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status: 200,
      statusText: 'OK',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [],
      content: { size: 42, mimeType: 'text/html', ...content },
      redirectURL: '',
      headersSize: -1,
      bodySize: 42,
    },
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
  };
}

describe('undecodable bodies', () => {
  it('live: corrupt gzip → raw bytes with the note; good gzip → decoded, no note', async () => {
    const bad = await bodyView(capture(corrupt), [
      ['Content-Type', 'text/html'],
      ['Content-Encoding', 'gzip'],
    ]);
    expect(bad.decodeError).toMatch(NOTE);
    expect(bad.kind).toBe('base64');
    expect(Buffer.from(bad.data, 'base64')).toEqual(corrupt);
    const good = await bodyView(capture(zlib.gzipSync('<p>hi</p>')), [
      ['Content-Type', 'text/html'],
      ['Content-Encoding', 'gzip'],
    ]);
    expect(good).toMatchObject({ kind: 'text', data: '<p>hi</p>', contentEncoding: 'gzip' });
    expect(good.decodeError).toBeUndefined();
  });

  it('stored session: _decodingError becomes the same note over the raw bytes', () => {
    const e = entry({ text: corrupt.toString('base64'), encoding: 'base64', _decodingError: 'gzip: incorrect header check' });
    const expected = 'Content-Encoding gzip could not be decoded: incorrect header check; showing the raw bytes.';
    for (const view of [harBodyView(e, 'response')]) {
      expect(view.decodeError).toBe(expected);
      expect(view.kind).toBe('base64');
      expect(Buffer.from(view.data, 'base64')).toEqual(corrupt);
    }
    // Stored as text by another tool: still shown as bytes, still with the note.
    const t = harBodyView(entry({ text: 'garbled', _decodingError: 'br: Decompression failed' }), 'response');
    const brNote = /^Content-Encoding br could not be decoded: Decompression failed;/;
    expect(t).toMatchObject({ kind: 'base64', decodeError: expect.stringMatching(brNote) });
    expect(Buffer.from(t.data, 'base64').toString()).toBe('garbled');
    // A body that decoded has no note.
    const fine = entry({ text: '<p>hi</p>' });
    expect(harBodyView(fine, 'response')).toMatchObject({ kind: 'text', data: '<p>hi</p>' });
    expect(harBodyView(fine, 'response').decodeError).toBeUndefined();
  });

  it('decodeFailureNote', () => {
    expect(decodeFailureNote('br', 'Decompression failed')).toBe(
      'Content-Encoding br could not be decoded: Decompression failed; showing the raw bytes.',
    );
    expect(decodeFailureNote(undefined, 'x-gzip: unexpected end of file')).toBe(
      'Content-Encoding x-gzip could not be decoded: unexpected end of file; showing the raw bytes.',
    );
    expect(decodeFailureNote(undefined, 'something odd')).toBe(
      'Content-Encoding content could not be decoded: something odd; showing the raw bytes.',
    );
    expect(decodeFailureNote('gzip', 'deflate: x')).toMatch(/^Content-Encoding gzip could not be decoded: deflate: x;/);
  });
});
