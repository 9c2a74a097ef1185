/**
 * The `relay: 'naive'` write mode (ProxyOptions.relay): how a simple proxy relays a
 * response, one write per thing it received, so the write pattern an origin chose
 * reaches the client as it was.
 *
 * Why it exists: by default the proxy's HTTP/1.1 client leg coalesces. `res.writeHead`
 * sends nothing; Node sends the head together with the first body chunk, and every
 * `res.write` corks the socket until the next tick, so an origin's "head, then body"
 * leaves the proxy as one write and Nagle's algorithm has nothing to hold. Many proxies
 * (and blind tunnels) do not do that; the lab's naive cells measure what Nagle costs
 * them (docs/lab.md, "Nagle and the relay's writes").
 *
 * HTTP/1.x client legs only: HTTP/2 frames are written by nghttp2 in C++, which batches
 * them whatever we do, and the socket timeline cannot see them.
 */
import http from 'node:http';
import type { Readable } from 'node:stream';

/** Sends the response head now, as a write of its own (writeHead alone sends nothing). */
export function flushHeadAlone(res: http.ServerResponse): void {
  res.flushHeaders();
}

/**
 * Writes each upstream body chunk to the client as its own socket write, as it comes:
 * Node corks the socket for the rest of the tick on every `res.write` (so chunks of one
 * tick would leave together); uncorking right after the write hands this chunk to the
 * kernel at once. Backpressure as `pipe` does it: the body pauses until the client drains.
 * Does not end `res` (the caller ends it once it knows the body was complete).
 */
export function relayChunks(body: Readable, res: http.ServerResponse): void {
  const onData = (chunk: Buffer) => {
    const ok = res.write(chunk);
    const socket = res.socket;
    while (socket && socket.writableCorked > 0) socket.uncork();
    if (!ok) {
      body.pause();
      res.once('drain', () => body.resume());
    }
  };
  body.on('data', onData);
  res.once('close', () => body.off('data', onData));
}
