/**
 * Lets go of what an HTTP/2 stream's listeners hold once the stream has closed.
 *
 * Why: node:http2 keeps a closed stream object alive for a while after its 'close' (past at least one collection
 * of V8's young generation), and with it every listener still attached and everything they reach: for the proxy,
 * the whole exchange (its record, headers, the request and response objects, the handler's promise). So each
 * exchange outlived the scavenge after it and was copied or promoted, and the old generation filled with them.
 * Measured for issue 17 with HTTP/1.1 clients and the upstream speaking HTTP/2
 * (`NETLENS_PROFILE_PAGE_H2=1 NETLENS_PROFILE_ALLOC=survivors npx tsx bench/profile.ts page`): scavenges kept
 * 17 KB per request against 0.6 KB over HTTP/1.1 upstream, and took 11-14 µs of its ~85 µs. In a bare node:http2
 * loop (16 streams at a time, 20 KB reached from a 'close' listener each), removing the listeners at 'close' took
 * what a scavenge kept from 11 MB to 2.6 MB and full collections from 53 to 12, on client and server streams alike.
 */
import type http2 from 'node:http2';

/** Kept on a released stream: an 'error' emitted after all (none is expected past 'close') must not go uncaught. */
function ignoreError(): void {}

/**
 * Removes every listener of a closed stream, the one calling this included (Node calls the rest of a 'close'
 * already under way: it emits from a copy of the list), and keeps a no-op 'error' listener.
 */
export function releaseClosedStream(stream: http2.Http2Stream): void {
  stream.removeAllListeners();
  stream.on('error', ignoreError);
}
