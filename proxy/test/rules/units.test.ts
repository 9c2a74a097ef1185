/** The pure parts: header and body edits, merge patch, globs, and connection-shared bandwidth. */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { editBody, editHeaders, injectScriptTag, mergePatch } from '../../src/rules/edits.js';
import { globToRegExp } from '../../src/rules/match.js';
import { throttled } from '../../src/rules/pacing.js';
import { readAll } from '../../src/rules/read-body.js';

describe('edits', () => {
  it('header set replaces every value of a name in place, add appends, remove drops (any case)', () => {
    const h = editHeaders(
      [
        ['Accept', 'a'],
        ['X-A', '1'],
        ['x-a', '2'],
        ['Cookie', 'c'],
      ],
      { set: { 'x-A': 'new' }, add: { 'X-B': 'b' }, remove: ['COOKIE'] },
    );
    expect(h).toEqual([
      ['Accept', 'a'],
      ['X-A', 'new'],
      ['X-B', 'b'],
    ]);
  });

  it('merge patch follows RFC 7396 (null deletes, objects merge, arrays replace)', () => {
    expect(mergePatch({ a: 1, b: { c: 2, d: 3 }, e: [1] }, { a: null, b: { c: null, x: 1 }, e: [2] })).toEqual({
      b: { d: 3, x: 1 },
      e: [2],
    });
    expect(editBody(Buffer.from('not json'), { jsonMergePatch: { a: 1 } }).toString()).toBe('not json');
    expect(editBody(Buffer.from('a-1 b-2'), { replace: [{ regex: '(\\w)-(\\d)', with: '$2$1' }] }).toString()).toBe('1a 2b');
  });

  it('injects a script tag before </head>, or at the start without one; escapes the URL', () => {
    expect(injectScriptTag(Buffer.from('<html><HEAD></HEAD></html>'), '/a.js?x=1&y="2"').toString()).toBe(
      '<html><HEAD><script src="/a.js?x=1&amp;y=&quot;2&quot;"></script></HEAD></html>',
    );
    expect(injectScriptTag(Buffer.from('<p>x</p>'), '/a.js').toString()).toBe('<script src="/a.js"></script><p>x</p>');
  });

  it('globs: * any run, ? one character, the rest literal', () => {
    expect(globToRegExp('/api/*.json').test('/api/v1/x.json')).toBe(true);
    expect(globToRegExp('/a?c').test('/abc')).toBe(true);
    expect(globToRegExp('/a.c').test('/abc')).toBe(false);
  });
});

describe('bandwidth', () => {
  it('two streams of one connection share its bandwidth; another connection has its own', async () => {
    const bps = 400_000;
    const body = () => Readable.from([Buffer.alloc(100_000)]);
    const time = async (streams: Readable[]) => {
      const t = performance.now();
      await Promise.all(streams.map((s) => readAll(s)));
      return performance.now() - t;
    };
    const shared = await time([throttled(body(), 'c1:down', bps), throttled(body(), 'c1:down', bps)]);
    const separate = await time([throttled(body(), 'c2:down', bps), throttled(body(), 'c3:down', bps)]);
    // 200 kB over one 400 kB/s link ≈ 500 ms; two links carry 100 kB each in ≈ 250 ms.
    expect(shared).toBeGreaterThan(separate * 1.5);
    expect(shared).toBeGreaterThan(425);
  });
});
