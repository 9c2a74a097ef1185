/**
 * The live capture's body view (api/body-view.ts): what the UI's Body tab shows of a captured body. Decoded as the
 * HAR decodes it, off the event loop, keeping only what is shown.
 */
import zlib from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { bodyView, DISPLAY_LIMIT } from '../../src/api/body-view.js';
import { decodeContent, decodeContentAsync } from '../../src/har/body.js';
import { harContent } from '../../src/har/entry.js';
import { makeExchange } from '../har/make-exchange.js';

const capture = (bytes: Uint8Array, truncated = false, size = bytes.length) => ({ size, bytes, truncated });
/** Brotli at a low quality: the default (11) takes seconds on bodies of MiBs. */
const brotli = (b: Buffer | string) => zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } });
const json = (enc: string, bytes: Buffer, truncated = false) =>
  bodyView(capture(bytes, truncated), [
    ['content-type', 'application/json'],
    ['content-encoding', enc],
  ]);

/** Event-loop turns taken while `work` runs (1 or 0 for work done at once). */
async function turnsDuring<T>(work: Promise<T>): Promise<{ turns: number; result: T }> {
  let done = false;
  const settled = work.finally(() => (done = true));
  let turns = 0;
  while (!done) {
    await new Promise((resolve) => setImmediate(resolve));
    turns++;
  }
  return { turns, result: await settled };
}

describe('body view', () => {
  it('decodes br, deflate (zlib and raw), x-gzip, a list of codings and a truncated gzip body', async () => {
    const text = JSON.stringify({ a: 'x'.repeat(5000) });
    expect((await json('br', brotli(text))).data).toBe(text);
    expect((await json('deflate', zlib.deflateSync(text))).data).toBe(text);
    expect((await json('deflate', zlib.deflateRawSync(text))).data).toBe(text);
    expect(await json('x-gzip', zlib.gzipSync(text))).toMatchObject({ data: text, contentEncoding: 'x-gzip' });
    // Applied in the order listed (gzip first), undone last first: the view said "unsupported" before.
    const both = await json('gzip, br', brotli(zlib.gzipSync(text)));
    expect(both).toMatchObject({ kind: 'text', data: text, contentEncoding: 'gzip, br', decodedSize: text.length });
    const gz = zlib.gzipSync(Buffer.from('y'.repeat(200_000)));
    const cut = await json('gzip', gz.subarray(0, Math.floor(gz.length / 2)), true);
    expect(cut.kind).toBe('text');
    expect(cut.captureTruncated).toBe(true);
    expect(cut.data.length).toBeGreaterThan(1000);
  });

  it('falls back to the raw bytes when decoding fails, and flags binary as base64', async () => {
    const bad = await json('gzip', Buffer.from('not gzip at all'));
    expect(bad.decodeError).toMatch(/^Content-Encoding gzip could not be decoded: .+; showing the raw bytes\.$/);
    expect(bad).toMatchObject({ kind: 'base64', data: Buffer.from('not gzip at all').toString('base64') });
    const unknown = await json('zstd', Buffer.from('abc'));
    expect(unknown.decodeError).toMatch(/^Content-Encoding zstd could not be decoded: unsupported content coding "zstd"/);
    const png = await bodyView(capture(new Uint8Array([0x89, 0x50, 0x4e, 0x47])), [['Content-Type', 'image/png']]);
    expect(png).toMatchObject({ kind: 'base64', data: 'iVBORw==', mimeType: 'image/png' });
    const none = await bodyView(capture(new Uint8Array()), []);
    expect(none.kind).toBe('none');
    expect((await bodyView(undefined, [])).kind).toBe('none');
  });

  it('cuts huge bodies for display and says so', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024, 'a');
    const v = await bodyView(capture(big), [['content-type', 'text/plain']]);
    expect(v.displayTruncated).toBe(true);
    expect(v.data.length).toBe(DISPLAY_LIMIT);
    expect(v.decodedSize).toBe(big.length);
    const small = await bodyView(capture(Buffer.from('hi')), [['content-type', 'text/plain']]);
    expect(small).toMatchObject({ displayTruncated: false, data: 'hi', decodedSize: 2 });
  });

  it('shows what the HAR holds of the same body (the view and an export agree)', async () => {
    const text = 'z'.repeat(300_000);
    for (const [enc, wire] of [
      ['gzip', zlib.gzipSync(text)],
      ['br', brotli(text)],
      ['deflate', zlib.deflateRawSync(text)],
    ] as const) {
      const headers: [string, string][] = [
        ['Content-Type', 'text/plain'],
        ['Content-Encoding', enc],
      ];
      const x = makeExchange({ resHeaders: headers, resBody: capture(wire) });
      const har = harContent(x);
      const view = await bodyView(capture(wire), headers);
      expect(view.data).toBe(har.text);
      expect(view.decodedSize).toBe(har.size);
    }
  });

  it('decodes a brotli bomb without holding the event loop, keeping only what it shows', async () => {
    // 16 MiB of text from a few KiB of brotli: decoded at once, ~100 ms in which no exchange moved.
    const inflated = 16 * 1024 * 1024;
    const bomb = brotli(Buffer.alloc(inflated, 'a'));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const brotliAtOnce = vi.spyOn(zlib, 'brotliDecompressSync');
    const { turns, result } = await turnsDuring(
      bodyView(capture(bomb), [
        ['Content-Type', 'text/plain'],
        ['Content-Encoding', 'br'],
      ]),
    );
    // zlib reports each 16 KiB of output from the thread pool: the loop turns between them (at once: no turn).
    expect(turns).toBeGreaterThanOrEqual(10);
    expect(brotliAtOnce).not.toHaveBeenCalled();
    brotliAtOnce.mockRestore();
    expect(result).toMatchObject({ kind: 'text', decodedSize: inflated, displayTruncated: true, contentEncoding: 'br' });
    expect(result.data.length).toBe(DISPLAY_LIMIT);
  });
});

describe('decodeContentAsync with keep', () => {
  const text = Buffer.from('0123456789'.repeat(100_000));

  it('keeps the first bytes and counts the rest', async () => {
    for (const keep of [0, 1, 16 * 1024 - 1, 16 * 1024, 123_457]) {
      const d = await decodeContentAsync(zlib.gzipSync(text), 'gzip', false, undefined, keep);
      expect(d.bytes.equals(text.subarray(0, keep))).toBe(true);
      expect(d.fullLength).toBe(text.length);
      expect(d).toMatchObject({ decoded: ['gzip'], partial: false });
    }
  });

  it('is decodeContent when the body fits what it keeps, and applies the bound to the last coding only', async () => {
    const wire = brotli(zlib.deflateSync(text));
    const whole = await decodeContentAsync(wire, 'deflate, br', false, undefined, text.length);
    const atOnce = decodeContent(wire, 'deflate, br', false);
    // Buffer.equals: vitest's deep equality walks a MiB byte by byte for seconds.
    expect(whole.bytes.equals(atOnce.bytes)).toBe(true);
    expect({ ...whole, bytes: 0 }).toEqual({ ...atOnce, bytes: 0 });
    expect(whole.fullLength).toBeUndefined();
    const kept = await decodeContentAsync(wire, 'deflate, br', false, undefined, 10);
    expect(kept.bytes.toString()).toBe('0123456789');
    expect(kept.fullLength).toBe(text.length);
  });

  it('still refuses output past the decoding bound, kept or not', async () => {
    const wire = zlib.gzipSync(text);
    const d = await decodeContentAsync(wire, 'gzip', false, 1000, 10);
    expect(d.error).toMatch(/^gzip: Cannot create a Buffer larger than 1000 bytes/);
    expect(d.bytes).toEqual(wire);
    expect(d.fullLength).toBeUndefined();
  });
});
