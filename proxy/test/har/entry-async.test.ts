/**
 * exchangeToEntryAsync and entriesOf (har/entry-async.ts): the entries the app saves and exports of its live capture,
 * made with the bodies decoded off the event loop. They must be exchangeToEntry's, body for body, bad ones included;
 * and saving a capture must let the proxy's event loop turn.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { entriesOf, exchangeToEntryAsync, fileEntriesOf } from '../../src/har/entry-async.js';
import { SLICE_BYTES } from '../../src/har/content-job.js';
import { PiecesEntry } from '../../src/har/writer.js';
import { exchangeToEntry } from '../../src/har/entry.js';
import { storeBackend } from '../../src/api/session-backend.js';
import type { Exchange } from '../../src/model.js';
import { body, makeExchange } from './make-exchange.js';

const text = 'line of text, ünïcödé\n'.repeat(20_000);
const enc = (coding: string, type = 'text/plain'): [string, string][] => [
  ['Content-Type', type],
  ['Content-Encoding', coding],
];

/** One exchange per kind of body the capture holds, the broken ones too. */
function exchanges(): Exchange[] {
  const form = new URLSearchParams(Array.from({ length: 50 }, (_, i) => [`k${i}`, `v ${i}`])).toString();
  return [
    makeExchange(),
    makeExchange({ resHeaders: enc('gzip'), resBody: body(zlib.gzipSync(text)) }),
    makeExchange({ resHeaders: enc('br'), resBody: body(zlib.brotliCompressSync(text)) }),
    makeExchange({ resHeaders: enc('deflate'), resBody: body(zlib.deflateRawSync(text)) }),
    makeExchange({ resHeaders: enc('gzip, br'), resBody: body(zlib.brotliCompressSync(zlib.gzipSync(text))) }),
    // Cut by the capture limit mid-stream, and not gzip at all.
    makeExchange({ resHeaders: enc('gzip'), resBody: body(zlib.gzipSync(text), 3000) }),
    makeExchange({ resHeaders: enc('gzip'), resBody: body('not gzip') }),
    makeExchange({ resHeaders: enc('br', 'image/png'), resBody: body(zlib.brotliCompressSync(Buffer.from([0, 1, 2, 255]))) }),
    makeExchange({ resHeaders: [['Content-Type', 'text/plain']], resBody: body(text) }),
    makeExchange({
      request: {
        method: 'POST',
        url: 'https://example.test/form',
        httpVersion: 'h2',
        headers: enc('gzip', 'application/x-www-form-urlencoded'),
        body: body(zlib.gzipSync(form)),
      },
    }),
    makeExchange({
      request: { method: 'PUT', url: 'https://example.test/up', httpVersion: 'http/1.1', headers: [], body: body(Buffer.alloc(70_000, 7)) },
    }),
    makeExchange({ response: undefined, error: { code: 'NL_UPSTREAM_REFUSED', message: 'refused', side: 'upstream' } }),
  ];
}

describe('exchangeToEntryAsync', () => {
  it('makes exchangeToEntry’s entry for every kind of body, undecodable and cut ones included', async () => {
    for (const x of exchanges()) {
      expect(await exchangeToEntryAsync(x, { pageref: 'page_1' })).toEqual(exchangeToEntry(x, { pageref: 'page_1' }));
    }
  });

  it('yields the entries in order, one at a time', async () => {
    const xs = exchanges();
    const made = [];
    for await (const e of entriesOf(xs)) made.push(e);
    expect(made).toEqual(xs.map((x) => exchangeToEntry(x)));
  });
});

describe('saving the live capture (storeBackend.saveCapture)', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-entry-async-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('stores the same entries, decoding none of the bodies with zlib’s *Sync calls (the event loop free meanwhile)', async () => {
    // Three bodies of a few KiB each that inflate to 16 MiB: made at once, ~100 ms each with the loop held.
    const bomb = zlib.brotliCompressSync(Buffer.alloc(16 * 1024 * 1024, 'a'), { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } });
    const xs = [...exchanges(), ...[1, 2, 3].map(() => makeExchange({ resHeaders: enc('br'), resBody: body(bomb) }))];
    const expected = xs.map((x) => exchangeToEntry(x));
    const api = storeBackend(dir);
    const syncCalls = (['gunzipSync', 'inflateSync', 'inflateRawSync', 'brotliDecompressSync'] as const).map((f) => vi.spyOn(zlib, f));
    let done = false;
    const saving = api.saveCapture('bombs', xs).finally(() => (done = true));
    let turns = 0;
    while (!done) {
      await new Promise((resolve) => setImmediate(resolve));
      turns++;
    }
    const info = await saving;
    // Exporting the live capture as a HAR file makes its entries the same way.
    const exported = JSON.parse((await api.exportCapture(xs.slice(0, -3))).text).log.entries;
    for (const spy of syncCalls) {
      expect(spy).not.toHaveBeenCalled();
      spy.mockRestore();
    }
    expect(exported).toEqual(JSON.parse(JSON.stringify(expected.slice(0, -3))));
    // The loop turned meanwhile (alone a weak check: writing the file takes turns too; the spies are the strict one).
    expect(turns).toBeGreaterThan(100);
    expect(info.entryCount).toBe(xs.length);
    const { log } = await api.open(info.id);
    expect(log.entries.map((e) => e.response.content.size)).toEqual(expected.map((e) => e.response.content.size));
    expect(log.entries.slice(0, -3)).toEqual(JSON.parse(JSON.stringify(expected.slice(0, -3))));
  });

  it('writes a large body’s JSON a slice per turn, as bytes, into a file that parses to the same entries', async () => {
    // 8 MiB of text (no coding to undo): made whole, its JSON was one string made at once.
    const big = 'x'.repeat(8 * 1024 * 1024 - 3) + 'é\n';
    const xs = [makeExchange(), makeExchange({ resHeaders: [['Content-Type', 'text/plain']], resBody: body(big) }), makeExchange()];
    const kinds = [];
    for await (const e of fileEntriesOf(xs)) kinds.push(e instanceof PiecesEntry ? 'pieces' : 'entry');
    expect(kinds).toEqual(['entry', 'pieces', 'entry']);
    const api = storeBackend(dir);
    // What was made into one string at once: the entry whole, ~100 ms of JSON.stringify and what follows it.
    const stringify = JSON.stringify;
    let longest = 0;
    const spy = vi.spyOn(JSON, 'stringify').mockImplementation((...args: Parameters<typeof JSON.stringify>) => {
      const out = stringify(...args);
      longest = Math.max(longest, out?.length ?? 0);
      return out;
    });
    let info;
    try {
      info = await api.saveCapture('big', xs);
    } finally {
      spy.mockRestore();
    }
    expect(longest).toBeGreaterThan(0);
    expect(longest).toBeLessThan(SLICE_BYTES);
    const { log } = await api.open(info.id);
    expect(log.entries).toEqual(JSON.parse(JSON.stringify(xs.map((x) => exchangeToEntry(x)))));
    expect(info.sizeBytes).toBe(fs.statSync(path.join(dir, 'sessions', `${info.id}.har`)).size);
  });
});
