/**
 * Response-head deadlines for upstream requests, checked by one sweeping timer.
 *
 * Why not `request.setTimeout` per request: on Node's HTTP client that arms the
 * socket's idle timer and adds and removes listeners on the request and the
 * socket for every exchange, a measurable share of a small request's cost on
 * a keep-alive connection. Here a request costs one list insert and removal; the
 * sweep runs only while requests are waiting, and fires a deadline at most
 * a tenth of its length late (60 s → within 6 s; 300 ms → within 30 ms).
 */
import { LinkedList } from '../linked-list.js';

export interface Deadline {
  /** Cancels the deadline (the response head arrived, or the request failed). Idempotent. */
  clear(): void;
}

interface Entry {
  at: number;
  onExpire: () => void;
}

export class Deadlines {
  /** Not a Set: one that every request adds to and deletes from keeps exchanges alive through young collections (linked-list.ts). */
  private readonly pending = new LinkedList<Entry>();
  private timer: NodeJS.Timeout | undefined;
  private period = Infinity;

  /** Calls `onExpire` once if the deadline is not cleared within `ms`. */
  add(ms: number, onExpire: () => void): Deadline {
    const node = this.pending.push({ at: performance.now() + ms, onExpire });
    const period = Math.max(10, Math.min(1000, ms / 10));
    if (!this.timer || period < this.period) this.arm(period);
    return { clear: () => void this.pending.remove(node) };
  }

  /** Stops the sweep and forgets every deadline (pool closed). */
  close(): void {
    this.pending.clear();
    this.disarm();
  }

  private arm(period: number): void {
    this.disarm();
    this.period = period;
    this.timer = setInterval(() => this.sweep(), period);
    this.timer.unref();
  }

  private disarm(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.period = Infinity;
  }

  private sweep(): void {
    const now = performance.now();
    // A callback may clear other deadlines: each node is checked again just before its turn.
    for (const node of this.pending.nodes()) {
      const entry = node.value;
      if (entry === undefined || entry.at > now) continue;
      this.pending.remove(node);
      entry.onExpire();
    }
    if (this.pending.size === 0) this.disarm();
  }
}
