import fs from 'node:fs';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { exportJournal } from '../../src/har/journal.js';
import { HarRecorder } from '../../src/har/recorder.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchangeToEntry } from '../../src/har/entry.js';
import { connectionsDropped, connectionsOf } from '../../src/timeline/har.js';
import { Timeline } from '../../src/timeline/recorder.js';
import { httpOrigin, keepAliveGets, tempDataDir, testProxy, type Origin } from '../proxy/harness.js';

let origin: Origin;
beforeAll(async () => {
  origin = await httpOrigin((_req, res) => {
    res.setHeader('content-type', 'text/plain');
    res.end('hello');
  });
});
afterAll(() => origin.close());

describe('socket timeline', () => {
  it('records writes and reads on both legs, tagged with their exchange, and survives a HAR round trip', async () => {
    const tp = await testProxy({ intercept: true, nagle: true });
    try {
      await keepAliveGets(tp.proxy.address.port, origin.url, 3);
      const xs = await tp.waitFor(3);
      const log = JSON.parse(JSON.stringify({ ...tp.proxy.timeline!.toLog(), entries: xs.map((x) => exchangeToEntry(x)) }));
      const conns = connectionsOf(log);
      const client = conns.filter((c) => c.leg === 'client');
      const upstream = conns.filter((c) => c.leg === 'upstream');
      expect(client).toHaveLength(1);
      expect(upstream).toHaveLength(1);
      for (const x of xs) {
        const entry = log.entries.find((e: { _exchangeId: string }) => e._exchangeId === x.id);
        expect(entry._connectionId).toBe(client[0].id);
        const mine = (leg: (typeof conns)[number]) => leg.events.filter((e) => e.x === x.id);
        // Client leg: the request head read, the response written (with Nagle on, as configured).
        expect(mine(client[0]).some((e) => e.d === 'r')).toBe(true);
        const writes = mine(client[0]).filter((e) => e.d === 'w');
        expect(writes.length).toBeGreaterThan(0);
        expect(writes.every((e) => e.nagle === true)).toBe(true);
        // Upstream leg: the request written, the response read.
        expect(mine(upstream[0]).some((e) => e.d === 'w')).toBe(true);
        expect(mine(upstream[0]).some((e) => e.d === 'r' && e.n > 0)).toBe(true);
      }
      expect(connectionsDropped(log)).toBe(0);
    } finally {
      await tp.stop();
    }
  });

  it('is stored with a recorded session (journal → HAR log._connections) and read back', async () => {
    const dir = tempDataDir();
    const tp = await testProxy({ dataDir: dir });
    const journal = path.join(dir, 'session.jsonl');
    const recorder = new HarRecorder(tp.proxy.events, { journalFile: journal, timeline: tp.proxy.timeline });
    try {
      await keepAliveGets(tp.proxy.address.port, origin.url, 2);
      await tp.waitFor(2);
    } finally {
      recorder.stop();
      await tp.stop();
    }
    const harFile = path.join(dir, 'session.har');
    await exportJournal(journal, harFile);
    const har = JSON.parse(fs.readFileSync(harFile, 'utf8'));
    const conns = connectionsOf(har.log);
    expect(conns.map((c) => c.leg).sort()).toEqual(['client', 'upstream']);
    expect(har.log._connectionsTimeOrigin).toBeGreaterThan(0);
    for (const e of har.log.entries) {
      const client = conns.find((c) => c.id === e._connectionId)!;
      expect(client.events.some((ev) => ev.x === e._exchangeId && ev.d === 'w')).toBe(true);
      expect(conns.find((c) => c.id === e.connection)).toBeDefined();
    }
  });

  it('is off with timeline: false', async () => {
    const tp = await testProxy({ timeline: false });
    try {
      expect(tp.proxy.timeline).toBeUndefined();
    } finally {
      await tp.stop();
    }
  });

  it('caps its memory and counts what it dropped; long-lived open connections lose their oldest events, not new ones', async () => {
    const tl = new Timeline(10);
    const server = net.createServer((s) => s.resume());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const socket = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    tl.watch(socket, 'c1', 'client', false);
    // 25 writes on one connection that never closes (a pooled keep-alive or HTTP/2 connection), two exchanges on it.
    for (let i = 0; i < 25; i++) {
      await new Promise<void>((r) => socket.write('x'.repeat(i + 1), () => r()));
      if (i === 4) tl.tag('c1', 'old', 0, performance.now());
    }
    tl.tag('c1', 'new', 0, performance.now());
    const events = tl.get('c1')!.events;
    expect(events.length).toBeLessThanOrEqual(10);
    expect(events.at(-1)!.n).toBe(25); // the newest write is kept
    expect(events.length + tl.dropped).toBe(25);
    expect(tl.toLog()._connectionsDropped).toBe(tl.dropped);
    // The oldest events went, and the exchange only they belonged to with them.
    expect(events.every((e) => e.x === 'new')).toBe(true);
    // Full of one open connection's events: a new connection is still watched.
    const other = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
    await new Promise((r) => other.once('connect', r));
    tl.watch(other, 'c2', 'client', false);
    await new Promise<void>((r) => other.write('y', () => r()));
    expect(tl.get('c2')!.events).toHaveLength(1);
    // A recording that started later gets only its own part.
    expect(tl.toLog(Infinity)._connections.every((c) => c.events.length === 0)).toBe(true);
    socket.destroy();
    other.destroy();
    server.close();
  });

  it('left running, forgets its oldest closed connections to keep recording new ones (bounded memory)', async () => {
    const tl = new Timeline(20);
    const server = net.createServer((s) => s.resume());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    // 30 short connections of 4 writes each: 120 events through a cap of 20.
    for (let i = 0; i < 30; i++) {
      const socket = net.connect(port, '127.0.0.1');
      await new Promise((r) => socket.once('connect', r));
      tl.watch(socket, `c${i}`, 'client', false);
      for (let w = 0; w < 4; w++) await new Promise<void>((r) => socket.write('x', () => r()));
      const closed = new Promise((r) => socket.once('close', r));
      socket.end();
      await closed;
    }
    const log = tl.toLog();
    const kept = log._connections.reduce((n, c) => n + c.events.length, 0);
    expect(kept).toBeLessThanOrEqual(20);
    // The newest connection is fully recorded, the oldest are gone, and nothing is lost silently.
    expect(tl.get('c29')!.events).toHaveLength(4);
    expect(tl.get('c0')).toBeUndefined();
    expect(kept + log._connectionsDropped).toBe(120);
    server.close();
  });

  it('reads malformed imported timelines without throwing', () => {
    expect(connectionsOf(undefined)).toEqual([]);
    expect(connectionsOf({ _connections: 'x' })).toEqual([]);
    const c = connectionsOf({
      _connections: [
        {
          id: 'c1',
          leg: 'client',
          opened: 1,
          events: [
            { t: 1, d: 'w', n: 3 },
            { t: 'no', d: 'w', n: 1 },
          ],
        },
        { id: 2 },
      ],
    });
    expect(c).toHaveLength(1);
    expect(c[0].events).toHaveLength(1);
  });
});
