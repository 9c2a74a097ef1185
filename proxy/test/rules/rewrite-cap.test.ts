/**
 * A response body rewrite holds at most REWRITE_BODY_LIMIT (read and decoded): a larger body
 * is passed through unchanged, header edits still apply, and the rule notes it on the exchange.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { curl, httpOrigin, tempDataDir, testProxy, type Origin, type TestProxy } from '../proxy/harness.js';
import { REWRITE_BODY_LIMIT } from '../../src/rules/read-body.js';
import { decodeBounded } from '../../src/rules/edits.js';
import { harOf, holderWith } from './rules-harness.js';

const OVER = REWRITE_BODY_LIMIT + 100_000;
// 'a' repeated: a rewrite of a → b shows whether the body was touched.
const bomb = zlib.gzipSync(Buffer.alloc(OVER, 'a'));

let origin: Origin;
let tp: TestProxy;
const dir = tempDataDir();

beforeAll(async () => {
  origin = await httpOrigin((req, res) => {
    const size = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('size'));
    if (req.url?.startsWith('/gz')) {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip', 'content-length': String(bomb.length) });
      res.end(bomb);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(size) });
    res.end(Buffer.alloc(size, 'a'));
  });
  const rules = holderWith([
    {
      id: 'a2b',
      name: 'a to b',
      match: {},
      actions: [{ type: 'rewriteResponse', headers: { set: { 'X-Edited': 'yes' } }, body: { replace: [{ regex: 'a', with: 'b' }] } }],
    },
  ]);
  tp = await testProxy({ dataDir: dir, rules });
});
afterAll(async () => {
  await tp.stop();
  await origin.close();
});

const fetchVia = async (p: string) => {
  const out = path.join(dir, 'out.bin');
  const r = await curl(['-x', tp.proxy.address.url, '-D', '-', '-o', out, `${origin.url}${p}`], 30_000);
  return { head: r.stdout, body: fs.readFileSync(out) };
};

describe('response body rewrite cap', () => {
  it('rewrites a body under the cap; passes one over it through unchanged with the headers edited and a _rules note', async () => {
    const n = tp.exchanges().length;
    const small = await fetchVia('/plain?size=1000');
    expect(small.body.equals(Buffer.alloc(1000, 'b'))).toBe(true);
    await tp.waitFor(n + 1);
    expect(harOf(tp.exchanges().at(-1)!)._rules).toEqual([{ id: 'a2b', name: 'a to b', actions: ['rewriteResponse'] }]);

    const big = await fetchVia(`/plain?size=${OVER}`);
    expect(big.head).toMatch(/x-edited: yes/i);
    expect(big.head).toMatch(new RegExp(`content-length: ${OVER}\\r\\n`, 'i'));
    expect(big.body.length).toBe(OVER);
    expect(big.body.equals(Buffer.alloc(OVER, 'a'))).toBe(true);
    await tp.waitFor(n + 2);
    const x = tp.exchanges().at(-1)!;
    expect(x.error).toBeUndefined();
    expect(harOf(x)._rules).toEqual([
      { id: 'a2b', name: 'a to b', actions: ['rewriteResponse'], note: 'body over 8 MiB: passed through unchanged (body rewrite skipped)' },
    ]);
    // The note belongs to that exchange only: the next small one is rewritten and carries none.
    await fetchVia('/plain?size=10');
    await tp.waitFor(n + 3);
    expect(harOf(tp.exchanges().at(-1)!)._rules).toEqual([{ id: 'a2b', name: 'a to b', actions: ['rewriteResponse'] }]);
  });

  it('a small compressed body that would decode past the cap is passed through still compressed, and noted', async () => {
    const n = tp.exchanges().length;
    const atOnce = vi.spyOn(zlib, 'gunzipSync');
    const gz = await fetchVia('/gz');
    // Decoded on the thread pool up to the cap: zlib's *Sync call held the proxy's event loop meanwhile.
    expect(atOnce).not.toHaveBeenCalled();
    atOnce.mockRestore();
    expect(gz.head).toMatch(/content-encoding: gzip/i);
    expect(gz.body.equals(bomb)).toBe(true);
    await tp.waitFor(n + 1);
    expect((harOf(tp.exchanges().at(-1)!)._rules as { note?: string }[])[0]!.note).toMatch(/passed through unchanged/);
  });
});

describe("decodeBounded (the rules' decoding of a whole body)", () => {
  const text = Buffer.from('rewrite me '.repeat(1000));
  it('decodes each coding, and says too-large past the bound in every coding, deflate (zlib and raw) included', async () => {
    for (const [coding, wire] of [
      ['gzip', zlib.gzipSync(text)],
      ['x-gzip', zlib.gzipSync(text)],
      ['deflate', zlib.deflateSync(text)],
      ['deflate', zlib.deflateRawSync(text)],
      ['br', zlib.brotliCompressSync(text)],
    ] as const) {
      expect((await decodeBounded(wire, coding, text.length)) as Buffer).toEqual(text);
      expect(await decodeBounded(wire, coding, text.length - 1)).toBe('too-large');
    }
    expect(await decodeBounded(text, undefined, text.length)).toBe(text);
    expect(await decodeBounded(text, 'identity', text.length - 1)).toBe('too-large');
  });

  it('gives undefined for an unknown coding, bytes that are not the coding, and a body that ends early', async () => {
    expect(await decodeBounded(text, 'zstd', 1e9)).toBeUndefined();
    expect(await decodeBounded(text, 'gzip', 1e9)).toBeUndefined();
    const gz = zlib.gzipSync(text);
    expect(await decodeBounded(gz.subarray(0, gz.length - 10), 'gzip', 1e9)).toBeUndefined();
    const br = zlib.brotliCompressSync(text);
    expect(await decodeBounded(br.subarray(0, br.length - 3), 'br', 1e9)).toBeUndefined();
  });
});
