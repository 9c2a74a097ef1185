/**
 * The request target of `netlens serve`, parsed in one place and never by
 * `new URL()`: a target such as `//`, `/\` or `http://[` makes the URL
 * constructor throw, and a throw in a request handler used to take the whole
 * process (and the proxy it hosts) down. Every function here is total.
 */

export interface RequestTarget {
  /** The path exactly as sent (still percent-encoded). */
  path: string;
  query: URLSearchParams;
}

/**
 * Splits an origin-form target (`/path?query`, RFC 9112 §3.2.1) into path and
 * query. Anything else (absolute-form, `*`, a missing target) is not a request
 * this server answers, and gets a reason for its 400.
 */
export function parseTarget(raw: string | undefined): RequestTarget | { error: string } {
  if (typeof raw !== 'string' || !raw.startsWith('/')) {
    return { error: 'Bad request target: this server answers only paths such as /api/getStatus.' };
  }
  const q = raw.indexOf('?');
  const path = q === -1 ? raw : raw.slice(0, q);
  // URLSearchParams decodes leniently (a bad %-escape stays as is) and never throws.
  const query = new URLSearchParams(q === -1 ? '' : raw.slice(q + 1));
  return { path, query };
}

/**
 * The decoded path of a static file, or undefined when it cannot name one:
 * a malformed %-escape (`decodeURIComponent` throws URIError), a NUL (fs
 * calls throw on it) or a backslash (a Windows separator; no asset has one).
 */
export function decodePath(path: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  return decoded;
}
