/**
 * HTTP/2 requests are taken in at most ADMIT_PER_TURN per event-loop turn; the rest wait, in the order they came,
 * for the next turns (setImmediate), each with the time it arrived.
 *
 * Why: a browser sends an image-heavy page's requests in bursts (the lab's 200-image page: groups of 20–90
 * HEADERS frames within a millisecond), nghttp2 parses a whole read at once, and Node hands every stream over
 * in the same turn. Taken in all at once, none of them left for the origin before the last had been handled
 * (node:http2 writes a session's frames at the end of the turn), and no response came back to the browser until
 * the whole burst had been taken in: a request's time to first byte grew with the burst's size. Taken in a few
 * per turn, the first requests are at the origin while the proxy takes in the next ones, and responses already
 * back are relayed in between. `npx tsx bench/profile.ts h2 6` (bursts of 200, Chromium's headers), three
 * interleaved rounds, median request latency in a burst 37.9 / 30.4 / 45.2 ms all at once against 26.7 / 25.5 /
 * 36.8 ms 16 per turn, the burst's total time the same or shorter (8 per turn: 28.7 / 26.5 / 37.6; 32: 29.5 /
 * 27.1 / 34.1; 64: 29.4 / 30.8 / 30.4). Envoy bounds the requests it starts per I/O event the same way, which also
 * keeps a client that opens a thousand streams in one packet from holding the event loop for a whole turn.
 *
 * HTTP/1.x does not go through here: a connection carries one request at a time (pipelined ones already wait
 * for their turn, connection-order.ts), and a browser opens six.
 */

import { LinkedList } from '../linked-list.js';

/** Requests taken in per event-loop turn (see above for how 16 was chosen). */
export const ADMIT_PER_TURN = 16;

/** A request's handling, called once with the performance.now() of its arrival. */
export type Admitted = (arrivedAt: number) => void;

export interface Admission {
  /** Runs `run` now if this turn has room and nothing waits, else in a later turn (first come, first served). */
  admit(run: Admitted): void;
  /** Requests waiting for a turn. */
  readonly waiting: number;
}

export function createAdmission(perTurn = ADMIT_PER_TURN): Admission {
  // The waiting requests join and leave one by one: a linked list (whose removed nodes keep nothing alive), not an array.
  const queue = new LinkedList<{ run: Admitted; arrivedAt: number }>();
  /** Admitted since this turn's budget was last refilled. */
  let used = 0;
  let scheduled = false;

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(nextTurn);
  };

  const nextTurn = () => {
    scheduled = false;
    used = 0;
    while (queue.size > 0 && used < perTurn) {
      const { run, arrivedAt } = queue.shift()!;
      used++;
      run(arrivedAt);
    }
    // Still waiting, or this turn's budget partly spent on requests arriving before the next check phase: refill then.
    if (queue.size > 0 || used > 0) schedule();
  };

  return {
    admit(run) {
      const arrivedAt = performance.now();
      if (queue.size === 0 && used < perTurn) {
        used++;
        schedule();
        run(arrivedAt);
        return;
      }
      queue.push({ run, arrivedAt });
      schedule();
    },
    get waiting() {
      return queue.size;
    },
  };
}
