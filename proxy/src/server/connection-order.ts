/**
 * Per-connection order for pipelined HTTP/1.1 requests (RFC 9112 §9.3.2: a server
 * answers pipelined requests in the order received). Node's HTTP server emits every
 * pipelined request at once and only queues the responses; a proxy that forwarded
 * them at once would send them to the origin in parallel, over different upstream
 * connections, in any order. Each request here waits until the previous response on
 * its connection has ended (or the connection closed).
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';

/** The last exchange taken on each client connection, still in progress. */
const last = new WeakMap<Duplex, Promise<void>>();

export interface Turn {
  /** Resolves when the earlier exchange on the connection has ended; undefined when there is none (no extra tick). */
  wait: Promise<void> | undefined;
  /** Ends this exchange's turn (also done by the response's 'close'). */
  done(): void;
}

/** Registers `res` as the newest exchange on `socket`. */
export function takeTurn(socket: Duplex | null, res: http.ServerResponse): Turn {
  if (!socket) return { wait: undefined, done: () => {} };
  const previous = last.get(socket);
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  res.once('close', done);
  last.set(socket, mine);
  void mine.then(() => {
    if (last.get(socket) === mine) last.delete(socket);
  });
  return { wait: previous, done };
}
