/**
 * Probes an external proxy once before the lab's via cells use it: CONNECT
 * through it to the target, a TLS handshake, and the SPKI hash of the leaf
 * certificate it presents. The lab's throwaway Chrome profiles then trust that
 * one key (`--ignore-certificate-errors-spki-list`), as they trust the Netlens
 * leaf key, instead of ignoring certificate errors altogether.
 *
 * It doubles as a preflight: a proxy that is down, is not an HTTP proxy or
 * refuses the tunnel fails here with one clear message (NL_LAB_VIA_PROXY),
 * not as N failed page loads.
 */
import net from 'node:net';
import tls from 'node:tls';
import { ErrorCodes, NetlensError } from '../errors.js';
import { spkiHash } from '../tls/ca.js';
import type { ViaProxy } from './types.js';

export const PROBE_TIMEOUT_MS = 10_000;

export interface LeafCertificate {
  /** base64 SHA-256 of the SubjectPublicKeyInfo (DER), the format Chrome's SPKI list takes. */
  spkiHash: string;
  /** SHA-256 of the whole certificate, to tell whether two handshakes saw the same one. */
  fingerprint256: string;
}

/** `host:port` of an https URL, as CONNECT names it (IPv6 hosts keep their brackets). */
function authorityOf(target: URL): string {
  return `${target.hostname}:${target.port || '443'}`;
}

const bare = (hostname: string) => hostname.replace(/^\[|\]$/g, '');

/** TLS on `options.socket` (or a new connection): resolves with the leaf, then closes. */
function tlsLeaf(options: tls.ConnectionOptions, timeoutMs: number): Promise<LeafCertificate> {
  return new Promise((resolve, reject) => {
    const host = options.servername;
    const socket = tls.connect({
      ...options,
      // Chrome sends no SNI for IP addresses either, and Node warns when given one.
      servername: host && net.isIP(host) === 0 ? host : undefined,
      // The point is to see what is presented, trusted or not; nothing is sent over it.
      rejectUnauthorized: false,
      ALPNProtocols: ['h2', 'http/1.1'],
    });
    const timer = setTimeout(() => done(new Error(`no TLS handshake within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
    let settled = false;
    const done = (err?: Error, leaf?: LeafCertificate) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      options.socket?.destroy();
      if (err) reject(err);
      else resolve(leaf!);
    };
    socket.once('secureConnect', () => {
      const cert = socket.getPeerX509Certificate();
      if (!cert) done(new Error('no certificate was presented'));
      else done(undefined, { spkiHash: spkiHash(cert.publicKey), fingerprint256: cert.fingerprint256 });
    });
    socket.once('error', (err) => done(err));
    socket.once('close', () => done(new Error('the connection closed during the TLS handshake')));
  });
}

/**
 * A CONNECT tunnel through `proxy` to `authority`; rejects with NL_LAB_VIA_PROXY
 * and a message saying what to check.
 */
function openTunnel(proxy: ViaProxy, authority: string, timeoutMs: number): Promise<net.Socket> {
  const where = `external proxy ${proxy.name} at ${proxy.url}`;
  const u = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: bare(u.hostname), port: Number(u.port || 80) });
    let stage: 'connect' | 'answer' = 'connect';
    let head = Buffer.alloc(0);
    const timer = setTimeout(
      () =>
        fail(
          stage === 'connect'
            ? `${where} did not accept a connection within ${timeoutMs / 1000} s: is the address right?`
            : `${where} did not answer CONNECT ${authority} within ${timeoutMs / 1000} s: is it an HTTP proxy?`,
        ),
      timeoutMs,
    );
    const cleanup = () => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.off('error', onError);
    };
    const fail = (message: string, cause?: unknown) => {
      cleanup();
      socket.destroy();
      reject(new NetlensError(ErrorCodes.LAB_VIA_PROXY, message, { cause }));
    };
    const onError = (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED') fail(`${where} refused the connection: is it running?`, err);
      else if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') fail(`${where}: the host name ${u.hostname} did not resolve`, err);
      else if (stage === 'answer')
        fail(
          `${where} dropped the connection without answering CONNECT ${authority} (${err.code ?? err.message}): is it an HTTP proxy?`,
          err,
        );
      else fail(`${where}: cannot connect (${err.message})`, err);
    };
    const onClose = () => fail(`${where} closed the connection without answering CONNECT ${authority}: is it an HTTP proxy?`);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      // Anything but an HTTP status line is not a proxy (a TLS port, SSH, a database…): say so now, not after the timeout.
      if (!'HTTP/'.startsWith(head.subarray(0, 5).toString('latin1'))) {
        return fail(
          `${where} did not answer CONNECT like an HTTP proxy (it sent ${JSON.stringify(head.subarray(0, 40).toString('latin1'))}): is the URL the proxy's HTTP port?`,
        );
      }
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > 16_384) fail(`${where} sent an endless answer to CONNECT: is it an HTTP proxy?`);
        return;
      }
      const statusLine = head.subarray(0, head.indexOf('\r\n')).toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(statusLine);
      if (!m)
        return fail(
          `${where} did not answer CONNECT like an HTTP proxy (it said ${JSON.stringify(statusLine.slice(0, 80))}): is the URL the proxy's HTTP port?`,
        );
      const status = Number(m[1]);
      if (status < 200 || status > 299) {
        return fail(
          `${where} refused CONNECT ${authority} with "${status}${m[2] ? ` ${m[2]}` : ''}": does it allow tunnels to this host and port (or need authentication, which the lab cannot give)?`,
        );
      }
      // A TLS server never speaks first, so bytes after the head are the proxy's (a body on a 200?), not the tunnel's.
      if (head.length > end + 4)
        return fail(`${where} sent data after accepting CONNECT ${authority}, before the TLS handshake: is it an HTTP proxy?`);
      cleanup();
      resolve(socket);
    };
    socket.once('connect', () => {
      stage = 'answer';
      socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
    });
    socket.on('data', onData);
    socket.on('close', onClose);
    socket.on('error', onError);
  });
}

/**
 * The leaf certificate `proxy` presents for the https `target` (its own when it
 * intercepts, the origin's when it tunnels). Throws NL_LAB_VIA_PROXY.
 */
export async function probeViaProxy(proxy: ViaProxy, target: URL, timeoutMs = PROBE_TIMEOUT_MS): Promise<LeafCertificate> {
  const deadline = Date.now() + timeoutMs;
  const authority = authorityOf(target);
  const socket = await openTunnel(proxy, authority, timeoutMs);
  try {
    return await tlsLeaf({ socket, servername: bare(target.hostname) }, Math.max(1, deadline - Date.now()));
  } catch (err) {
    throw new NetlensError(
      ErrorCodes.LAB_VIA_PROXY,
      `TLS to ${authority} through external proxy ${proxy.name} at ${proxy.url} failed: ${(err as Error).message}. Is it an HTTP proxy that supports CONNECT, and is ${target.origin} reachable from it?`,
      { cause: err },
    );
  }
}

/** The leaf the origin itself presents, or undefined when it cannot be reached directly (then interception is unknown). */
export async function probeOriginLeaf(target: URL, timeoutMs = PROBE_TIMEOUT_MS): Promise<LeafCertificate | undefined> {
  try {
    return await tlsLeaf({ host: bare(target.hostname), port: Number(target.port || 443), servername: bare(target.hostname) }, timeoutMs);
  } catch {
    return undefined;
  }
}
