/**
 * startProxy: wires the listener, the CONNECT handler, the interception server
 * (HTTP/2 + HTTP/1.1 by ALPN), the cleartext-in-tunnel server and the upstream
 * pool around one context and one event stream.
 */
import { Timeline } from '../timeline/recorder.js';
import http from 'node:http';
import type http2 from 'node:http2';
import net from 'node:net';
import tls from 'node:tls';
import type { Socket } from 'node:net';
import stream from 'node:stream';
import type { ProxyAddress, ProxySettings } from '../model.js';
import { EventStream } from '../events.js';
import { ErrorCodes, NetlensError } from '../errors.js';
import { resolveOptions, type ProxyOptions } from '../options.js';
import { loadOrCreateCA, type CertificateAuthority } from '../tls/ca.js';
import { UpstreamPool } from '../upstream/pool.js';
import { admitClient, isSelf } from './client-guard.js';
import { handleConnect, ORIGIN, type ConnectTargets, type WithOrigin } from './connect.js';
import { createInterceptor } from './intercept-servers.js';
import { createStreamLimitMirror } from './h2-stream-limit.js';
import { ClientTimeouts } from './timeouts.js';
import { handleRequest } from './handle-request.js';
import { createAdmission } from './h2-admission.js';
import { answerProxyError, type ClientRequest, type ClientResponse, type RequestOrigin } from './client.js';
import { handleUpgrade } from './upgrade.js';
import { answerClientError, trackClientRequest } from './client-error.js';
import { MAX_HEADER_COUNT } from './request-checks.js';
import type { ProxyContext } from './context.js';

export interface ProxyHandle {
  readonly address: ProxyAddress;
  readonly settings: ProxySettings;
  /** The one event stream: subscribe to get every exchange's lifecycle. */
  readonly events: EventStream;
  readonly ca: CertificateAuthority;
  /** The socket timeline, when on: `timeline.toLog()` gives the HAR `log` fields (`_connections`). */
  readonly timeline?: Timeline;
  /** Stops listening, closes client and upstream connections. Idempotent. */
  stop(): Promise<void>;
}

function originOf(socket: unknown): RequestOrigin | undefined {
  return (socket as WithOrigin | undefined)?.[ORIGIN];
}

/**
 * Stream buffers of 64 KiB (Node 22's default; Node 20's is 16 KiB). With
 * 16 KiB, every 16 KiB TLS record read fills the other leg's socket buffer
 * at once, so piping pauses and resumes the source once per record: one
 * event-loop turn and one syscall per 16 KiB. Process-wide, which is why it
 * only ever raises the default.
 */
const STREAM_HIGH_WATER_MARK = 64 * 1024;

/** HTTP/1.x client legs: Node's timers off (see timeouts.ts for why), keep-alive bounded by ClientTimeouts. */
const H1_SERVER_OPTIONS: http.ServerOptions = { requestTimeout: 0, headersTimeout: 0, keepAliveTimeout: 0 };

/**
 * Exchange and client-connection ids count per process, not per proxy: the app restarts its proxy
 * when a setting changes and keeps one live capture (and one socket timeline) across restarts, which
 * would otherwise get a second "x1" in place of the first (upstream ids are counted in pool.ts).
 */
let exchangeCounter = 0;
let clientConnectionCounter = 0;

export async function startProxy(options: ProxyOptions = {}): Promise<ProxyHandle> {
  if (stream.getDefaultHighWaterMark(false) < STREAM_HIGH_WATER_MARK) stream.setDefaultHighWaterMark(false, STREAM_HIGH_WATER_MARK);
  const opts = resolveOptions(options);
  const ca = loadOrCreateCA(opts.dataDir);
  ca.limitHostCache(opts.hostCacheSize);
  const timeouts = new ClientTimeouts(opts);
  const events = new EventStream();
  const timeline = opts.timeline ? new Timeline() : undefined;
  const pool = new UpstreamPool({
    timeline,
    nagle: opts.nagle,
    http2: opts.http2,
    // The Netlens CA is trusted upstream too, so the built-in test site (and any
    // origin whose certificate Netlens issued) works without extra flags.
    extraCA: [ca.certPem, ...opts.upstreamCA],
    rejectUnauthorized: !opts.insecureUpstream,
    bodyTimeoutMs: opts.upstreamBodyTimeoutMs,
  });
  const listenAddr = { host: opts.host, port: opts.port };
  const ctx: ProxyContext = {
    options: opts,
    events,
    timeline,
    pool,
    ca,
    nextExchangeId: () => `x${++exchangeCounter}`,
    nextClientConnectionId: () => `c${++clientConnectionCounter}`,
    isSelf: (host, port) => isSelf(host, port, listenAddr),
    clientTimeoutReason: (id) => timeouts.reasonFor(id),
    refuseTarget: (url) => {
      const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
      if (isSelf(url.hostname, port, listenAddr))
        return { status: 400, message: 'Refusing to forward a request to the proxy itself (request loop)' };
      return null;
    },
  };

  const clientSockets = new Set<Socket>();
  const tunnelSockets = new Set<Socket>();
  const track = (socket: Socket) => {
    clientSockets.add(socket);
    socket.once('close', () => clientSockets.delete(socket));
  };
  const onRequest = (origin: (req: ClientRequest) => RequestOrigin) => (req: ClientRequest, res: ClientResponse) => {
    if (req.httpVersion !== '2.0') timeouts.onRequest(req as http.IncomingMessage, res as http.ServerResponse);
    if (res instanceof http.ServerResponse) trackClientRequest(req as http.IncomingMessage, res);
    // HTTP/2: a burst of streams is taken in a few per event-loop turn (h2-admission.ts).
    if (req.httpVersion === '2.0') admission.admit((arrivedAt) => handle(req, res, origin, arrivedAt));
    else handle(req, res, origin);
  };
  const admission = createAdmission();
  const handle = (req: ClientRequest, res: ClientResponse, origin: (req: ClientRequest) => RequestOrigin, arrivedAt?: number) =>
    handleRequest(ctx, req, res, origin(req), arrivedAt).catch((err) => {
      // A bug, not a network failure: keep serving others and say what happened.
      process.emitWarning(`Netlens: request handler failed: ${(err as Error)?.stack ?? err}`, { code: ErrorCodes.INTERNAL });
      answerProxyError(res, 500, 'Netlens internal error (see the proxy log)');
    });
  const fallbackOrigin =
    (transport: RequestOrigin['transport']) =>
    (req: ClientRequest): RequestOrigin =>
      // HTTP/2: kept on the session (onSession below); `req.socket` builds a Proxy per request.
      ('stream' in req ? originOf(req.stream.session) : originOf(req.socket)) ?? { transport, clientConnectionId: 'c?' };

  // The listener: absolute-form HTTP requests, CONNECT, and upgrades (ws:// via the proxy).
  // Node's own timers are off (requestTimeout 0, headersTimeout 0): ClientTimeouts bounds every client leg.
  const server = http.createServer({ ...H1_SERVER_OPTIONS, maxHeaderSize: opts.maxHeaderSize }, onRequest(fallbackOrigin('plain')));
  server.on('connection', (socket: Socket & WithOrigin) => {
    if (!admitClient(socket, opts.allowRemoteClients)) return;
    track(socket);
    socket.setNoDelay(!opts.nagle);
    socket[ORIGIN] = { transport: 'plain', clientConnectionId: ctx.nextClientConnectionId() };
    timeline?.watch(socket, socket[ORIGIN].clientConnectionId, 'client', opts.nagle);
    timeouts.watchH1(socket, socket[ORIGIN].clientConnectionId);
  });
  // Malformed request lines, bad headers, oversized heads: answer (after any response
  // already under way on that connection) and keep serving others.
  const onClientError = answerClientError(opts.maxHeaderSize);
  server.on('clientError', onClientError);
  // One more header line than the limit is kept, so a request over it is refused (request-checks.ts), not truncated.
  const limitHeaders = (
    srv: { maxHeadersCount: number | null; maxHeaderSize?: number; requireHostHeader?: boolean } & NodeJS.EventEmitter,
  ) => {
    srv.maxHeadersCount = MAX_HEADER_COUNT + 1;
    // Node answers a missing Host (400) and an unknown Expect (417) itself, before any handler:
    // unrecorded, and out of turn, so a request pipelined behind it was forwarded at once.
    // Both reach the handler instead, which answers them in turn (request-checks.ts).
    srv.requireHostHeader = false;
    const handler = srv.listeners('request')[0];
    if (handler) srv.on('checkExpectation', handler as (...args: unknown[]) => void);
    // The HTTP/1.1 fallback of http2.createSecureServer reads this property (it takes no maxHeaderSize option):
    // without it, intercepted HTTP/1.1 had Node's 16 KiB limit while plain forwarding had ours.
    srv.maxHeaderSize = opts.maxHeaderSize;
  };
  limitHeaders(server);

  // Upstream connections opened as intercepted clients connect (see pool.preconnect):
  // one per HTTP/1.1 client connection to the origin, the probe for HTTP/2.
  const h1Clients = new Map<string, number>();
  const preconnectFor = (target: { host: string; port: number }, tlsSocket: tls.TLSSocket) => {
    const key = `${target.host} ${target.port}`;
    const n = tlsSocket.alpnProtocol === 'h2' ? 1 : (h1Clients.get(key) ?? 0) + 1;
    if (tlsSocket.alpnProtocol !== 'h2') {
      h1Clients.set(key, n);
      tlsSocket.once('close', () => {
        const left = (h1Clients.get(key) ?? 1) - 1;
        if (left > 0) h1Clients.set(key, left);
        else h1Clients.delete(key);
      });
    }
    pool.preconnect(target.host, target.port, n);
  };

  const streamLimits = createStreamLimitMirror(pool);
  // Decrypted connections from intercepted CONNECTs: h2 or http/1.1 by ALPN, one server for all hosts.
  const interceptor = createInterceptor(ctx, {
    onRequest: onRequest(fallbackOrigin('intercepted')),
    onClientError,
    onUpgrade: (req, socket, head) => {
      timeouts.release(socket);
      handleUpgrade(ctx, req, socket, head, originOf(socket) ?? { transport: 'intercepted', clientConnectionId: 'c?' });
    },
    // Requests find their origin (connection id, CONNECT target) on the TLS socket.
    onSecure: (tlsSocket: tls.TLSSocket & WithOrigin & { _parent?: WithOrigin }) => {
      const origin = (tlsSocket[ORIGIN] = tlsSocket._parent?.[ORIGIN]);
      if (origin?.target) preconnectFor(origin.target, tlsSocket);
      if (origin) timeline?.watch(tlsSocket, origin.clientConnectionId, 'client', opts.nagle);
      if (tlsSocket.alpnProtocol !== 'h2') timeouts.watchH1(tlsSocket, origin?.clientConnectionId ?? 'c?');
    },
    onSession: (session: http2.ServerHttp2Session & WithOrigin) => {
      const origin = (session[ORIGIN] = originOf(session.socket));
      timeouts.watchH2(session);
      // The browser leg allows as many concurrent streams as the origin does (h2-stream-limit.ts).
      if (origin?.target) streamLimits.watch(session, origin.target);
    },
    configureServer: (srv) => limitHeaders(srv as unknown as http.Server),
  });

  // Cleartext HTTP inside a CONNECT tunnel (e.g. ws:// over CONNECT).
  const tunnelHttpServer = http.createServer(
    { ...H1_SERVER_OPTIONS, maxHeaderSize: opts.maxHeaderSize },
    onRequest(fallbackOrigin('connect-plain')),
  );
  limitHeaders(tunnelHttpServer);
  tunnelHttpServer.on('clientError', onClientError);
  tunnelHttpServer.on('upgrade', (req: http.IncomingMessage, socket: Socket, head: Buffer) => {
    timeouts.release(socket);
    handleUpgrade(ctx, req, socket, head, originOf(socket) ?? { transport: 'connect-plain', clientConnectionId: 'c?' });
  });

  const targets: ConnectTargets = {
    interceptor,
    tunnelHttpServer,
    tunnelSockets,
    watchCleartext: (socket, id) => timeouts.watchH1(socket, id),
  };
  server.on('connect', (req: http.IncomingMessage, socket: Socket & WithOrigin, head: Buffer) => {
    timeouts.release(socket);
    handleConnect(ctx, targets, req, socket, head);
  });
  server.on('upgrade', (req: http.IncomingMessage, socket: Socket, head: Buffer) => {
    timeouts.release(socket);
    handleUpgrade(ctx, req, socket, head, originOf(socket) ?? { transport: 'plain', clientConnectionId: 'c?' });
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      if (err.code === 'EADDRINUSE') {
        reject(
          new NetlensError(
            ErrorCodes.PORT_IN_USE,
            `Port ${opts.port} on ${opts.host} is already in use. Stop the other program, choose another --port, or use --port 0 for any free port.`,
            { cause: err },
          ),
        );
      } else {
        reject(new NetlensError(ErrorCodes.LISTEN_FAILED, `Cannot listen on ${opts.host}:${opts.port}: ${err.message}`, { cause: err }));
      }
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(opts.port, opts.host);
  });
  const bound = server.address() as net.AddressInfo;
  listenAddr.port = bound.port;
  const displayHost = bound.address.includes(':') ? `[${bound.address}]` : bound.address;
  const address: ProxyAddress = { host: bound.address, port: bound.port, url: `http://${displayHost}:${bound.port}` };
  const settings: ProxySettings = {
    host: bound.address,
    port: bound.port,
    intercept: opts.intercept,
    http2: opts.http2,
    nagle: opts.nagle,
    dataDir: opts.dataDir,
  };
  events.emit({ type: 'listening', address });

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      timeouts.close();
      tunnelHttpServer.close();
      for (const s of clientSockets) s.destroy();
      for (const s of tunnelSockets) s.destroy();
      pool.close();
    }).then(() => events.emit({ type: 'closed' })));

  return { address, settings, events, ca, timeline, stop };
}
