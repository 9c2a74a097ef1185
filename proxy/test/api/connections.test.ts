/** getConnections: the socket timeline and stalls of the live capture and of saved sessions, bounded. */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreService } from '../../src/api/core-service.js';
import { storeBackend } from '../../src/api/session-backend.js';
import { connectionsView } from '../../src/api/connections-view.js';
import { invoke } from '../../src/api/invoke.js';
import { startProxy } from '../../src/server/proxy-server.js';
import type { ProxyHandle } from '../../src/server/proxy-server.js';
import type { TimelineLog } from '../../src/timeline/types.js';
import { httpOrigin, keepAliveGets, tempDataDir, type Origin } from '../proxy/harness.js';
import { exchange, fakeProxy } from './helpers.js';
import { fakeBackends } from './fake-backends.js';

let origin: Origin;
beforeAll(async () => {
  origin = await httpOrigin((_req, res) => {
    res.setHeader('content-type', 'text/plain');
    res.end('hello');
  });
});
afterAll(() => origin.close());

const until = async (cond: () => Promise<boolean> | boolean) => {
  for (let i = 0; i < 300 && !(await cond()); i++) await new Promise((r) => setTimeout(r, 10));
  expect(await cond()).toBe(true);
};

/** A timeline with one stall: 100 bytes written 1 ms after an unacknowledged write, then 41 ms of client silence. */
function stallLog(): TimelineLog {
  return {
    _connections: [
      {
        id: 'c1',
        leg: 'client',
        opened: 1000,
        events: [
          { t: 1001, d: 'r', n: 80, x: 'x1' },
          { t: 1010, d: 'w', n: 200, x: 'x1', nagle: true },
          { t: 1011, d: 'w', n: 100, x: 'x1', nagle: true },
          { t: 1052, d: 'r', n: 80, x: 'x2' },
          { t: 1060, d: 'w', n: 300, x: 'x2', nagle: true },
        ],
      },
      {
        id: 'u1',
        leg: 'upstream',
        opened: 1002,
        events: [
          { t: 1003, d: 'w', n: 90, x: 'x1' },
          { t: 1009, d: 'r', n: 300, x: 'x1' },
        ],
      },
      { id: 'u9', leg: 'upstream', opened: 1100, events: [{ t: 1101, d: 'w', n: 90, x: 'other' }] },
    ],
    _connectionsDropped: 0,
    _connectionsTimeOrigin: 1_700_000_000_000,
  };
}

describe('connectionsView (pure)', () => {
  it('maps exchange ids to rows, keeps stalls with their message, filters to one exchange, and caps events per lane', () => {
    const rows = new Map([
      ['x1', 'h0'],
      ['x2', 'h1'],
    ]);
    const view = connectionsView(stallLog(), { rowOf: (x) => rows.get(x) });
    expect(view.connections.map((c) => c.id)).toEqual(['c1', 'u1', 'u9']);
    expect(view.timeOrigin).toBe(1_700_000_000_000);
    expect(view.stalls).toHaveLength(1);
    expect(view.stalls[0]).toMatchObject({ connectionId: 'c1', exchangeId: 'h0', bytes: 100, ms: 41 });
    expect(view.stalls[0]!.message).toMatch(/Nagle/);
    expect(view.stallsByExchange).toEqual({ h0: { count: 1, ms: 41 } });
    expect(view.connections[0]!.exchanges).toEqual([
      { id: 'h0', from: 1001, to: 1011 },
      { id: 'h1', from: 1052, to: 1060 },
    ]);
    // An exchange not in the capture (cleared) keeps its tick but loses its tag.
    expect(view.connections[2]!.events[0]!.x).toBeUndefined();

    const one = connectionsView(stallLog(), { rowOf: (x) => rows.get(x), only: { rowId: 'h0', connectionIds: [] } });
    expect(one.connections.map((c) => c.id)).toEqual(['c1', 'u1']);

    const many = {
      ...stallLog(),
      _connections: [{ id: 'c1', leg: 'client', opened: 0, events: Array.from({ length: 500 }, (_, i) => ({ t: i, d: 'w', n: 1 })) }],
    };
    const capped = connectionsView(many, { rowOf: () => undefined, maxEvents: 120 });
    expect(capped.connections[0]!.events).toHaveLength(120);
    expect(capped.connections[0]!.eventsOmitted).toBe(380);
    expect(capped.totals).toMatchObject({ events: 500, eventsShown: 120 });
  });

  it('totals stall time on the wall clock: the same stall on two parallel connections counts once', () => {
    const log = stallLog();
    const twin = { ...log._connections[0]!, id: 'c2', events: log._connections[0]!.events.map((e) => ({ ...e, t: e.t + 5 })) };
    const view = connectionsView({ ...log, _connections: [...log._connections, twin] }, { rowOf: () => undefined });
    expect(view.stalls).toHaveLength(2);
    expect(view.stalls.map((x) => x.ms)).toEqual([41, 41]);
    expect(view.totals.stallMs).toBe(46); // [1011, 1052] ∪ [1016, 1057], not 82
  });

  it('says so when there is no timeline', () => {
    const view = connectionsView({ entries: [] }, { rowOf: () => undefined });
    expect(view.connections).toEqual([]);
    expect(view.note).toMatch(/No socket timeline/);
  });
});

/** A core over the real proxy and session store; `proxy()` is the proxy it started last (a restart starts another). */
function liveCore() {
  const dir = tempDataDir();
  let handle: ProxyHandle | undefined;
  const s = new CoreService({
    ...fakeBackends(),
    dataDir: dir,
    proxy: { port: 0 },
    sessions: storeBackend(dir),
    batchMs: 10,
    startProxy: async (o) => (handle = await startProxy({ ...o, port: 0 })),
  });
  return { s, dir, proxy: () => handle! };
}

describe('getConnections', () => {
  it("returns the running proxy's lanes for the live capture, stores them with a saved session, and reads them back by row", async () => {
    const { s, dir, proxy } = liveCore();
    try {
      await s.startProxy();
      await keepAliveGets(proxy().address.port, origin.url, 3);
      await until(async () => (await s.listExchanges()).filter((r) => r.state === 'complete').length === 3);
      const rows = await s.listExchanges();
      const live = await s.getConnections();
      expect(live.note).toBeUndefined();
      const client = live.connections.filter((c) => c.leg === 'client');
      const upstream = live.connections.filter((c) => c.leg === 'upstream');
      expect(client).toHaveLength(1);
      expect(upstream).toHaveLength(1);
      // Every row is on both lanes, with reads and writes tagged with its id.
      for (const r of rows) {
        for (const lane of [client[0]!, upstream[0]!]) {
          expect(lane.exchanges.map((x) => x.id)).toContain(r.id);
          expect(lane.events.filter((e) => e.x === r.id && e.d === 'w').length).toBeGreaterThan(0);
          expect(lane.events.filter((e) => e.x === r.id && e.d === 'r').length).toBeGreaterThan(0);
        }
      }
      expect(upstream[0]!.id).toBe(rows[0]!.connection);
      // Both transports get it: through the dispatcher, with one exchange.
      const reply = await invoke(s, 'getConnections', { exchangeId: rows[1]!.id }, { where: 'test' });
      expect(reply.ok).toBe(true);
      const one = (reply as { result: typeof live }).result;
      expect(one.connections.map((c) => c.id).sort()).toEqual([client[0]!.id, upstream[0]!.id].sort());
      const missing = await invoke(s, 'getConnections', { exchangeId: 'nope' }, { where: 'test' });
      expect(missing).toMatchObject({ ok: false, error: { code: 'NL_NOT_FOUND' } });
      const wrong = await invoke(s, 'getConnections', { sessionId: 5 }, { where: 'test' });
      expect(wrong).toMatchObject({ ok: false, error: { code: 'NL_API_BAD_REQUEST' } });
      expect((wrong as { error: { message: string } }).error.message).toContain('"sessionId" must be a string');

      // Saved as a session: the HAR holds log._connections, and the session view uses row ids h0…
      const info = await s.saveSession({ name: 'with timeline' });
      const har = JSON.parse(fs.readFileSync(`${dir}/sessions/${info.id}.har`, 'utf8').toString()).log;
      expect(Array.isArray(har._connections)).toBe(true);
      expect(har._connections.length).toBe(2);
      const saved = await s.getConnections({ sessionId: info.id });
      expect(saved.connections.map((c) => c.id).sort()).toEqual([client[0]!.id, upstream[0]!.id].sort());
      expect(saved.connections.find((c) => c.leg === 'client')!.exchanges.map((x) => x.id)).toEqual(['h0', 'h1', 'h2']);
      const h1 = await s.getConnections({ sessionId: info.id, exchangeId: 'h1' });
      expect(h1.connections).toHaveLength(2);

      // Clearing the capture starts its timeline afresh.
      await s.clearExchanges();
      expect((await s.getConnections()).totals.events).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('keeps the rows and the lanes of the live capture across a proxy restart (a settings change)', async () => {
    const { s, proxy } = liveCore();
    try {
      await s.startProxy();
      await keepAliveGets(proxy().address.port, origin.url, 2);
      await until(async () => (await s.listExchanges()).filter((r) => r.state === 'complete').length === 2);
      const first = proxy();
      await s.configureProxy({ nagle: true }); // restarts the running proxy
      expect(proxy()).not.toBe(first);
      await keepAliveGets(proxy().address.port, origin.url, 2);
      await until(async () => (await s.listExchanges()).filter((r) => r.state === 'complete').length === 4);
      const rows = await s.listExchanges();
      // Before ids were counted per process, the second proxy's "x1" replaced the first one's row.
      expect(new Set(rows.map((r) => r.id)).size).toBe(4);
      const live = await s.getConnections();
      expect(live.connections.filter((c) => c.leg === 'client')).toHaveLength(2);
      expect(new Set(live.connections.map((c) => c.id)).size).toBe(live.connections.length);
      for (const r of rows) expect(live.connections.some((c) => c.exchanges.some((x) => x.id === r.id))).toBe(true);
      // Clearing the capture forgets both proxies' lanes.
      await s.clearExchanges();
      expect((await s.getConnections()).totals.events).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('names a stall of the live capture by row, and keeps it through saveSession', async () => {
    const dir = tempDataDir();
    const fake = fakeProxy();
    const log = stallLog();
    const s = new CoreService({
      ...fakeBackends(),
      dataDir: dir,
      sessions: storeBackend(dir),
      batchMs: 10,
      startProxy: async (o) => ({ ...(await fake.start(o)), timeline: { toLog: () => log } as unknown as ProxyHandle['timeline'] }),
    });
    try {
      await s.startProxy();
      fake.emit({ type: 'complete', exchange: exchange('x1') });
      fake.emit({ type: 'complete', exchange: exchange('x2') });
      const live = await s.getConnections();
      expect(live.stalls.map((x) => [x.exchangeId, x.ms])).toEqual([['x1', 41]]);
      expect(live.stallsByExchange).toEqual({ x1: { count: 1, ms: 41 } });
      const info = await s.saveSession({ name: 'stall' });
      const saved = await s.getConnections({ sessionId: info.id });
      expect(saved.stalls.map((x) => [x.exchangeId, x.ms])).toEqual([['h0', 41]]);
      expect(saved.stalls[0]!.message).toMatch(/delayed ACK/);

      // A HAR from elsewhere has no timeline: the answer is empty and says why.
      const har = { log: { version: '1.2', creator: { name: 'other', version: '1' }, pages: [], entries: [] } };
      const imported = await s.importHar({ fileName: 'other.har', text: JSON.stringify(har) });
      const none = await s.getConnections({ sessionId: imported.id });
      expect(none.connections).toEqual([]);
      expect(none.note).toMatch(/No socket timeline was recorded/);
    } finally {
      await s.close();
    }
  });
});
