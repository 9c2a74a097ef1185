/**
 * A raw client: writes bytes (optionally split over several writes) to the proxy,
 * either on the plain listener or inside an intercepted CONNECT tunnel (TLS with the
 * Netlens CA, ALPN http/1.1), reads until the server closes or goes quiet, then sends
 * FIN and checks that the server closes within `finWaitMs` (else the connection hung).
 */
import net from 'node:net';
import tls from 'node:tls';
import { once } from 'node:events';

export type Path = 'plain' | 'tunnel';
/** The corpus's paths: HTTP/1 on the listener, HTTP/1 in a tunnel, HTTP/2 in a tunnel. */
export type CorpusPath = Path | 'h2';

export interface Endpoint {
  port: number;
  /** For 'tunnel': the CONNECT target and the CA the proxy's certificate must chain to. */
  tunnel?: { host: string; port: number; ca: string };
}

export interface RawOutcome {
  bytes: Buffer;
  /** The server ended the connection before our FIN. */
  serverClosed: boolean;
  /** Still open `finWaitMs` after our FIN. */
  hung: boolean;
  /** From the first write to the server's close or our FIN. */
  millis?: number;
  /** When we stopped waiting: the server's close, or our FIN (Date.now()). */
  finAt?: number;
  /** The client's local port (a server can find this connection by it). */
  localPort?: number;
  /** Connecting (or the tunnel's CONNECT / TLS handshake) failed. */
  setupError?: string;
}

export interface RawOptions {
  /** Quiet time (no bytes either way) after which the client sends FIN. */
  quietMs?: number;
  /** Longest wait for the server before FIN whatever happens. */
  maxMs?: number;
  finWaitMs?: number;
  /** Pause between writes so that each lands in its own read on the server. */
  gapMs?: number;
  /** Quiet time decided anew while waiting (e.g. longer while a request is known to be under way); overrides quietMs. */
  quietFor?: (received: Buffer) => number;
  /** Stop waiting (and send FIN) as soon as this says the bytes so far are all we expect. */
  doneWhen?: (received: Buffer) => boolean;
}

const sessions = new Map<string, Buffer>();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Opens a connection to the proxy; for a tunnel, CONNECT then TLS. */
export async function openClient(ep: Endpoint, timeoutMs = 10_000, alpn = ['http/1.1']): Promise<net.Socket> {
  const raw = net.connect({ port: ep.port, host: '127.0.0.1', noDelay: true });
  raw.on('error', () => {});
  const timer = setTimeout(() => raw.destroy(new Error('setup timed out')), timeoutMs);
  try {
    await once(raw, 'connect');
    if (!ep.tunnel) return raw;
    const { host, port, ca } = ep.tunnel;
    raw.write(`CONNECT ${host}:${port} HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\n`);
    let head = Buffer.alloc(0);
    while (head.indexOf('\r\n\r\n') < 0) {
      const [c] = (await once(raw, 'data')) as [Buffer];
      head = Buffer.concat([head, c]);
    }
    if (!/^HTTP\/1\.1 200/.test(head.toString('latin1'))) throw new Error(`CONNECT refused: ${head.toString('latin1').slice(0, 100)}`);
    // Resume the last TLS session with this proxy: a full handshake per fuzz case would
    // spend the run's time on RSA, not on HTTP.
    const key = `${ep.port} ${host}:${port} ${alpn.join(',')}`;
    const s = tls.connect({
      socket: raw,
      host,
      ca,
      ALPNProtocols: alpn,
      servername: net.isIP(host) ? undefined : host,
      session: sessions.get(key),
    });
    s.on('error', () => {});
    s.on('session', (session: Buffer) => {
      if (sessions.size > 100) sessions.clear();
      sessions.set(key, session);
    });
    await once(s, 'secureConnect');
    s.setNoDelay(true);
    return s;
  } finally {
    clearTimeout(timer);
  }
}

export async function rawExchange(ep: Endpoint, chunks: Buffer[], opts: RawOptions = {}): Promise<RawOutcome> {
  const { quietMs = 400, maxMs = 8_000, finWaitMs = 5_000, gapMs = 2, doneWhen, quietFor } = opts;
  let socket: net.Socket;
  try {
    socket = await openClient(ep);
  } catch (err) {
    return { bytes: Buffer.alloc(0), serverClosed: false, hung: false, setupError: (err as Error).message };
  }
  const localPort = socket.localPort;
  let all = Buffer.alloc(0);
  let last = Date.now();
  let ended = false;
  let closed = false;
  // Event-driven waits (no polling): hundreds of these run at once in the fuzzer.
  let wake: () => void = () => {};
  socket.on('data', (c: Buffer) => {
    all = Buffer.concat([all, c]);
    last = Date.now();
    wake();
  });
  socket.on('end', () => {
    ended = true;
    wake();
  });
  socket.on('close', () => {
    closed = true;
    wake();
  });
  for (let i = 0; i < chunks.length && !closed; i++) {
    if (i > 0 && gapMs) await sleep(gapMs);
    socket.write(chunks[i]!);
  }
  last = Date.now();
  const start = Date.now();
  await new Promise<void>((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const check = () => {
      clearTimeout(timer);
      const now = Date.now();
      const left = Math.min((quietFor ? quietFor(all) : quietMs) - (now - last), maxMs - (now - start));
      if (ended || closed || left <= 0 || doneWhen?.(all)) {
        wake = () => {};
        resolve();
        return;
      }
      // quietFor may change without a byte from the server (a request reaching the origin): look again now and then.
      timer = setTimeout(check, Math.min(left, 250));
    };
    wake = check;
    check();
  });
  const serverClosed = ended || closed;
  const finAt = Date.now();
  const millis = finAt - start;
  let hung = false;
  if (!closed) {
    socket.end();
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, finWaitMs);
      wake = () => {
        if (!closed && !ended) return;
        clearTimeout(t);
        resolve();
      };
      wake();
    });
    hung = !closed && !ended;
    socket.destroy();
  }
  return { bytes: all, serverClosed, hung, localPort, millis, finAt };
}
