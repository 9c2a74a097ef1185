import { describe, expect, it } from 'vitest';
import { base64ToBytes, displayName, formatBytes, formatMs, formatPValue, formatRatio, hexDump, prettyJson } from './format';

describe('formatting', () => {
  it('formats sizes with kB = 1000 B like DevTools', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(1500)).toBe('1.50 kB');
    expect(formatBytes(23_866)).toBe('23.9 kB');
    expect(formatBytes(3_400_000)).toBe('3.40 MB');
    expect(formatBytes(-1)).toBe('–');
  });

  it('formats durations with sensible precision', () => {
    expect(formatMs(0.421)).toBe('0.42 ms');
    expect(formatMs(12.34)).toBe('12.3 ms');
    expect(formatMs(245.6)).toBe('246 ms');
    expect(formatMs(1240)).toBe('1.24 s');
    expect(formatMs(-1)).toBe('–');
    expect(formatMs(125_000)).toBe('2.1 min');
    expect(formatMs(169257.9 * 60_000)).toBe('117.5 d');
  });

  it('formats ratios and p-values for the lab table', () => {
    expect(formatRatio(1)).toBe('×1.00');
    expect(formatRatio(18.24)).toBe('×18.2');
    expect(formatPValue(0.0321)).toBe('0.032');
    expect(formatPValue(0.0002)).toBe('< 0.001');
    expect(formatPValue(undefined)).toBe('–');
  });

  it('names a request by its last path segment', () => {
    expect(displayName('https://a.example/img/cat.png?x=1')).toBe('cat.png?x=1');
    expect(displayName('https://a.example/')).toBe('a.example');
    expect(displayName('not a url')).toBe('not a url');
  });

  it('dumps bytes as hex with ASCII', () => {
    const dump = hexDump(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a]));
    expect(dump).toBe('00000000  89 50 4e 47 0d 0a' + ' '.repeat(47 - 17) + '  .PNG..');
    expect(hexDump(new Uint8Array(40), 16).split('\n')).toHaveLength(1);
    expect(Array.from(base64ToBytes('AAEC'))).toEqual([0, 1, 2]);
  });

  it('pretty-prints JSON and leaves other text alone', () => {
    expect(prettyJson('{"a":[1,2]}')).toBe('{\n  "a": [\n    1,\n    2\n  ]\n}');
    expect(prettyJson('<html>')).toBeUndefined();
    expect(prettyJson('{broken')).toBeUndefined();
  });
});
