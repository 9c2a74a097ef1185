/**
 * Loopback guard: the proxy is a local tool, never an open relay. Even when
 * bound to another interface it refuses clients that are not on this machine,
 * unless the user explicitly allowed remote clients.
 */
import net from 'node:net';

export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (net.isIPv4(a)) return a.startsWith('127.');
  return a === '::1';
}

const REFUSAL =
  'HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n' +
  'Netlens only accepts clients on this machine. Start it with --allow-remote to accept others.\n';

/**
 * Accepts or refuses a new client socket. Returns false (and closes the socket
 * with a 403 explaining why) for a non-loopback client when remote clients are not allowed.
 */
export function admitClient(socket: net.Socket, allowRemote: boolean): boolean {
  if (allowRemote || isLoopbackAddress(socket.remoteAddress)) return true;
  socket.end(REFUSAL);
  socket.destroySoon?.();
  return false;
}

/** Whether a host/port names this proxy itself (a request loop). */
export function isSelf(host: string, port: number, listen: { host: string; port: number }): boolean {
  if (port !== listen.port) return false;
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || isLoopbackAddress(h) || h === listen.host || listen.host === '0.0.0.0' || listen.host === '::';
}
