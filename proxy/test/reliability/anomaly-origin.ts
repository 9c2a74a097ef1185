/**
 * A raw TCP origin for the upstream-anomaly corpus: every request head is read off
 * the wire, its path names a mode, and the mode writes exact bytes back (or closes,
 * or resets). Counts requests per mode, so a test can tell a retry from none.
 * Also a client that asks the proxy with Node's own HTTP client (strict: whatever the
 * proxy forwards must still be valid HTTP) and reports what came back.
 */
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';

export interface ModeContext {
  /** How many requests this connection carried before this one. */
  previousOnConnection: number;
  /** Modes this connection served before this request. */
  seen: Set<string>;
  method: string;
}

export type Respond = (socket: net.Socket, ctx: ModeContext) => void;

export interface RawOrigin {
  port: number;
  /** Requests seen per mode (path segment after the first "/"), all connections. */
  count(mode: string): number;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1; `modes` maps the first path segment to its behaviour. With `cert`: over TLS (ALPN http/1.1). */
export async function rawOrigin(modes: Record<string, Respond>, cert?: { certPem: string; keyPem: string }): Promise<RawOrigin> {
  const counts = new Map<string, number>();
  const sockets = new Set<net.Socket>();
  const onConnection = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buffered = '';
    let served = 0;
    const seen = new Set<string>();
    socket.on('data', (d: Buffer) => {
      buffered += d.toString('latin1');
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffered.slice(0, end);
        buffered = buffered.slice(end + 4);
        const [method = '', target = ''] = head.split(' ');
        const mode =
          target
            .replace(/^https?:\/\/[^/]+/, '')
            .split('/')[1]
            ?.split('?')[0] ?? '';
        counts.set(mode, (counts.get(mode) ?? 0) + 1);
        const respond = modes[mode];
        const ctx = { previousOnConnection: served++, seen: new Set(seen), method };
        seen.add(mode);
        if (respond) respond(socket, ctx);
        else socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
      }
    });
  };
  const server = cert
    ? tls.createServer({ cert: cert.certPem, key: cert.keyPem, ALPNProtocols: ['http/1.1'] }, onConnection)
    : net.createServer(onConnection);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    count: (mode) => counts.get(mode) ?? 0,
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** What a client got from the proxy. */
export type Outcome =
  | { kind: 'response'; status: number; body: string; complete: boolean; headers: http.IncomingHttpHeaders }
  | { kind: 'closed'; error: string }
  | { kind: 'hung' };

/** Sends one request through the proxy (absolute-form, Connection: close) and waits for the outcome, bounded. */
export function viaProxy(proxyPort: number, url: string, opts: { method?: string; timeoutMs?: number } = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (o: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(o);
    };
    const req = http.request({
      host: '127.0.0.1',
      port: proxyPort,
      path: url,
      method: opts.method ?? 'GET',
      agent: false,
      headers: { connection: 'close' },
    });
    const timer = setTimeout(() => done({ kind: 'hung' }), opts.timeoutMs ?? 10_000);
    req.on('error', (err: NodeJS.ErrnoException) => done({ kind: 'closed', error: err.code ?? err.message }));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      const finish = (complete: boolean) =>
        done({
          kind: 'response',
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('latin1'),
          complete,
          headers: res.headers,
        });
      res.on('end', () => finish(res.complete));
      res.on('aborted', () => finish(false));
      res.on('error', () => finish(false));
      res.on('close', () => finish(res.complete));
    });
    req.end();
  });
}

/** Writes `text` one byte at a time, `everyMs` apart (a slow origin). */
export function trickle(socket: net.Socket, text: string, everyMs: number): void {
  let i = 0;
  const tick = () => {
    if (socket.destroyed) return;
    if (i >= text.length) return;
    socket.write(text[i++]!);
    setTimeout(tick, everyMs);
  };
  tick();
}

/** A TLS origin (certificate from `cert`) whose behaviour is chosen per connection by `onConnection`; counts handshakes. */
export async function tlsOrigin(
  cert: { certPem: string; keyPem: string },
  alpn: string[],
  onConnection: (socket: tls.TLSSocket) => void,
): Promise<{ port: number; handshakes: () => number; close: () => Promise<void> }> {
  let handshakes = 0;
  const sockets = new Set<net.Socket>();
  const server = tls.createServer({ cert: cert.certPem, key: cert.keyPem, ALPNProtocols: alpn }, (s) => {
    handshakes++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
    onConnection(s);
  });
  server.on('tlsClientError', () => {});
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    handshakes: () => handshakes,
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
