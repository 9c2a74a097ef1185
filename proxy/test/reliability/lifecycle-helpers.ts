/**
 * Helpers for the lifecycle checks: file descriptors and TCP states of this
 * process (the proxy runs in-process), raw clients that open tunnels, and a
 * seeded random source so "random points" are the same on every run.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';

/** Open file descriptors of a process (default: this one). */
export function fdCount(pid: number | 'self' = 'self'): number {
  return fs.readdirSync(`/proc/${pid}/fd`).length;
}

/** Sockets whose local port is `port` in CLOSE-WAIT (the peer closed, we did not): the leak issue 13 found. */
export function closeWaitCount(port: number): number {
  try {
    const out = execFileSync('ss', ['-tanH', 'state', 'close-wait', `( sport = :${port} )`], { encoding: 'utf8' });
    return out.split('\n').filter((l) => l.trim()).length;
  } catch {
    return 0;
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` holds or `ms` pass; returns whether it held. */
export async function eventually(check: () => boolean, ms: number, every = 100): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (check()) return true;
    if (Date.now() > until) return false;
    await sleep(every);
  }
}

/** mulberry32: a small seeded PRNG (fixed seeds keep the "random" close points reproducible). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
    // Clients here close abruptly on purpose: late resets are expected, not failures.
    s.on('error', reject);
  });
}

/** Reads until `pattern` appears in what arrived (or the socket ends); resolves with all bytes read. */
export function readUntil(s: net.Socket | tls.TLSSocket, pattern: string, ms = 10_000): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    const done = () => {
      clearTimeout(timer);
      s.off('data', onData);
      s.off('close', done);
      resolve(got);
    };
    const onData = (c: Buffer) => {
      got += c.toString('latin1');
      if (got.includes(pattern)) done();
    };
    const timer = setTimeout(done, ms);
    s.on('data', onData);
    s.once('close', done);
  });
}

/** Opens a CONNECT tunnel through the proxy and waits for its 200 (or failure status). */
export async function tunnel(proxyPort: number, authority: string): Promise<{ socket: net.Socket; status: string }> {
  const socket = await connect(proxyPort);
  socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
  const head = await readUntil(socket, '\r\n\r\n');
  return { socket, status: head.split('\r\n')[0] ?? '' };
}

/** TLS over an open tunnel, trusting anything (the proxy's certificate is not under test here). */
export function tlsOver(socket: net.Socket, servername: string | undefined, alpn: string[]): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const t = tls.connect({ socket, servername, rejectUnauthorized: false, ALPNProtocols: alpn }, () => resolve(t));
    t.on('error', reject);
  });
}

/** An abrupt close: RST (no FIN, no close_notify) or a bare FIN, as the random source decides. */
export function abort(socket: net.Socket, rnd: () => number): void {
  if (rnd() < 0.5) socket.resetAndDestroy();
  else socket.destroy();
}

/** Runs `n` tasks, `width` at a time; failures of single clients are counted, not thrown. */
export async function inBatches(n: number, width: number, task: (i: number) => Promise<void>): Promise<number> {
  let failed = 0;
  for (let i = 0; i < n; i += width) {
    const batch = [];
    for (let j = i; j < Math.min(n, i + width); j++) batch.push(task(j).catch(() => void failed++));
    await Promise.all(batch);
  }
  return failed;
}
