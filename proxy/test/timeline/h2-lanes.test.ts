/**
 * HTTP/2 sessions in the socket timeline (docs/timings.md, "Socket timeline"): nghttp2 reads and writes their
 * sockets from C++, so their lanes hold the frames the proxy handed to nghttp2 or got from it, per exchange.
 */
import http from 'node:http';
import http2 from 'node:http2';
import type net from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchangeToEntry } from '../../src/har/entry.js';
import { connectionsView } from '../../src/api/connections-view.js';
import { connectionsOf } from '../../src/timeline/har.js';
import { headerListBytes } from '../../src/timeline/h2-hooks.js';
import { summarizeStalls } from '../../src/timeline/stalls.js';
import { Lane } from '../../src/timeline/lane.js';
import type { ConnectionTimeline } from '../../src/timeline/types.js';
import type { Exchange } from '../../src/model.js';
import { httpsOrigin, loadOrCreateCA, tempDataDir, testProxy, type Origin, type TestProxy } from '../proxy/harness.js';

const N = 5;
const BODY = 3000;
const UPLOAD = 700;
const dataDir = tempDataDir();
const ca = loadOrCreateCA(dataDir);
let origin: Origin;
let tp: TestProxy;
let exchanges: Exchange[];
let log: { _connections: ConnectionTimeline[]; entries: Record<string, unknown>[] };
/** The response head the origin sends, as the proxy relays it to the client. */
let responseHead: Record<string, string | number> = {};

beforeAll(async () => {
  origin = await httpsOrigin(ca, { h2: true }, (req, res) => {
    req.resume();
    req.on('end', () => {
      // Two DATA writes per response, a few ms apart, Nagle on: an HTTP/1 socket lane would show the small tail as a stall.
      res.writeHead(200, { 'content-type': 'text/plain', 'x-pad': 'p'.repeat(40) });
      (res as http.ServerResponse).write('a'.repeat(BODY - 100));
      setTimeout(() => res.end('b'.repeat(100)), 5);
    });
  });
  tp = await testProxy({ dataDir, intercept: true, http2: true, nagle: true, upstreamCA: [ca.certPem] });
  const session = await h2ViaProxy(tp.proxy.address.port, new URL(origin.url));
  try {
    // Sequential requests on one connection, with pauses longer than the stall rule's minimum silence.
    for (let i = 0; i < N; i++) {
      const r = await h2Request(session, `/r${i}`, i % 2 === 1 ? 'x'.repeat(UPLOAD) : undefined);
      expect(r.body.length).toBe(BODY);
      responseHead = r.head;
      await new Promise((ok) => setTimeout(ok, 40));
    }
  } finally {
    session.close();
  }
  exchanges = await tp.waitFor(N);
  log = JSON.parse(JSON.stringify({ ...tp.proxy.timeline!.toLog(), entries: exchanges.map((x) => exchangeToEntry(x)) }));
}, 30_000);
afterAll(async () => {
  await tp?.stop();
  await origin?.close();
});

async function h2ViaProxy(proxyPort: number, target: URL): Promise<http2.ClientHttp2Session> {
  const socket = await new Promise<net.Socket>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: proxyPort, method: 'CONNECT', path: `${target.hostname}:${target.port}` });
    req.on('connect', (_res, s) => resolve(s));
    req.on('error', reject);
    req.end();
  });
  const session = http2.connect(target.origin, {
    createConnection: () => tls.connect({ socket, servername: 'localhost', ALPNProtocols: ['h2'], ca: ca.certPem }),
  });
  await new Promise((ok, fail) => session.once('connect', ok).once('error', fail));
  return session;
}

function h2Request(
  s: http2.ClientHttp2Session,
  path: string,
  upload?: string,
): Promise<{ head: Record<string, string | number>; body: string }> {
  return new Promise((resolve, reject) => {
    const st = s.request({ ':path': path, ':method': upload ? 'POST' : 'GET' }, { endStream: !upload });
    let head: Record<string, string | number> = {};
    const chunks: Buffer[] = [];
    st.on('response', (h) => (head = h as never));
    st.on('data', (c: Buffer) => chunks.push(c));
    st.on('end', () => resolve({ head, body: Buffer.concat(chunks).toString('utf8') }));
    st.on('error', reject);
    if (upload) st.end(upload);
  });
}

const lanes = (leg: 'client' | 'upstream') => connectionsOf(log).filter((c) => c.leg === leg && c.events.length > 0);

describe('HTTP/2 lanes', () => {
  it('one client lane and one upstream lane, both marked as HTTP/2 frame lanes', () => {
    expect(exchanges.every((x) => x.clientProtocol === 'h2')).toBe(true);
    for (const leg of ['client', 'upstream'] as const) {
      expect(lanes(leg)).toHaveLength(1);
      expect(lanes(leg)[0]!.framing).toBe('h2');
    }
  });

  for (const leg of ['client', 'upstream'] as const) {
    it(`${leg} lane: every exchange has reads and writes tagged with its id, in time order, with its bytes`, () => {
      const lane = lanes(leg)[0]!;
      const ts = lane.events.map((e) => e.t);
      expect(ts).toEqual([...ts].sort((a, b) => a - b));
      // Frames are not socket writes: no Nagle state on them.
      expect(lane.events.some((e) => 'nagle' in e)).toBe(false);
      for (const [i, x] of exchanges.entries()) {
        const mine = lane.events.filter((e) => e.x === x.id);
        const reads = mine.filter((e) => e.d === 'r');
        const writes = mine.filter((e) => e.d === 'w');
        expect(reads.length, `${leg} reads of ${x.id}`).toBeGreaterThan(0);
        expect(writes.length, `${leg} writes of ${x.id}`).toBeGreaterThan(0);
        expect(mine.every((e) => e.n > 0)).toBe(true);
        // The response body: written on the client lane, read on the upstream lane; its HEADERS come first.
        const response = leg === 'client' ? writes : reads;
        const sum = response.slice(1).reduce((n, e) => n + e.n, 0);
        expect(sum).toBeGreaterThanOrEqual(BODY);
        // The request: read on the client lane, written on the upstream lane; POSTs carry their DATA.
        const request = leg === 'client' ? reads : writes;
        if (i % 2 === 1) expect(request.slice(1).reduce((n, e) => n + e.n, 0)).toBe(UPLOAD);
        else expect(request).toHaveLength(1);
        // Each exchange's events lie within its own time on that leg: request head to last byte relayed (client),
        // stream opened to response end (upstream).
        const t = x.timestamps;
        const [from, to] = leg === 'client' ? [t.start, t.clientResponseEnd!] : [t.upstreamAssigned!, t.responseEnd!];
        for (const e of mine) {
          expect(e.t).toBeGreaterThanOrEqual(from - 0.01);
          expect(e.t).toBeLessThanOrEqual(to + 0.01);
        }
      }
    });
  }

  it('only frames of streams, tagged: after the first stream, no untagged (connection-level) events', () => {
    for (const leg of ['client', 'upstream'] as const) {
      const events = lanes(leg)[0]!.events;
      const first = events.findIndex((e) => e.x !== undefined);
      expect(first).toBeGreaterThanOrEqual(0);
      // Before it, at most the few bytes the TLS socket passed in JavaScript before nghttp2 took it over.
      expect(first).toBeLessThanOrEqual(2);
      expect(events.slice(first).every((e) => e.x !== undefined)).toBe(true);
    }
  });

  it('HEADERS events count the header list as SETTINGS_MAX_HEADER_LIST_SIZE does (name + value + 32 per field)', () => {
    const client = lanes('client')[0]!;
    const x = exchanges[0]!;
    const requestHead = client.events.find((e) => e.x === x.id && e.d === 'r')!;
    expect(requestHead.n).toBe(headerListBytes(x.request.headers));
    expect(headerListBytes([['ab', 'cde']])).toBe(2 + 3 + 32);
    expect(headerListBytes({ ab: 'cde', list: ['1', '22'] })).toBe(37 + (4 + 1 + 32) + (4 + 2 + 32));
    // The response head the proxy handed to nghttp2 for the client: at least the fields the client received.
    const responseWrite = client.events.find((e) => e.x === x.id && e.d === 'w')!;
    const received = Object.entries(responseHead).filter(([k]) => k !== 'date');
    expect(responseWrite.n).toBeGreaterThanOrEqual(headerListBytes(received.map(([k, v]) => [k, String(v)] as [string, string])));
  });

  it('concurrent streams on one connection: each exchange gets its own frames (tagged by stream, not by time span)', async () => {
    const session = await h2ViaProxy(tp.proxy.address.port, new URL(origin.url));
    try {
      const replies = await Promise.all(Array.from({ length: N }, (_, i) => h2Request(session, `/p${i}`)));
      expect(replies.every((r) => r.body.length === BODY)).toBe(true);
    } finally {
      session.close();
    }
    const parallel = (await tp.waitFor(2 * N)).slice(N);
    const conns = connectionsOf(JSON.parse(JSON.stringify(tp.proxy.timeline!.toLog())));
    const client = conns.find((c) => c.id === parallel[0]!.clientConnectionId)!;
    const upstream = conns.find((c) => c.id === parallel[0]!.upstreamConnectionId)!;
    expect(client.framing).toBe('h2');
    // The pooled upstream session carried both the sequential and the parallel requests.
    expect(upstream.id).toBe(lanes('upstream')[0]!.id);
    const spans = parallel.map((x) => [x.timestamps.start, x.timestamps.clientResponseEnd!] as const);
    expect(spans.some(([a, b], i) => spans.some(([c, d], j) => i !== j && a < d && c < b))).toBe(true);
    for (const x of parallel) {
      const sum = (c: ConnectionTimeline, d: 'w' | 'r') => c.events.filter((e) => e.x === x.id && e.d === d).map((e) => e.n);
      // Exactly one request head and the exchange's own response body: HEADERS, then 2,900 + 100 bytes of DATA.
      expect(sum(client, 'r')).toHaveLength(1);
      expect(
        sum(client, 'w')
          .slice(1)
          .reduce((a, b) => a + b, 0),
      ).toBe(BODY);
      expect(sum(upstream, 'w')).toHaveLength(1);
      expect(
        sum(upstream, 'r')
          .slice(1)
          .reduce((a, b) => a + b, 0),
      ).toBe(BODY);
    }
  });

  it('nghttp2 writes a frame to the socket after the JavaScript turn that handed it over (why frame events are not send calls)', async () => {
    // Node 20: the TLS handle's byte counter (StreamBase, C++) does not move during respond()/write(); it has by setImmediate.
    const { certPem, keyPem } = ca.issue(['localhost']);
    const server = http2.createSecureServer({ cert: certPem, key: keyPem });
    let socket: tls.TLSSocket | undefined;
    server.on('secureConnection', (s: tls.TLSSocket) => (socket = s));
    const seen: number[] = [];
    const written = () => (socket as unknown as { _handle: { bytesWritten: number } })._handle.bytesWritten;
    server.on('stream', (stream) => {
      const before = written();
      stream.respond({ ':status': 200 });
      stream.end('z'.repeat(1000));
      seen.push(written() - before);
      setImmediate(() => seen.push(written() - before));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    const session = http2.connect(`https://localhost:${port}`, { ca: ca.certPem });
    try {
      const r = await h2Request(session, '/');
      expect(r.body.length).toBe(1000);
    } finally {
      session.close();
      server.close();
    }
    expect(seen[0]).toBe(0);
    expect(seen[1]).toBeGreaterThan(1000);
  });

  it('the stall detector flags nothing on HTTP/2 lanes', () => {
    const all = connectionsOf(log);
    expect(summarizeStalls(all).count).toBe(0);
    // The same events on a socket lane with Nagle on: the 100-byte tail after the 2,900-byte write, then silence.
    const asSocket = all.map((c) => {
      const copy: ConnectionTimeline = { ...c, events: c.events.map((e) => (e.d === 'w' ? { ...e, nagle: true } : e)) };
      delete copy.framing;
      return copy;
    });
    expect(summarizeStalls(asSocket).count).toBeGreaterThan(0);
  });

  it('keeps the lane marker through a HAR export and import, and in the Connections view', () => {
    const reread = connectionsOf(JSON.parse(JSON.stringify(log)));
    expect(
      reread
        .filter((c) => c.framing === 'h2')
        .map((c) => c.leg)
        .sort(),
    ).toEqual(['client', 'upstream']);
    // Malformed markers in an imported HAR are dropped.
    expect(connectionsOf({ _connections: [{ id: 'c1', leg: 'client', events: [], framing: 'h3' }] })[0]!.framing).toBeUndefined();
    const view = connectionsView(log, { rowOf: (x) => x });
    expect(view.connections.filter((c) => c.framing === 'h2')).toHaveLength(2);
    expect(view.totals.stalls).toBe(0);
  });
});

describe('exchange references of events tagged as recorded', () => {
  it('name an exchange once, and are found again after the cap renumbered them (dropOldest)', () => {
    const lane = new Lane('c1', 'client', 0);
    const a = lane.refOf('x1', 8);
    lane.add(1, 10, 0, a);
    const b = lane.refOf('x2', 8);
    lane.add(2, 20, 0, b);
    expect(lane.refOf('x2', 8)).toBe(b);
    expect(lane.epoch).toBe(0);
    lane.dropOldest(1);
    expect(lane.epoch).toBe(1);
    lane.add(3, 30, 0, lane.refOf('x2'));
    lane.add(4, 40, 0, lane.refOf('x3'));
    expect(lane.toConnection().events.map((e) => [e.n, e.x])).toEqual([
      [20, 'x2'],
      [30, 'x2'],
      [40, 'x3'],
    ]);
  });

  it("keep the proxy's ids (x<n>) as numbers, not strings, and give every id back as it came", () => {
    const lane = new Lane('c1', 'client', 0);
    const ids = ['x7', 'x1073741823', 'x1073741824', 'x0', 'x01', 'x', 'x12a', 'y5', 'x999999999', 'x9999999999', 'exchange-1'];
    ids.forEach((id, i) => lane.add(i, i, 0, lane.refOf(id)));
    lane.add(100, 1, 0);
    lane.tag('x8', 100, 100);
    expect(lane.toConnection().events.map((e) => e.x)).toEqual([...ids, 'x8']);
    // White-box: what the lane holds for each (numbers for the proxy's own ids that fit in a small integer).
    const keys = (lane as unknown as { exchanges: unknown[] }).exchanges;
    expect(keys.map((k) => typeof k)).toEqual([
      'number',
      'number',
      'string',
      'string',
      'string',
      'string',
      'string',
      'string',
      'number',
      'string',
      'string',
      'number',
    ]);
    // The same id found again whichever way it is kept.
    expect(lane.refOf('x7', 100)).toBe(1);
    expect(lane.refOf('x1073741824', 100)).toBe(3);
    expect(lane.refOf('exchange-1', 100)).toBe(11);
  });
});
