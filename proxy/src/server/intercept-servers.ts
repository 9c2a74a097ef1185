/**
 * TLS termination for intercepted CONNECTs: ONE HTTP/2 + HTTP/1.1 server (never
 * listening) for every host, and a TLS socket made here per tunnel.
 *
 * Why not a tls.Server per host (as before): each one kept its own certificate,
 * key and OpenSSL context for the life of the process, ~150 KiB per host ever
 * visited. Here the per-host part is only the secure context, taken from the
 * CA's bounded cache: the default one for clients without SNI (a CONNECT to an
 * IP address) is chosen per connection from the CONNECT target, SNI clients get
 * theirs from SNICallback.
 *
 * Why the TLS socket is made here rather than by `server.emit('connection')`:
 * the CONNECT socket comes from an HTTP server, which allows half-open sockets,
 * and a TLS socket inherits that. A client that closed TCP without close_notify
 * (during the handshake, or an HTTP/2 client at any time) then left the socket
 * in CLOSE-WAIT forever: nothing ended our side. Here half-open is off, the
 * handshake has a deadline, and a FIN before the handshake ends destroys it.
 */
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import type net from 'node:net';
import tls from 'node:tls';
import type { ProxyContext } from './context.js';
import type { ClientRequest, ClientResponse } from './client.js';
import { H2StreamRequest, H2StreamResponse, isBodilessPlainRequest } from './h2-stream-leg.js';

/**
 * Concurrent streams the browser leg allows at first: 100, the least RFC 9113 §6.5.2 recommends and what Chrome
 * assumes of a server that advertises none (the lab's test site, Node's servers, many origins). Once the upstream
 * HTTP/2 session has the origin's SETTINGS, the browser leg advertises the origin's own limit instead
 * (h2-stream-limit.ts); 100 stays for an origin that advertises none or speaks only HTTP/1.1.
 *
 * Why not more: the proxy should not change how the browser schedules its requests. Advertising 1,000 (as
 * before) let Chrome put up to 256 requests (its own cap) in flight through the proxy where it puts 100 on
 * the origin directly; the extra ones then waited inside the proxy, counted as their time to first byte,
 * instead of in Chrome's queue. `netlens lab --cells direct+h2,proxy+h2+intercept,proxy+h2+tunnel --images
 * 1000 --latency 20 --runs 4`, two interleaved pairs: median TTFB through interception 31.1 / 30.7 ms at 100
 * against 153.8 / 167.6 ms at 1,000 (direct 42.4 / 39.5 and 33.7 / 36.6 ms), page loads alike.
 */
export const H2_MAX_CONCURRENT_STREAMS = 100;
/**
 * HTTP/2 settings for the browser leg: the streams above, and an 8 MiB receive window per stream. With 1 MiB, a client uploading a large body
 * (curl's HTTP/2 client, in the bench's "Large bodies") kept running into the window and
 * spent more CPU polling for WINDOW_UPDATEs than sending: about 1 s of its CPU per
 * 256 MiB, against about 0.65 s at 8 MiB (16 MiB saved a little more but let the
 * proxy's RSS grow more while the origin read slower than the client sent).
 */
const H2_SETTINGS: http2.Settings = { maxConcurrentStreams: H2_MAX_CONCURRENT_STREAMS, initialWindowSize: 8 << 20 };
/**
 * The connection-level receive window starts at HTTP/2's 64 KiB whatever the
 * SETTINGS say; a client uploading over several streams (or one large body)
 * would stall on WINDOW_UPDATEs. Chrome's 15 MiB, as on the upstream side.
 */
const H2_CONNECTION_WINDOW = 15 * 1024 * 1024;

/** TLSSocket internals used the way tls.Server's own connection listener uses them. */
type ServerTlsSocket = tls.TLSSocket & { _releaseControl?: () => boolean; _parent?: net.Socket };

export interface InterceptHooks {
  /** Request handler (HTTP/2 requests on their streams or through Node's compatibility objects, and HTTP/1.1). */
  onRequest: (req: ClientRequest, res: ClientResponse) => void;
  onClientError: (err: NodeJS.ErrnoException, socket: import('node:stream').Duplex) => void;
  onUpgrade: (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => void;
  /** A handshake finished: the TLS socket is about to be handed to the HTTP server. */
  onSecure: (tlsSocket: tls.TLSSocket) => void;
  /** An HTTP/2 session started on a handshaken socket. */
  onSession?: (session: http2.ServerHttp2Session) => void;
  /** Applies the proxy's header limits (maxHeadersCount, maxHeaderSize) to the server, as on every other listener. */
  configureServer?: (server: http2.Http2SecureServer | https.Server) => void;
}

export interface HandshakeFailure {
  error: Error;
  /** No handshake within the header timeout (a silent or slow client). */
  timedOut: boolean;
}

export interface Interceptor {
  /**
   * Terminates TLS on a CONNECT's raw socket (its ClientHello already buffered or
   * arriving), presenting a certificate for `host` to clients that send no SNI.
   */
  accept(raw: net.Socket, host: string, onFail: (failure: HandshakeFailure) => void): void;
  /** Handshakes in progress (for tests and stop). */
  readonly pending: number;
}

export function createInterceptor(ctx: ProxyContext, hooks: InterceptHooks): Interceptor {
  const opts = ctx.options;
  const alpn = opts.http2 ? ['h2', 'http/1.1'] : ['http/1.1'];
  // http2.createSecureServer always offers h2 by ALPN, so with HTTP/2 off the
  // browser leg is a plain HTTPS (HTTP/1.1) server. Neither ever listens.
  const server: http2.Http2SecureServer | https.Server = opts.http2
    ? http2.createSecureServer(
        // nghttp2 resets a stream past maxHeaderListPairs with no status: leave that to the byte limit
        // (one field per 4 bytes of head) so that a request over the line limit reaches request-checks.ts and gets 431.
        // Likewise the header list size: twice the limit is accepted by nghttp2, and request-checks.ts answers 431 past the limit.
        {
          allowHTTP1: true,
          settings: { ...H2_SETTINGS, maxHeaderListSize: 2 * opts.maxHeaderSize },
          maxHeaderListPairs: Math.ceil(opts.maxHeaderSize / 4),
          maxSessionMemory: 64,
        },
        hooks.onRequest,
      )
    : https.createServer(
        // Node's timers off: ClientTimeouts bounds the client legs (see timeouts.ts).
        { maxHeaderSize: opts.maxHeaderSize, requestTimeout: 0, headersTimeout: 0, keepAliveTimeout: 0 },
        hooks.onRequest as http.RequestListener,
      );
  if (opts.http2) {
    // Bodiless requests are handled on their streams, without Node's compatibility objects (h2-stream-leg.ts);
    // the rest go through node:http2's own compatibility listener, as before. Node adds that listener when a
    // 'request' listener is added (above), and it is the server's only 'stream' listener.
    const [compatListener] = server.listeners('stream') as ((...args: unknown[]) => void)[];
    if (compatListener) {
      server.removeListener('stream', compatListener);
      server.on('stream', (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, flags: number, rawHeaders: string[]) => {
        if (!isBodilessPlainRequest(stream, headers)) return compatListener(stream, headers, flags, rawHeaders);
        hooks.onRequest(new H2StreamRequest(stream, headers, rawHeaders), new H2StreamResponse(stream));
      });
    }
    server.on('session', (session: http2.ServerHttp2Session) => {
      session.setLocalWindowSize(H2_CONNECTION_WINDOW);
      hooks.onSession?.(session);
    });
  }
  hooks.configureServer?.(server);
  server.on('clientError' as 'sessionError', hooks.onClientError as never);
  server.on('upgrade', hooks.onUpgrade);

  const SNICallback = (servername: string, cb: (err: Error | null, ctx?: tls.SecureContext) => void) => {
    try {
      cb(null, ctx.ca.secureContext(servername));
    } catch (err) {
      cb(err as Error);
    }
  };
  let pending = 0;

  const accept = (raw: net.Socket, host: string, onFail: (failure: HandshakeFailure) => void) => {
    // A FIN from the client must end our side too (see the file comment).
    raw.allowHalfOpen = false;
    const tlsSocket: ServerTlsSocket = new tls.TLSSocket(raw, {
      isServer: true,
      server: server as unknown as net.Server,
      secureContext: ctx.ca.secureContext(host),
      SNICallback,
      ALPNProtocols: alpn,
    });
    pending++;
    let settled = false;
    const fail = (error: Error, timedOut = false) => {
      if (settled) return;
      settled = true;
      pending--;
      clearTimeout(timer);
      tlsSocket.destroy();
      onFail({ error, timedOut });
    };
    const timer = setTimeout(() => fail(new Error(`no TLS handshake within ${opts.headerTimeoutMs} ms`), true), opts.headerTimeoutMs);
    timer.unref();
    // Handshake errors (the socket is already being destroyed by TLS) and EOF mid-handshake.
    const onTlsError = (err: Error) => fail(err);
    const onEnd = () => fail(new Error('the client closed the connection during the TLS handshake'));
    tlsSocket.on('_tlsError', onTlsError);
    tlsSocket.once('end', onEnd);
    tlsSocket.once('close', () => fail(new Error('the connection closed during the TLS handshake')));
    tlsSocket.once('secure', () => {
      if (settled) return;
      settled = true;
      pending--;
      clearTimeout(timer);
      tlsSocket.off('end', onEnd);
      tlsSocket.off('_tlsError', onTlsError);
      // What tls.Server does before handing a socket over: errors from now on are 'error' events
      // the HTTP server handles.
      tlsSocket._releaseControl?.();
      // tls.Server clears this too; the HTTP/2 session otherwise waits for a 'secureConnect' that never comes.
      (tlsSocket as { secureConnecting?: boolean }).secureConnecting = false;
      hooks.onSecure(tlsSocket);
      server.emit('secureConnection', tlsSocket);
    });
  };

  return {
    accept,
    get pending() {
      return pending;
    },
  };
}
