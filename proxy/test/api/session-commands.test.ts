/**
 * The session commands the UI opens sessions with (issue 13 item 3): rows only,
 * every string bounded; one entry's details on demand with large values cut and
 * marked; whole values in chunks; bad arguments refused with stable codes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CoreService } from '../../src/api/core-service.js';
import { DETAIL_BUDGET, FIELD_CAP, fieldChunk, HEADER_COUNT_CAP, ROW_URL_CAP } from '../../src/api/session-view.js';
import { storeBackend } from '../../src/api/session-backend.js';
import { SessionStore } from '../../src/sessions/store.js';
import type { ExchangeDetail, SessionFieldChunk } from '../../src/api/contract.js';
import { fakeBackends } from './fake-backends.js';

const BIG = 300 * 1024;

type Headers = Array<{ name: string; value: string }>;

function entry(url: string, opts: { reqHeaders?: Headers; resHeaders?: Headers; post?: string; body?: string } = {}) {
  return {
    startedDateTime: '2026-01-01T00:00:00.000Z',
    time: 10,
    request: {
      method: opts.post !== undefined ? 'POST' : 'GET',
      url,
      httpVersion: 'HTTP/1.1',
      headers: opts.reqHeaders ?? [{ name: 'Accept', value: '*/*' }],
      queryString: [],
      cookies: [],
      ...(opts.post !== undefined ? { postData: { mimeType: 'text/plain', text: opts.post } } : {}),
      headersSize: -1,
      bodySize: -1,
    },
    response: {
      status: 200,
      statusText: 'OK',
      httpVersion: 'HTTP/1.1',
      headers: opts.resHeaders ?? [{ name: 'Content-Type', value: 'text/plain' }],
      cookies: [],
      content: { size: -1, mimeType: 'text/plain', text: opts.body ?? 'ok' },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 1, wait: 8, receive: 1 },
  };
}

// Values with characters the entry scanner must step over: quotes, backslashes, brackets, non-ASCII.
const tricky = 'a"b\\c{d}[e]ü€😀';
const bigValue = (tricky + 'x'.repeat(1000)).repeat(Math.ceil(BIG / 1017)).slice(0, BIG);

function bigHar(): string {
  const many = Array.from({ length: HEADER_COUNT_CAP + 500 }, (_, i) => ({ name: `X-H${i}`, value: `v${i}` }));
  return JSON.stringify({
    log: {
      version: '1.2',
      creator: { name: 'test', version: '1' },
      pages: [
        { id: 'p1', title: 't'.repeat(5000), startedDateTime: '2026-01-01T00:00:00.000Z', pageTimings: { onContentLoad: 5, onLoad: 9 } },
      ],
      entries: [
        entry('http://small.test/first'),
        entry('http://big.test/h', {
          reqHeaders: [
            { name: 'Accept', value: '*/*' },
            { name: 'X-Huge', value: bigValue },
          ],
          resHeaders: [{ name: bigValue, value: 'v' }],
        }),
        entry(`http://big.test/u?q=${'u'.repeat(BIG)}`),
        entry('http://big.test/many', { reqHeaders: many }),
        entry('http://big.test/post', { post: bigValue, body: 'r'.repeat(3 * 1024 * 1024) }),
        entry('http://small.test/last'),
      ],
    },
  });
}

let dataDir: string;
let core: CoreService;

beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-session-cmds-'));
  core = new CoreService({ ...fakeBackends(), dataDir, sessions: storeBackend(dataDir) });
});

afterEach(async () => {
  await core.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function failure(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  const err = (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as { code: string; message: string } | undefined;
  expect(err, 'the command should have failed').toBeDefined();
  return err!;
}

describe('openSession', () => {
  it('returns rows only, every string bounded, the cut URL marked with its size', async () => {
    const info = await core.importHar({ fileName: 'big.har', text: bigHar() });
    const opened = await core.openSession({ id: info.id });
    expect(opened.info).toMatchObject({ id: info.id, entryCount: 6 });
    expect(opened.rows.map((r) => r.id)).toEqual(['h0', 'h1', 'h2', 'h3', 'h4', 'h5']);
    expect(opened.rows[0]).toMatchObject({
      method: 'GET',
      url: 'http://small.test/first',
      host: 'small.test',
      status: 200,
      state: 'complete',
    });
    expect(opened.rows[0]!.urlCut).toBeUndefined();
    const cut = opened.rows[2]!;
    expect(cut.url.length).toBeLessThanOrEqual(ROW_URL_CAP);
    expect(cut.urlCut).toEqual({ fullBytes: `http://big.test/u?q=`.length + BIG, shownBytes: cut.url.length });
    // No header values and no bodies travel with the rows.
    expect(JSON.stringify(opened).length).toBeLessThan(6 * (ROW_URL_CAP + 2000));
    const page = {
      id: 'p1',
      title: expect.any(String),
      startedDateTime: '2026-01-01T00:00:00.000Z',
      pageTimings: { onContentLoad: 5, onLoad: 9 },
    };
    expect(opened.pages).toEqual([page]);
    expect(opened.pages[0]!.title.length).toBeLessThan(1100);
  });

  it('refuses a missing, empty or unknown session id', async () => {
    expect((await failure(core.openSession({ id: 'nope' }))).code).toBe('NL_NOT_FOUND');
    expect((await failure(core.openSession({ id: '' }))).code).toBe('NL_API_BAD_REQUEST');
    expect((await failure(core.openSession({ id: 42 } as never))).code).toBe('NL_API_BAD_REQUEST');
    expect((await failure(core.openSession(undefined as never))).code).toBe('NL_API_BAD_REQUEST');
    expect((await failure(core.openSession({ id: 'x'.repeat(501) }))).code).toBe('NL_API_BAD_REQUEST');
  });
});

describe('getSessionEntry', () => {
  let id: string;
  beforeEach(async () => {
    id = (await core.importHar({ fileName: 'big.har', text: bigHar() })).id;
    await core.openSession({ id });
  });

  it('cuts a huge header value at FIELD_CAP and says how large it was', async () => {
    const d: ExchangeDetail = await core.getSessionEntry({ id, index: 1 });
    const [accept, huge] = d.request.headers;
    expect(accept).toEqual(['Accept', '*/*']);
    expect(huge![0]).toBe('X-Huge');
    expect(huge![1].length).toBeLessThanOrEqual(FIELD_CAP);
    expect(bigValue.startsWith(huge![1])).toBe(true);
    expect(huge![2]).toEqual({ value: { fullBytes: Buffer.byteLength(bigValue), shownBytes: Buffer.byteLength(huge![1]) } });
    // A huge header name is cut and marked too.
    expect(d.response!.headers[0]![2]).toEqual({ name: { fullBytes: Buffer.byteLength(bigValue), shownBytes: expect.any(Number) } });
    expect(JSON.stringify(d).length).toBeLessThan(3 * FIELD_CAP);
  });

  it('cuts the URL at FIELD_CAP; lists at most HEADER_COUNT_CAP headers and counts the rest', async () => {
    const u = await core.getSessionEntry({ id, index: 2 });
    expect(u.summary.url.length).toBe(FIELD_CAP);
    expect(u.summary.urlCut?.fullBytes).toBe(`http://big.test/u?q=`.length + BIG);
    const many = await core.getSessionEntry({ id, index: 3 });
    expect(many.request.headers).toHaveLength(HEADER_COUNT_CAP);
    expect(many.request.headersOmitted).toBe(500);
    expect(JSON.stringify(many).length).toBeLessThan(DETAIL_BUDGET);
  });

  it('refuses bad indexes and unknown sessions with stable codes', async () => {
    expect((await failure(core.getSessionEntry({ id: 'nope', index: 0 }))).code).toBe('NL_NOT_FOUND');
    const outOfRange = await failure(core.getSessionEntry({ id, index: 6 }));
    expect(outOfRange).toMatchObject({ code: 'NL_NOT_FOUND', message: expect.stringContaining('has no entry 6 (it has 6)') });
    expect((await failure(core.getSessionEntry({ id, index: Number.MAX_SAFE_INTEGER }))).code).toBe('NL_NOT_FOUND');
    for (const index of [-1, 1.5, 1e300, Number.NaN, Infinity, '1', null, undefined, [0], { n: 0 }]) {
      const err = await failure(core.getSessionEntry({ id, index } as never));
      expect(err.code, `index ${String(index)}`).toBe('NL_API_BAD_REQUEST');
      expect(err.message).toContain('"index" must be a whole number');
    }
    expect((await failure(core.getSessionEntry([id, 0] as never))).code).toBe('NL_API_BAD_REQUEST');
    // Still serving after all that.
    expect((await core.getSessionEntry({ id, index: 5 })).summary.url).toBe('http://small.test/last');
  });
});

describe('getSessionBody', () => {
  it('serves bodies with the display cap, and refuses a bad side or index', async () => {
    const id = (await core.importHar({ fileName: 'big.har', text: bigHar() })).id;
    const post = await core.getSessionBody({ id, index: 4, side: 'request' });
    expect(post).toMatchObject({ kind: 'text', decodedSize: Buffer.byteLength(bigValue), displayTruncated: false });
    expect(post.data).toBe(bigValue);
    const res = await core.getSessionBody({ id, index: 4, side: 'response' });
    expect(res).toMatchObject({ kind: 'text', displayTruncated: true, decodedSize: 3 * 1024 * 1024 });
    expect(res.data.length).toBe(2 * 1024 * 1024);
    expect((await failure(core.getSessionBody({ id, index: 4, side: 'both' } as never))).code).toBe('NL_API_BAD_REQUEST');
    expect((await failure(core.getSessionBody({ id, index: -3, side: 'request' }))).code).toBe('NL_API_BAD_REQUEST');
    expect((await failure(core.getSessionBody({ id, index: 60, side: 'request' }))).code).toBe('NL_NOT_FOUND');
  });
});

describe('getSessionBody on bodies larger than what is read of them', () => {
  it('knows the whole size of a text body cut while reading, and reads a huge base64 body whole', async () => {
    const text = '€'.repeat(5 * 1024 * 1024); // 15 MiB of UTF-8, over the 12 MiB read cap
    const bytes = Buffer.alloc(10 * 1024 * 1024, Buffer.from([0, 1, 2, 255])); // binary; 13.3 MiB of base64
    const e = entry('http://bodies.test/', { post: text });
    const content = { size: bytes.length, mimeType: 'application/octet-stream', encoding: 'base64', text: bytes.toString('base64') };
    const bin = { ...e, response: { ...e.response, content } };
    const har = { log: { version: '1.2', creator: { name: 't', version: '1' }, entries: [bin] } };
    const id = (await core.importHar({ fileName: 'bodies.har', text: JSON.stringify(har) })).id;
    const post = await core.getSessionBody({ id, index: 0, side: 'request' });
    expect(post).toMatchObject({ kind: 'text', decodedSize: Buffer.byteLength(text), displayTruncated: true });
    expect(text.startsWith(post.data.replace(/\uFFFD$/, ''))).toBe(true);
    const res = await core.getSessionBody({ id, index: 0, side: 'response' });
    expect(res).toMatchObject({ kind: 'base64', decodedSize: bytes.length, displayTruncated: true });
    expect(Buffer.from(res.data, 'base64').equals(bytes.subarray(0, 2 * 1024 * 1024))).toBe(true);
  });
});

describe('getSessionField', () => {
  it('gives a cut value whole, in chunks that join to the stored bytes', async () => {
    const id = (await core.importHar({ fileName: 'big.har', text: bigHar() })).id;
    const whole = async (field: Parameters<CoreService['getSessionField']>[0]['field'], index = field.kind === 'url' ? 2 : 1) => {
      let text = '';
      for (let chunk: SessionFieldChunk | undefined; !chunk?.done;) {
        chunk = await core.getSessionField({ id, index, field, offset: text.length });
        expect(chunk.offset).toBe(text.length);
        text += chunk.text;
      }
      return text;
    };
    expect(await whole({ kind: 'request-header', header: 1, part: 'value' })).toBe(bigValue);
    expect(await whole({ kind: 'response-header', header: 0, part: 'name' })).toBe(bigValue);
    expect(await whole({ kind: 'url' })).toBe(`http://big.test/u?q=${'u'.repeat(BIG)}`);
    expect(await whole({ kind: 'request-body' }, 4)).toBe(bigValue);
    expect(await whole({ kind: 'response-body' }, 4)).toBe('r'.repeat(3 * 1024 * 1024));
    // Past the end: an empty last chunk, not an error.
    expect(await core.getSessionField({ id, index: 1, field: { kind: 'url' }, offset: 10_000_000 })).toMatchObject({
      text: '',
      done: true,
    });
  });

  it('refuses bad fields and offsets', async () => {
    const id = (await core.importHar({ fileName: 'big.har', text: bigHar() })).id;
    const field = { kind: 'request-header', header: 1, part: 'value' } as const;
    expect((await failure(core.getSessionField({ id, index: 1, field: { ...field, header: 99 } }))).code).toBe('NL_NOT_FOUND');
    for (const bad of [{ kind: 'cookie' }, { ...field, part: 'both' }, { ...field, header: -1 }, { ...field, header: 0.5 }, null, 'url']) {
      expect((await failure(core.getSessionField({ id, index: 1, field: bad } as never))).code, JSON.stringify(bad)).toBe(
        'NL_API_BAD_REQUEST',
      );
    }
    for (const offset of [-1, 2.5, '0', 1e300]) {
      expect((await failure(core.getSessionField({ id, index: 1, field, offset } as never))).code, String(offset)).toBe(
        'NL_API_BAD_REQUEST',
      );
    }
    expect((await failure(core.getSessionField({ id: 'nope', index: 0, field }))).code).toBe('NL_NOT_FOUND');
    const noBody = await failure(core.getSessionField({ id, index: 0, field: { kind: 'request-body' } }));
    expect(noBody).toMatchObject({ code: 'NL_NOT_FOUND', message: 'Entry 0 has no request body.' });
    expect((await failure(core.getSessionField({ id, index: 99, field }))).code).toBe('NL_NOT_FOUND');
  });
});

describe('getSessionField on binary bodies', () => {
  it('serves base64 in whole groups, whitespace removed, from any offset', async () => {
    const bytes = Buffer.from(Array.from({ length: 5 * 1024 * 1024 }, (_, i) => (i * 7) % 256));
    const b64 = bytes.toString('base64').replace(/(.{76})/g, '$1\n');
    const e = entry('http://bin.test/');
    const content = { size: bytes.length, mimeType: 'application/octet-stream', encoding: 'base64', text: b64 };
    const har = {
      log: { version: '1.2', creator: { name: 't', version: '1' }, entries: [{ ...e, response: { ...e.response, content } }] },
    };
    const id = (await core.importHar({ fileName: 'bin.har', text: JSON.stringify(har) })).id;
    const parts: Buffer[] = [];
    let offset = 1; // not on a group boundary: the answer starts at the group's start
    for (let chunk: SessionFieldChunk | undefined; !chunk?.done;) {
      chunk = await core.getSessionField({ id, index: 0, field: { kind: 'response-body' }, offset });
      expect(chunk.encoding).toBe('base64');
      expect(chunk.offset % 4).toBe(0);
      parts.push(Buffer.from(chunk.text, 'base64'));
      offset = chunk.offset + chunk.text.length;
    }
    expect(Buffer.concat(parts).equals(bytes)).toBe(true);
  });
});

describe('fieldChunk', () => {
  const join = (value: string, size: number, base64?: boolean) => {
    let out = '';
    let calls = 0;
    for (let c: SessionFieldChunk | undefined; !c?.done; calls++) {
      c = fieldChunk({ value, base64 }, out.length, size);
      expect(c.offset).toBe(out.length);
      expect(c.totalChars).toBe(value.length);
      out += c.text;
    }
    return { out, calls };
  };
  it('never splits a surrogate pair, and joins back to the value', () => {
    const value = 'a😀'.repeat(1000);
    for (const size of [1, 2, 3, 4, 7, 64]) {
      const { out } = join(value, size);
      expect(out).toBe(value);
      for (let off = 0; off < 20; off++) expect(fieldChunk({ value }, off, size).text).not.toMatch(/[\ud800-\udbff]$/);
    }
  });
  it('base64 chunks hold whole 4-character groups, from any offset', () => {
    const value = Buffer.from('any binary \u0000 bytes at all').toString('base64');
    const { out, calls } = join(value, 8, true);
    expect(out).toBe(value);
    expect(calls).toBe(Math.ceil(value.length / 8));
    expect(fieldChunk({ value, base64: true }, 5, 8)).toMatchObject({ offset: 4, text: value.slice(4, 12) });
  });
});

describe('nothing recorded is lost', () => {
  it('export after import gives every byte of the huge values', async () => {
    const id = (await core.importHar({ fileName: 'big.har', text: bigHar() })).id;
    await core.openSession({ id });
    await core.getSessionEntry({ id, index: 1 });
    const exported = JSON.parse((await core.exportHar({ id })).text);
    expect(exported.log.entries[1].request.headers[1].value).toBe(bigValue);
    expect(exported.log.entries[2].request.url).toBe(`http://big.test/u?q=${'u'.repeat(BIG)}`);
    expect(exported.log.entries[3].request.headers).toHaveLength(HEADER_COUNT_CAP + 500);
  });

  it('a deleted session is forgotten, not served from a cache', async () => {
    const id = (await core.importHar({ fileName: 'big.har', text: bigHar() })).id;
    await core.getSessionEntry({ id, index: 1 });
    await core.deleteSession({ id });
    expect((await failure(core.getSessionEntry({ id, index: 1 }))).code).toBe('NL_NOT_FOUND');
  });
});

describe('other session sources', () => {
  it('a recording in progress (journal) opens and shows details', async () => {
    const store = new SessionStore(dataDir);
    const { EventStream } = await import('../../src/events.js');
    const events = new EventStream();
    const rec = await store.startRecording(events, { name: 'live' });
    const { makeExchange } = await import('../har/make-exchange.js');
    const x = makeExchange();
    events.emit({ type: 'complete', exchange: x });
    await new Promise((r) => setTimeout(r, 50));
    const opened = await core.openSession({ id: rec.id });
    expect(opened.rows.map((r) => r.url)).toEqual([x.request.url]);
    expect((await core.getSessionEntry({ id: rec.id, index: 0 })).summary.url).toBe(x.request.url);
    await rec.stop();
  });

  it('the in-memory backend serves the same commands, total over odd JSON', async () => {
    const mem = new CoreService({ ...fakeBackends(), dataDir });
    try {
      const postData = { params: [{ name: 'a', value: 'b' }, null] };
      const oddEntry = { request: { url: 5, headers: 'nope', postData }, response: { content: { text: 7, mimeType: 3 } } };
      const odd = { log: { entries: [oddEntry, 'x'] } };
      const id = (await mem.importHar({ fileName: 'odd.har', text: JSON.stringify(odd) })).id;
      const opened = await mem.openSession({ id });
      expect(opened.rows).toHaveLength(2);
      expect(opened.rows[0]).toMatchObject({ url: '5', method: 'GET', state: 'error' });
      expect((await mem.getSessionEntry({ id, index: 0 })).request.headers).toEqual([]);
      expect(await mem.getSessionBody({ id, index: 0, side: 'request' })).toMatchObject({ kind: 'text', data: 'a=b&=' });
      expect(await mem.getSessionBody({ id, index: 1, side: 'response' })).toMatchObject({ kind: 'none' });
      expect((await failure(mem.getSessionField({ id, index: 0, field: { kind: 'url' } }))).code).toBe('NL_NOT_FOUND');
    } finally {
      await mem.close();
    }
  });
});
