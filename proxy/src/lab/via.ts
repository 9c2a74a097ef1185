/**
 * External proxies for the lab's via cells: how they are named and addressed,
 * validated before anything starts (a typo should cost a usage error, not a
 * minute of page loads).
 */
import { ErrorCodes, NetlensError } from '../errors.js';
import { VIA_NAME } from './cells.js';
import type { ViaProxy } from './types.js';

/**
 * Checks names (VIA_NAME, unique) and URLs (`http://host[:port]`, nothing else:
 * Chrome's --proxy-server takes no path or credentials). Returns normalised
 * copies (`http://host:port`, port 80 spelled out); throws NL_USAGE.
 */
export function validateVia(via: readonly ViaProxy[]): ViaProxy[] {
  const seen = new Set<string>();
  return via.map(({ name, url }) => {
    if (typeof name !== 'string' || !VIA_NAME.test(name)) {
      throw new NetlensError(
        ErrorCodes.USAGE,
        `external proxy name "${name}" is not valid: use 1-32 lowercase letters, digits and "-", starting with a letter or digit (e.g. "mitmproxy")`,
      );
    }
    if (seen.has(name)) throw new NetlensError(ErrorCodes.USAGE, `external proxy name "${name}" is given twice`);
    seen.add(name);
    return { name, url: normaliseProxyUrl(name, url) };
  });
}

function normaliseProxyUrl(name: string, url: string): string {
  const bad = (why: string) =>
    new NetlensError(ErrorCodes.USAGE, `external proxy ${name}: "${url}" ${why}; give the address of an HTTP proxy as http://host:port`);
  // Without "scheme://", URL reads "127.0.0.1:8080" as scheme "127.0.0.1:": say what is missing instead.
  if (typeof url !== 'string' || !/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) throw bad('is not a URL (it needs http://)');
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw bad('is not a URL');
  }
  if (u.protocol !== 'http:') throw bad(`has scheme ${u.protocol.replace(/:$/, '')}`);
  if (u.username || u.password) throw bad('carries credentials (Chrome takes none in --proxy-server)');
  if ((u.pathname !== '/' && u.pathname !== '') || u.search || u.hash) throw bad('has a path, query or fragment');
  if (!u.hostname) throw bad('has no host');
  return `http://${u.hostname}:${u.port || '80'}`;
}

/** `NAME=URL` as typed after `--via`; throws NL_USAGE saying what is wrong. */
export function parseViaFlag(value: string): ViaProxy {
  const eq = value.indexOf('=');
  if (eq <= 0)
    throw new NetlensError(ErrorCodes.USAGE, `--via takes NAME=URL, e.g. --via mitmproxy=http://127.0.0.1:8081 (got "${value}")`);
  const [proxy] = validateVia([{ name: value.slice(0, eq).trim(), url: value.slice(eq + 1).trim() }]);
  return proxy;
}
