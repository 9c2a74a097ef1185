/**
 * Records every write and read on the sockets the proxy owns, cheaply.
 *
 * socket-hooks.ts says where writes and reads are seen (one wrap of `net.Socket.prototype` per
 * process, not per socket); lane.ts how they are kept (typed-array columns per connection, objects
 * built only when the timeline is read). Sockets whose reads go straight from C++ to the HTTP parser
 * (Node's HTTP/1 server) or to nghttp2 are invisible to the hooks; for those the request heads are
 * marked as reads (`markRead`) by the caller. HTTP/2 sessions are recorded per stream instead
 * (`watchStream`, h2-hooks.ts): their lanes hold frames handed to or received from nghttp2 (`framing: 'h2'`).
 * Memory is capped at `maxEvents`: then the oldest closed connections are forgotten, and after them
 * the oldest events of the largest open connections (counted as dropped).
 */
import type net from 'node:net';
import { performance } from 'node:perf_hooks';
import { Lane, NAGLE, WRITE } from './lane.js';
import { attachSink, type SocketSink } from './socket-hooks.js';
import { attachStreamSink, headerListBytes, streamResponseHead, type StreamSink } from './h2-hooks.js';
import type http2 from 'node:http2';
import type { ConnectionTimeline, TimelineLog } from './types.js';

const round = (n: number) => Math.round(n * 1000) / 1000;
/** Default cap: ~17 bytes per event in memory (~25 in JSON), a few MiB for a long session. */
export const DEFAULT_MAX_EVENTS = 200_000;

/** One watched socket: its connection's lane and its own Nagle state. */
class Watch implements SocketSink {
  constructor(
    private readonly timeline: Timeline,
    private readonly lane: Lane,
    private nagle: boolean,
  ) {}

  write(bytes: number): void {
    this.timeline.add(this.lane, performance.now(), bytes, this.nagle ? WRITE | NAGLE : WRITE);
  }

  read(bytes: number): void {
    this.timeline.add(this.lane, performance.now(), bytes, 0);
  }

  noDelay(noDelay: boolean): void {
    this.nagle = !noDelay;
  }
}

/** One watched HTTP/2 stream: its connection's lane and its exchange, whose events it tags as they happen. */
class StreamWatch implements StreamSink {
  private ref: number;
  private epoch: number;
  constructor(
    private readonly timeline: Timeline,
    private readonly lane: Lane,
    private readonly exchangeId: string | undefined,
  ) {
    // Its request head (client leg) named the exchange just before, if anything did.
    this.ref = exchangeId === undefined ? 0 : lane.refOf(exchangeId, 8);
    this.epoch = lane.epoch;
  }

  /** @internal (Timeline.add) The exchange's reference in the lane, found again after the cap renumbered them. */
  exchangeRef(): number {
    if (this.epoch !== this.lane.epoch && this.exchangeId !== undefined) {
      this.ref = this.lane.refOf(this.exchangeId);
      this.epoch = this.lane.epoch;
    }
    return this.ref;
  }

  write(bytes: number): void {
    this.timeline.add(this.lane, performance.now(), bytes, WRITE, this);
  }

  read(bytes: number): void {
    this.timeline.add(this.lane, performance.now(), bytes, 0, this);
  }
}

export class Timeline {
  private readonly connections = new Map<string, Lane>();
  private events = 0;
  /** Closed connections still held (the cap forgets those first). */
  private closedHeld = 0;
  dropped = 0;

  constructor(private readonly maxEvents = DEFAULT_MAX_EVENTS) {}

  /** @internal (Watch, StreamWatch, markRead) `x`: the event's exchange, when known as it is recorded. */
  add(lane: Lane, t: number, bytes: number, flags: number, x?: string | StreamWatch): void {
    if (lane.gone || (this.events >= this.maxEvents && (!this.makeRoom() || lane.gone))) {
      this.dropped++;
      return;
    }
    this.events++;
    // Resolved after makeRoom, which may have renumbered the lane's exchanges.
    lane.add(t, bytes, flags, x === undefined ? 0 : typeof x === 'string' ? lane.refOf(x, 8) : x.exchangeRef());
  }

  /**
   * At the cap, makes room for a tenth of it at once (so this runs rarely) and counts what it forgets
   * as dropped, so that a proxy left running for days keeps recording recent traffic instead of
   * freezing on its first connections: first the oldest closed connections go; then, when open
   * connections hold the rest (pooled keep-alive and HTTP/2 connections live for days), the oldest
   * events of the largest of them.
   */
  private makeRoom(): boolean {
    const target = this.maxEvents - Math.max(1, Math.floor(this.maxEvents / 10));
    if (this.closedHeld > 0) {
      for (const [id, c] of this.connections) {
        if (this.events <= target) break;
        if (c.closed === undefined) continue;
        this.connections.delete(id);
        c.gone = true;
        this.closedHeld--;
        this.events -= c.n;
        this.dropped += c.n;
      }
    }
    while (this.events > target) {
      let largest: Lane | undefined;
      for (const c of this.connections.values()) if (!largest || c.n > largest.n) largest = c;
      if (!largest || largest.n === 0) break;
      const k = Math.min(largest.n, Math.max(this.events - target, Math.ceil(largest.n / 2)));
      largest.dropOldest(k);
      this.events -= k;
      this.dropped += k;
    }
    return this.events < this.maxEvents;
  }

  private lane(id: string, leg: ConnectionTimeline['leg']): Lane {
    let c = this.connections.get(id);
    if (!c) {
      c = new Lane(id, leg, round(performance.now()));
      this.connections.set(id, c);
    }
    return c;
  }

  /** Starts recording a socket under a connection id (a second socket under the same id, e.g. TLS inside CONNECT, continues it). */
  watch(socket: net.Socket, id: string, leg: ConnectionTimeline['leg'], nagle: boolean): void {
    if (this.events >= this.maxEvents && !this.connections.has(id) && !this.makeRoom()) {
      this.dropped++;
      return;
    }
    const lane = this.lane(id, leg);
    attachSink(socket, new Watch(this, lane, nagle));
    socket.once('close', () => {
      if (lane.gone) return;
      if (lane.closed === undefined) this.closedHeld++;
      lane.closed = round(performance.now());
    });
  }

  /**
   * A read the socket hooks cannot see (a request head parsed in C++, or received by nghttp2): `bytes` is what the
   * caller knows of it; `exchangeId` tags it at once.
   */
  markRead(id: string, bytes: number, at = performance.now(), exchangeId?: string): void {
    const c = this.connections.get(id);
    if (c) this.add(c, at, bytes, 0, exchangeId);
  }

  /**
   * Records an HTTP/2 stream's frames (h2-hooks.ts) on the lane of connection `id`, tagged with `exchangeId`, and
   * marks that lane as HTTP/2 (`framing: 'h2'`). `requestHeaders`: the request head the caller just handed to
   * nghttp2 (upstream streams), recorded as a write now.
   */
  watchStream(
    stream: http2.Http2Stream,
    id: string | undefined,
    exchangeId: string | undefined,
    requestHeaders?: Record<string, unknown>,
  ): void {
    const c = id === undefined ? undefined : this.connections.get(id);
    if (!c || c.gone) return;
    c.framing = 'h2';
    const w = new StreamWatch(this, c, exchangeId);
    attachStreamSink(stream, w);
    if (requestHeaders) w.write(headerListBytes(requestHeaders));
  }

  /** A watched client stream's response head (from the caller's 'response' listener). */
  streamResponse(stream: http2.Http2Stream, headers: Record<string, unknown>): void {
    streamResponseHead(stream, headers);
  }

  /** Tags a connection's untagged events in [from, to] with an exchange id (called when the exchange finishes). */
  tag(id: string | undefined, exchangeId: string, from: number | undefined, to: number | undefined): void {
    const c = id ? this.connections.get(id) : undefined;
    if (!c || from === undefined) return;
    c.tag(exchangeId, from, to ?? Infinity);
  }

  /** One connection's timeline (built on each call: read it, do not keep it for later). */
  get(id: string): ConnectionTimeline | undefined {
    return this.connections.get(id)?.toConnection();
  }

  /**
   * The `log` fields for a HAR. `since` (performance.now() ms): only what happened from then on,
   * for a recording that started after the proxy did.
   */
  toLog(since?: number): TimelineLog {
    const connections: ConnectionTimeline[] = [];
    for (const c of this.connections.values()) {
      if (since !== undefined && c.closed !== undefined && c.closed < since) continue;
      connections.push(c.toConnection(since));
    }
    return { _connections: connections, _connectionsDropped: this.dropped, _connectionsTimeOrigin: performance.timeOrigin };
  }
}
