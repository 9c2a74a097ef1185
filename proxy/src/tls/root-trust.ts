/**
 * TLS contexts for connecting to origins: Node's bundled root certificates plus extra CAs
 * (the Netlens CA, `--upstream-ca`, a replay's `--ca`).
 *
 * Why not `tls.createSecureContext({ ca: [...tls.rootCertificates, ...extra] })`: that parses the
 * ~140 root certificates' PEM text again into a store of the context's own, ~1 MB resident and a few
 * milliseconds of CPU per context (per connection when passed to `tls.connect` as `ca`). A context
 * made without `ca` uses Node's process-wide root store, parsed once; adding a CA to it makes Node
 * give that context a copy of the root store that shares the parsed certificates, plus the CA. The
 * process-wide store is not changed: other contexts do not trust the extra CA
 * (proxy/test/tls/root-trust.test.ts checks both, and that roots stay trusted).
 */
import tls from 'node:tls';

interface NativeContext {
  addCACert?: (pem: string) => void;
}

const cache = new Map<string, tls.SecureContext>();
/** Distinct CA lists in one process are few (the proxy's, a replay's, the lab probe's); a bound keeps a bug from growing it. */
const MAX_CACHED = 8;

/** A context trusting Node's roots and `extra` (PEM texts), shared by every caller that asks for the same list. */
export function rootsPlus(extra: readonly string[]): tls.SecureContext {
  const key = extra.join('\n');
  let ctx = cache.get(key);
  if (ctx) return ctx;
  ctx = build(extra);
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(key, ctx);
  return ctx;
}

function build(extra: readonly string[]): tls.SecureContext {
  const ctx = tls.createSecureContext({});
  if (extra.length === 0) return ctx;
  // `context` is Node's native SecureContext (what `ca` is handed to); not public API, so a Node without it
  // gets the documented, costlier way.
  const native = (ctx as unknown as { context?: NativeContext }).context;
  if (typeof native?.addCACert !== 'function') return tls.createSecureContext({ ca: [...tls.rootCertificates, ...extra] });
  for (const pem of extra) native.addCACert(pem);
  return ctx;
}
