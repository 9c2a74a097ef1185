/**
 * Records every write and read on the sockets the proxy owns, cheaply.
 *
 * Writes: the socket's own `_write`/`_writev` are wrapped on the instance. Those are
 * what Node calls when it hands data to the kernel (after cork/uncork, one call per
 * batch), so a write here is close to one send syscall; `socket.write()` calls that
 * Node coalesces show as one event, which is what Nagle sees.
 * Reads: `push` is wrapped (JS-consumed sockets: undici, tunnels). Sockets whose reads
 * go straight from C++ to the HTTP parser (Node's HTTP/1 server) or to nghttp2 never
 * call it; for those the request heads are marked as reads (`markRead`) by the caller.
 * Memory is capped at `maxEvents`: then the oldest closed connections are forgotten (counted as
 * dropped), and only when open connections hold every event are new events counted, not kept.
 */
import type net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { ConnectionTimeline, SocketEvent, TimelineLog } from './types.js';

const round = (n: number) => Math.round(n * 1000) / 1000;
/** Default cap: ~25 bytes per event in memory and JSON, a few MiB for a long session. */
export const DEFAULT_MAX_EVENTS = 200_000;

type Writev = (chunks: { chunk: Buffer | string }[], cb: (err?: Error | null) => void) => void;
type Write = (chunk: Buffer | string, encoding: BufferEncoding, cb: (err?: Error | null) => void) => void;

export class Timeline {
  private readonly connections = new Map<string, ConnectionTimeline>();
  private events = 0;
  dropped = 0;

  constructor(private readonly maxEvents = DEFAULT_MAX_EVENTS) {}

  private add(c: ConnectionTimeline, e: SocketEvent): void {
    if (this.events >= this.maxEvents && !this.makeRoom()) {
      this.dropped++;
      return;
    }
    this.events++;
    c.events.push(e);
  }

  /**
   * At the cap, forgets the oldest closed connections (a tenth of the cap at once, so this runs
   * rarely) so that a proxy left running for days keeps recording its recent connections instead
   * of freezing on its first ones. Their events count as dropped. False when only open
   * connections hold events (then the new event is dropped).
   */
  private makeRoom(): boolean {
    const target = this.maxEvents - Math.max(1, Math.floor(this.maxEvents / 10));
    for (const [id, c] of this.connections) {
      if (this.events <= target) break;
      if (c.closed === undefined) continue;
      this.connections.delete(id);
      this.events -= c.events.length;
      this.dropped += c.events.length;
    }
    return this.events < this.maxEvents;
  }

  private connection(id: string, leg: ConnectionTimeline['leg']): ConnectionTimeline {
    let c = this.connections.get(id);
    if (!c) {
      c = { id, leg, opened: round(performance.now()), events: [] };
      this.connections.set(id, c);
    }
    return c;
  }

  /** Starts recording a socket under a connection id (a second socket under the same id, e.g. TLS inside CONNECT, continues it). */
  watch(socket: net.Socket, id: string, leg: ConnectionTimeline['leg'], nagle: boolean): void {
    // Full of open connections' events: new connections are not watched at all (no per-socket cost, no record).
    if (this.events >= this.maxEvents && !this.connections.has(id) && !this.makeRoom()) {
      this.dropped++;
      return;
    }
    // The patched socket methods below run with the socket as `this`; they record into this timeline.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const timeline = this;
    const c = this.connection(id, leg);
    let nagleOn = nagle;
    const setNoDelay = socket.setNoDelay;
    socket.setNoDelay = function (this: net.Socket, noDelay?: boolean) {
      nagleOn = noDelay === false;
      return setNoDelay.call(this, noDelay);
    };
    const s = socket as net.Socket & { _write: Write; _writev?: Writev };
    const write = s._write;
    s._write = function (this: net.Socket, chunk, encoding, cb) {
      timeline.add(c, {
        t: round(performance.now()),
        d: 'w',
        n: typeof chunk === 'string' ? Buffer.byteLength(chunk, encoding) : chunk.length,
        nagle: nagleOn,
      });
      return write.call(this, chunk, encoding, cb);
    };
    const writev = s._writev;
    if (writev) {
      s._writev = function (this: net.Socket, chunks, cb) {
        let n = 0;
        for (const { chunk } of chunks) n += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
        timeline.add(c, { t: round(performance.now()), d: 'w', n, nagle: nagleOn });
        return writev.call(this, chunks, cb);
      };
    }
    const push = socket.push;
    socket.push = function (this: net.Socket, chunk: unknown, encoding?: BufferEncoding) {
      if (chunk && (chunk as Buffer).length) timeline.add(c, { t: round(performance.now()), d: 'r', n: (chunk as Buffer).length });
      return push.call(this, chunk, encoding);
    };
    socket.once('close', () => (c.closed = round(performance.now())));
  }

  /** A read the socket hooks cannot see (a request head parsed in C++): `bytes` is what the caller knows of it. */
  markRead(id: string, bytes: number, at = performance.now()): void {
    const c = this.connections.get(id);
    if (c) this.add(c, { t: round(at), d: 'r', n: bytes });
  }

  /** Tags a connection's untagged events in [from, to] with an exchange id (called when the exchange finishes). */
  tag(id: string | undefined, exchangeId: string, from: number | undefined, to: number | undefined): void {
    const c = id ? this.connections.get(id) : undefined;
    if (!c || from === undefined) return;
    const end = to ?? Infinity;
    // Walk back from the newest event: an exchange's events are recent.
    for (let i = c.events.length - 1; i >= 0; i--) {
      const e = c.events[i];
      if (e.t < from - 0.001) break;
      if (e.t <= end + 0.001 && e.x === undefined) e.x = exchangeId;
    }
  }

  get(id: string): ConnectionTimeline | undefined {
    return this.connections.get(id);
  }

  /**
   * The `log` fields for a HAR. `since` (performance.now() ms): only what happened from then on,
   * for a recording that started after the proxy did.
   */
  toLog(since?: number): TimelineLog {
    let connections = [...this.connections.values()];
    if (since !== undefined) {
      connections = connections
        .filter((c) => c.closed === undefined || c.closed >= since)
        .map((c) => ({ ...c, events: c.events.filter((e) => e.t >= since) }));
    }
    return { _connections: connections, _connectionsDropped: this.dropped, _connectionsTimeOrigin: performance.timeOrigin };
  }
}
