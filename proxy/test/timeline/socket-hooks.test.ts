/**
 * Where the timeline sees a socket's writes and reads (timeline/socket-hooks.ts): one wrap of
 * net.Socket.prototype, recording only watched sockets, with the socket itself left untouched.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lane, NAGLE, WRITE } from '../../src/timeline/lane.js';
import { Timeline } from '../../src/timeline/recorder.js';

let server: net.Server;
let port: number;
beforeAll(async () => {
  // Echoes what it gets, so the client socket has reads too.
  server = net.createServer((s) => s.on('data', (d) => s.write(d)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(() => server.close());

const written = (s: net.Socket, data: string) => new Promise<void>((r) => s.write(data, () => r()));
const echoed = (s: net.Socket, bytes: number) =>
  new Promise<void>((resolve) => {
    let got = 0;
    const on = (d: Buffer) => {
      got += d.length;
      if (got >= bytes) {
        s.off('data', on);
        resolve();
      }
    };
    s.on('data', on);
  });

describe('socket hooks', () => {
  it('records a write made while connecting once, when it is sent; reads; Nagle changes; no own properties on the socket', async () => {
    const tl = new Timeline();
    const socket = net.connect(port, '127.0.0.1');
    const before = Object.keys(socket).length;
    tl.watch(socket, 'u1', 'upstream', true);
    expect(Object.keys(socket).length).toBe(before);
    expect(Object.hasOwn(socket, '_write') || Object.hasOwn(socket, 'push') || Object.hasOwn(socket, 'setNoDelay')).toBe(false);
    const reply = echoed(socket, 5);
    await written(socket, 'hello');
    await reply;
    socket.setNoDelay(true);
    const reply2 = echoed(socket, 3);
    await written(socket, 'abc');
    await reply2;
    const events = tl.get('u1')!.events;
    expect(events.filter((e) => e.d === 'w').map((e) => [e.n, e.nagle])).toEqual([
      [5, true],
      [3, false],
    ]);
    expect(events.filter((e) => e.d === 'r').reduce((n, e) => n + e.n, 0)).toBe(8);
    expect(events.every((e, i) => i === 0 || e.t >= events[i - 1].t)).toBe(true);
    socket.destroy();
  });

  it('records nothing for a socket no timeline watches', async () => {
    const tl = new Timeline();
    const other = net.connect(port, '127.0.0.1');
    await written(other, 'x');
    expect(tl.toLog()._connections).toHaveLength(0);
    other.destroy();
  });

  it('a socket still writing on a connection the cap forgot counts its writes as dropped, not kept', async () => {
    const tl = new Timeline(4);
    const open = async () => {
      const s = net.connect(port, '127.0.0.1');
      await new Promise((r) => s.once('connect', r));
      return s;
    };
    // Two sockets under one id (as a CONNECT socket and the TLS socket inside it); the first closes.
    const [a, b, other] = [await open(), await open(), await open()];
    tl.watch(a, 'c1', 'client', false);
    tl.watch(b, 'c1', 'client', false);
    await written(a, 'x');
    const closed = new Promise((r) => a.once('close', r));
    a.destroy();
    await closed;
    tl.watch(other, 'c2', 'client', false);
    for (let i = 0; i < 4; i++) await written(other, 'y');
    expect(tl.get('c1')).toBeUndefined();
    const dropped = tl.dropped;
    await written(b, 'z');
    expect(tl.dropped).toBe(dropped + 1);
    expect(tl.toLog()._connections.map((c) => [c.id, c.events.length])).toEqual([['c2', 4]]);
    b.destroy();
    other.destroy();
  });

  it('counts string writes in bytes of their encoding', async () => {
    const tl = new Timeline();
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    tl.watch(socket, 'c1', 'client', false);
    await written(socket, 'héllo'); // 6 bytes in UTF-8
    expect(tl.get('c1')!.events.find((e) => e.d === 'w')!.n).toBe(6);
    socket.destroy();
  });
});

describe('lane (columnar events)', () => {
  it('grows past its first capacity, keeps order, and tags two exchanges on one connection', () => {
    const lane = new Lane('c1', 'client', 0);
    for (let i = 0; i < 50; i++) lane.add(i, i * 10, i % 2 ? WRITE | (i % 4 === 1 ? NAGLE : 0) : 0);
    lane.tag('x1', 0, 24.5);
    lane.tag('x2', 25, 49);
    // Already tagged events keep their exchange.
    lane.tag('x3', 0, 49);
    const c = lane.toConnection();
    expect(c.events).toHaveLength(50);
    expect(c.events[3]).toEqual({ t: 3, d: 'w', n: 30, nagle: false, x: 'x1' });
    expect(c.events[5]).toEqual({ t: 5, d: 'w', n: 50, nagle: true, x: 'x1' });
    expect(c.events[30]).toEqual({ t: 30, d: 'r', n: 300, x: 'x2' });
    expect(c.events.filter((e) => e.x === 'x3')).toHaveLength(0);
    expect(lane.toConnection(40).events.map((e) => e.t)).toEqual([40, 41, 42, 43, 44, 45, 46, 47, 48, 49]);
  });
});
