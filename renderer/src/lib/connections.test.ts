import { describe, expect, it } from 'vitest';
import type { ConnectionLane, ConnectionsView, ExchangeSummary } from '../../../proxy/src/api/contract';
import {
  binAt,
  connectionsExtent,
  focusView,
  laneBars,
  laneCounts,
  neighboursOf,
  orderLanes,
  stallLabel,
  stallRange,
  tickBins,
  tickHeight,
} from './connections';

const lane = (
  id: string,
  leg: 'client' | 'upstream',
  opened: number,
  exchanges: string[],
  events: ConnectionLane['events'] = [],
): ConnectionLane => ({
  id,
  leg,
  opened,
  events,
  eventsOmitted: 0,
  exchanges: exchanges.map((x, i) => ({ id: x, from: opened + i * 10, to: opened + i * 10 + 5 })),
});

const view = (connections: ConnectionLane[], extra: Partial<ConnectionsView> = {}): ConnectionsView => ({
  timeOrigin: 1_000_000,
  connections,
  connectionsOmitted: 0,
  stalls: [],
  stallsOmitted: 0,
  stallsByExchange: {},
  totals: { connections: connections.length, events: 0, eventsShown: 0, stalls: 0, stallMs: 0 },
  recorderDropped: 0,
  ...extra,
});

const row = (id: string, startTime: number, wait: number): ExchangeSummary =>
  ({ id, startTime, timings: { blocked: 1, dns: -1, connect: -1, ssl: -1, send: 1, wait, receive: 2 } }) as ExchangeSummary;

describe('orderLanes', () => {
  it('puts each client lane before the upstream lanes its exchanges used, others after', () => {
    const lanes = [
      lane('u2', 'upstream', 5, ['b']),
      lane('c1', 'client', 1, ['a', 'b']),
      lane('u1', 'upstream', 2, ['a']),
      lane('u9', 'upstream', 9, ['z']),
    ];
    expect(orderLanes(lanes).map((l) => l.id)).toEqual(['c1', 'u1', 'u2', 'u9']);
  });
});

describe('laneBars and connectionsExtent', () => {
  it("draws an exchange with its row's phases from its start, or its events' span without a row", () => {
    const l = lane('c1', 'client', 10, ['a', 'gone']);
    const rows = new Map([['a', row('a', 1_000_020, 30)]]);
    const bars = laneBars(view([l]), l, rows);
    expect(bars[0]).toMatchObject({ rowId: 'a', start: 1_000_020, total: 34 });
    expect(bars[0]!.segments.map((s) => s.phase)).toEqual(['blocked', 'send', 'wait', 'receive']);
    expect(bars[1]).toEqual({ rowId: 'gone', start: 1_000_020, segments: [], total: 5 });
    const ext = connectionsExtent(view([{ ...l, events: [{ t: 5, d: 'r', n: 10 }] }]), rows);
    expect(ext).toEqual({ start: 1_000_005, end: 1_000_054 });
    expect(connectionsExtent(view([]), rows)).toBeUndefined();
  });
});

describe('tickBins', () => {
  it('bins events per pixel column and direction, summing bytes, and drops those off the track', () => {
    const l = lane(
      'c1',
      'client',
      0,
      [],
      [
        { t: 1.1, d: 'w', n: 100, x: 'a', nagle: true },
        { t: 1.4, d: 'w', n: 50, x: 'b' },
        { t: 1.2, d: 'r', n: 7 },
        { t: 50, d: 'w', n: 1 },
      ],
    );
    const bins = tickBins(view([l]), l, (e) => e - 1_000_000, 10);
    expect(bins).toEqual([
      { px: 1, at: 1_000_001.2, d: 'r', count: 1, bytes: 7, nagle: false, rows: [] },
      { px: 1, at: 1_000_001.1, d: 'w', count: 2, bytes: 150, nagle: true, rows: ['a', 'b'] },
    ]);
    expect(binAt(bins, 3, 'w')?.bytes).toBe(150);
    expect(binAt(bins, 6, 'w')).toBeUndefined();
  });

  it('scales tick heights by bytes on a log scale, within bounds', () => {
    expect(tickHeight(0, 14)).toBe(3);
    expect(tickHeight(100, 14)).toBeLessThan(tickHeight(100_000, 14));
    expect(tickHeight(10 ** 9, 14)).toBe(14);
  });
});

describe('stalls and neighbours', () => {
  it('places a stall on the epoch axis and labels counts', () => {
    expect(stallRange(view([]), { connectionId: 'c1', at: 10, ms: 41, bytes: 100, message: 'm' })).toEqual({
      start: 1_000_010,
      end: 1_000_051,
    });
    expect(stallLabel({ count: 1, ms: 41.23 })).toBe('1 stall, 41 ms');
    expect(stallLabel({ count: 2, ms: 3.14 })).toBe('2 stalls, 3.1 ms');
  });

  it('finds the exchanges before and after one on each lane', () => {
    const c = lane('c1', 'client', 0, ['a', 'b', 'c']);
    const u = lane('u1', 'upstream', 0, ['b']);
    const n = neighboursOf([c, u], 'b');
    expect(n.map(({ index, previous, next }) => ({ index, previous, next }))).toEqual([
      { index: 1, previous: 'a', next: 'c' },
      { index: 0, previous: undefined, next: undefined },
    ]);
    expect(
      laneCounts({
        ...c,
        events: [
          { t: 0, d: 'w', n: 5 },
          { t: 1, d: 'r', n: 3 },
          { t: 2, d: 'w', n: 1 },
        ],
      }),
    ).toEqual({ writes: 2, reads: 1, written: 6, read: 3 });
  });
});

describe('focusView', () => {
  it('keeps only the events, exchanges and stalls of the given rows', () => {
    const c = lane(
      'c1',
      'client',
      0,
      ['a', 'b', 'c'],
      [
        { t: 1, d: 'r', n: 1, x: 'a' },
        { t: 11, d: 'r', n: 1, x: 'b' },
        { t: 12, d: 'w', n: 1 },
      ],
    );
    const v = view([c], { stalls: [{ connectionId: 'c1', exchangeId: 'c', at: 20, ms: 40, bytes: 1, message: 'm' }] });
    const f = focusView(v, new Set(['b', 'c']));
    expect(f.connections[0]!.events.map((e) => e.x)).toEqual(['b']);
    expect(f.connections[0]!.exchanges.map((x) => x.id)).toEqual(['b', 'c']);
    expect(f.stalls).toHaveLength(1);
    expect(focusView(v, new Set(['a'])).stalls).toHaveLength(0);
  });
});
