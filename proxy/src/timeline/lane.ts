/**
 * One connection's events, stored in columns: typed arrays that grow by doubling, so an event
 * costs ~17 bytes and no object for the garbage collector to allocate, promote and trace.
 * The proxy records tens of thousands of events a second under load; objects (SocketEvent) are
 * built only when someone reads the timeline (the API, a HAR).
 */
import type { ConnectionTimeline, SocketEvent } from './types.js';

/** Flag bits of an event. */
export const WRITE = 1;
export const NAGLE = 2;

const round = (n: number) => Math.round(n * 1000) / 1000;

/**
 * The proxy names exchanges `x<n>` (server/proxy-server.ts). A lane keeps such an id as its number n, a small integer
 * V8 stores inside the array: a lane of a keep-alive connection at the cap holds tens of thousands of ids, and as
 * strings they were ~59,000 objects and 1.4 MB the collector traced on every full collection (a heap snapshot of the
 * bench's Netlens after 30 s of small requests), each promoted to the old generation as its exchange finished.
 * Any other id is kept as it is.
 */
type ExchangeKey = number | string;
const MAX_KEY = 2 ** 30 - 1;

function keyOf(id: string): ExchangeKey {
  const len = id.length;
  if (len < 2 || len > 11 || id.charCodeAt(0) !== 120 /* x */ || id.charCodeAt(1) === 48 /* no leading 0 */) return id;
  let n = 0;
  for (let i = 1; i < len; i++) {
    const d = id.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return id;
    n = n * 10 + d;
  }
  return n <= MAX_KEY ? n : id;
}

const idOf = (key: ExchangeKey): string => (typeof key === 'number' ? `x${key}` : key);

/** Most connections carry a few exchanges of ~4 events each. */
const INITIAL_CAPACITY = 8;
/** Tagging tolerance, ms: event times and exchange timestamps come from separate performance.now() calls. */
const TAG_SLACK = 0.001;

export class Lane {
  /** Events held. */
  n = 0;
  closed?: number;
  /** Forgotten by the timeline's cap: a socket still writing to it records nothing. */
  gone = false;
  /** 'h2': events are HTTP/2 frames handed to or received from nghttp2, tagged when recorded (types.ts). */
  framing?: 'h2';
  private t = new Float64Array(INITIAL_CAPACITY);
  private bytes = new Uint32Array(INITIAL_CAPACITY);
  private flags = new Uint8Array(INITIAL_CAPACITY);
  /** Index + 1 into `exchanges` (0: not tagged). */
  private x = new Uint32Array(INITIAL_CAPACITY);
  /** The exchange ids this connection's events are tagged with, as keys (keyOf). */
  private readonly exchanges: ExchangeKey[] = [];
  /** Changes when dropOldest renumbers the exchange references. */
  epoch = 0;

  constructor(
    readonly id: string,
    readonly leg: ConnectionTimeline['leg'],
    readonly opened: number,
  ) {}

  /** `ref`: the event's exchange (`refOf`) when known as it is recorded (HTTP/2 streams, request heads); 0: not yet. */
  add(t: number, bytes: number, flags: number, ref = 0): void {
    if (this.n === this.t.length) this.grow();
    const i = this.n++;
    this.t[i] = t;
    this.bytes[i] = bytes > 0xffffffff ? 0xffffffff : bytes;
    this.flags[i] = flags;
    this.x[i] = ref;
  }

  /**
   * The reference `add` takes for an exchange id: its index + 1, added when not among the newest `window` ids
   * (the caller knows how recent it is: a new stream's exchange is new or was named by its request head just before).
   * Valid until `epoch` changes (dropOldest renumbers them).
   */
  refOf(exchangeId: string, window = Infinity): number {
    const xs = this.exchanges;
    const key = keyOf(exchangeId);
    for (let i = xs.length - 1, stop = Math.max(0, xs.length - window); i >= stop; i--) if (xs[i] === key) return i + 1;
    return xs.push(key);
  }

  private grow(): void {
    const size = this.t.length * 2;
    const t = new Float64Array(size);
    t.set(this.t);
    this.t = t;
    const bytes = new Uint32Array(size);
    bytes.set(this.bytes);
    this.bytes = bytes;
    const flags = new Uint8Array(size);
    flags.set(this.flags);
    this.flags = flags;
    const x = new Uint32Array(size);
    x.set(this.x);
    this.x = x;
  }

  /**
   * Forgets the oldest `k` events (the cap trims a long-lived connection this way), and the exchange
   * ids only they referred to: a keep-alive or HTTP/2 connection open for days carries millions.
   */
  dropOldest(k: number): void {
    k = Math.min(k, this.n);
    this.t.copyWithin(0, k, this.n);
    this.bytes.copyWithin(0, k, this.n);
    this.flags.copyWithin(0, k, this.n);
    this.x.copyWithin(0, k, this.n);
    this.n -= k;
    const kept: ExchangeKey[] = [];
    const remap = new Map<number, number>();
    for (let i = 0; i < this.n; i++) {
      const ref = this.x[i];
      if (ref === 0) continue;
      let to = remap.get(ref);
      if (to === undefined) remap.set(ref, (to = kept.push(this.exchanges[ref - 1]!)));
      this.x[i] = to;
    }
    this.exchanges.length = 0;
    this.exchanges.push(...kept);
    this.epoch++;
  }

  /**
   * Tags the untagged events in [from, to] with an exchange id. Not on HTTP/2 lanes: their streams overlap in
   * time, so a span would take in other exchanges' frames; their events are tagged as they are recorded.
   */
  tag(exchangeId: string, from: number, to: number): void {
    if (this.framing !== undefined) return;
    let ref = 0;
    // Walk back from the newest event: an exchange's events are recent.
    for (let i = this.n - 1; i >= 0; i--) {
      const t = this.t[i];
      if (t < from - TAG_SLACK) break;
      if (t > to + TAG_SLACK || this.x[i] !== 0) continue;
      if (ref === 0) ref = this.exchanges.push(keyOf(exchangeId));
      this.x[i] = ref;
    }
  }

  /** The connection as the HAR and the API see it; `since`: only events from then on. */
  toConnection(since = -Infinity): ConnectionTimeline {
    const events: SocketEvent[] = [];
    // Frames handed to nghttp2 are no socket writes: Nagle's state says nothing about them.
    const frames = this.framing !== undefined;
    for (let i = 0; i < this.n; i++) {
      const t = this.t[i];
      if (t < since) continue;
      const f = this.flags[i];
      const e: SocketEvent = !(f & WRITE)
        ? { t: round(t), d: 'r', n: this.bytes[i] }
        : frames
          ? { t: round(t), d: 'w', n: this.bytes[i] }
          : { t: round(t), d: 'w', n: this.bytes[i], nagle: (f & NAGLE) !== 0 };
      const x = this.x[i];
      if (x !== 0) e.x = idOf(this.exchanges[x - 1]!);
      events.push(e);
    }
    return {
      id: this.id,
      leg: this.leg,
      opened: this.opened,
      ...(this.closed !== undefined ? { closed: this.closed } : {}),
      ...(this.framing !== undefined ? { framing: this.framing } : {}),
      events,
    };
  }
}
