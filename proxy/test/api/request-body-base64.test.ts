/**
 * Binary request bodies: the recorder writes them as base64 in postData with
 * Netlens's `_encoding: 'base64'` (HAR 1.2 has no `encoding` on postData). They
 * were shown as their base64 text; they must show as bytes, like response
 * bodies, in the body view, in "save the whole value" and when read whole past
 * the read cap.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CoreService } from '../../src/api/core-service.js';
import { harBodyView } from '../../src/api/body-view.js';
import { fieldValue } from '../../src/api/session-view.js';
import { postData } from '../../src/har/post-data.js';
import type { HarPostData, LooseHarEntry } from '../../src/har/types.js';
import { storeBackend } from '../../src/api/session-backend.js';
import type { SessionFieldChunk } from '../../src/api/contract.js';
import { fakeBackends } from './fake-backends.js';

const binary = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 0xfe, 0xff, 0x00, 0x7f]);

function post(pd: HarPostData, bodySize: number): LooseHarEntry {
  return {
    startedDateTime: '2026-01-01T00:00:00.000Z',
    time: 1,
    request: {
      method: 'POST',
      url: 'http://127.0.0.1/up',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [],
      queryString: [],
      postData: pd,
      headersSize: -1,
      bodySize,
    },
    response: {
      status: 204,
      statusText: 'No Content',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [],
      content: { size: 0, mimeType: 'x-unknown' },
      redirectURL: '',
      headersSize: -1,
      bodySize: 0,
    },
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
  };
}

describe('request postData with _encoding base64', () => {
  it('is written by the recorder for a binary body', () => {
    expect(postData(binary, 'application/octet-stream', false)).toMatchObject({ _encoding: 'base64', text: binary.toString('base64') });
  });

  it('harBodyView decodes it: binary as bytes, UTF-8 text as text', () => {
    const bin = harBodyView(post(postData(binary, 'application/octet-stream', false), binary.length), 'request');
    expect(bin).toMatchObject({
      kind: 'base64',
      data: binary.toString('base64'),
      decodedSize: binary.length,
      mimeType: 'application/octet-stream',
    });
    // A text type whose bytes were stored as base64 (another writer, or whitespace-wrapped): decoded, then shown as text.
    const text = Buffer.from('{"a":"é"}');
    const wrapped = text.toString('base64').replace(/(.{4})/g, '$1\n');
    const json = harBodyView(post({ mimeType: 'application/json', text: wrapped, _encoding: 'base64' }, text.length), 'request');
    expect(json).toMatchObject({ kind: 'text', data: '{"a":"é"}', decodedSize: text.length });
  });

  it('fieldValue serves it as base64, whitespace removed, so the saved file holds the bytes', () => {
    const e = post({ mimeType: 'application/octet-stream', text: `${binary.toString('base64')}\n`, _encoding: 'base64' }, binary.length);
    expect(fieldValue(e, { kind: 'request-body' })).toEqual({ value: binary.toString('base64'), base64: true });
    // Plain text stays text.
    expect(fieldValue(post({ mimeType: 'text/plain', text: 'hi' }, 2), { kind: 'request-body' })).toEqual({ value: 'hi' });
  });
});

describe('a stored session with a binary request body', () => {
  let dataDir: string;
  let core: CoreService;
  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-req-b64-'));
    core = new CoreService({ ...fakeBackends(), dataDir, sessions: storeBackend(dataDir) });
  });
  afterEach(async () => {
    await core.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('shows the bytes, reads a base64 body larger than the read cap whole, and saves the bytes', async () => {
    const big = Buffer.alloc(10 * 1024 * 1024, binary); // 13.3 MiB of base64: over the 12 MiB read cap
    const small = post(postData(binary, 'application/octet-stream', false), binary.length);
    const large = post(postData(big, 'application/octet-stream', false), big.length);
    const har = { log: { version: '1.2', creator: { name: 't', version: '1' }, entries: [small, large] } };
    const id = (await core.importHar({ fileName: 'upload.har', text: JSON.stringify(har) })).id;
    expect(await core.getSessionBody({ id, index: 0, side: 'request' })).toMatchObject({ kind: 'base64', data: binary.toString('base64') });
    const body = await core.getSessionBody({ id, index: 1, side: 'request' });
    expect(body).toMatchObject({ kind: 'base64', decodedSize: big.length, displayTruncated: true });
    expect(Buffer.from(body.data, 'base64').equals(big.subarray(0, 2 * 1024 * 1024))).toBe(true);
    const chunk: SessionFieldChunk = await core.getSessionField({ id, index: 0, field: { kind: 'request-body' }, offset: 0 });
    expect(chunk).toMatchObject({ encoding: 'base64', done: true });
    expect(Buffer.from(chunk.text, 'base64').equals(binary)).toBe(true);
  });
});
