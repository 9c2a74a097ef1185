import { describe, expect, it } from 'vitest';
import { phaseSegments, phaseTotal } from './phases';

describe('phase segments', () => {
  it('lays phases end to end with ssl split out of connect', () => {
    const segs = phaseSegments({ blocked: 1, dns: 2, connect: 10, ssl: 6, send: 0.5, wait: 20, receive: 3 });
    expect(segs.map((s) => [s.phase, s.start, s.end])).toEqual([
      ['blocked', 0, 1],
      ['dns', 1, 3],
      ['connect', 3, 7],
      ['ssl', 7, 13],
      ['send', 13, 13.5],
      ['wait', 13.5, 33.5],
      ['receive', 33.5, 36.5],
    ]);
    expect(phaseTotal({ blocked: 1, dns: 2, connect: 10, ssl: 6, send: 0.5, wait: 20, receive: 3 })).toBe(36.5);
  });

  it('drops -1, missing and negative phases (HAR: not applicable)', () => {
    const segs = phaseSegments({ blocked: -1, dns: -1, connect: -1, ssl: -1, send: 1, wait: -3, receive: 2 });
    expect(segs.map((s) => s.phase)).toEqual(['send', 'receive']);
    expect(phaseSegments(undefined)).toEqual([]);
  });
});
