/**
 * The origin-form target of an absolute http(s) URL (`pathname + search`, what WHATWG URL gives), for the
 * start line entry.ts counts in `headersSize`. Every recorded intercepted HTTP/1.x exchange needs it, and
 * parsing the URL (new URL) was ~1.5 us of the ~15 us a recorded exchange cost on the event loop in the
 * proxy's CPU profile (bench/profile.ts https, issue 17).
 *
 * Fast path: when the path and query hold only characters URL keeps as they are (no dot segments, no
 * fragment, no backslash, nothing URL percent-encodes), the target is the URL's text from the first '/'
 * after the authority. Whether the authority itself parses (a bad port or IPv4 address makes URL throw,
 * and then the whole URL is the target) is learned once per scheme + authority by the slow path and kept
 * in a small set. proxy/test/har/request-target.test.ts holds the fast path to URL on generated URLs.
 */

/** Characters kept as they are in an http(s) URL's path and query: RFC 3986 unreserved, sub-delims but ', ':', '@', '/', '?', '%'. */
const PLAIN = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&()*+,;=:@/?%') PLAIN[c.charCodeAt(0)] = 1;

/** Scheme + authority of URLs that WHATWG URL parses (e.g. `https://example.com:8443`). Bounded. */
const PARSED_AUTHORITIES = new Set<string>();
const MAX_AUTHORITIES = 256;
/** The PARSED_AUTHORITIES member the last fast-path URL had ('' before one). */
let lastAuthority = '';

/** Where the path starts in `url` if everything from there on is kept as is by URL, else -1. */
function plainPathStart(url: string): number {
  let i: number;
  if (url.startsWith('https://')) i = 8;
  else if (url.startsWith('http://')) i = 7;
  else return -1;
  const slash = url.indexOf('/', i);
  // No authority ('https:///p'): URL skips the extra slashes and takes what follows for the host.
  if (slash <= i) return -1;
  // '?', '#' or '\' before the first '/' end the authority somewhere else; a tab or newline, which URL removes, can
  // make the first '/' start the authority instead ('https://\t/host' has the host "host").
  for (let j = i; j < slash; j++) {
    const c = url.charCodeAt(j);
    if (c === 63 || c === 35 || c === 92 || c === 9 || c === 10 || c === 13) return -1;
  }
  let inPath = true;
  const n = url.length;
  for (let j = slash; j < n; j++) {
    const c = url.charCodeAt(j);
    if (c >= 128 || PLAIN[c] === 0) return -1;
    if (c === 63) {
      // A lone '?' at the end is an empty query, which URL drops.
      if (j === n - 1) return -1;
      inPath = false;
    } else if (inPath && c === 47) {
      // A segment that starts with '.' or '%2e' may be a dot segment, which URL resolves.
      const next = url.charCodeAt(j + 1);
      if (next === 46 || (next === 37 && url.charCodeAt(j + 2) === 50 && (url.charCodeAt(j + 3) | 0x20) === 101)) return -1;
    }
  }
  return slash;
}

/** `pathname + search` of an absolute URL, or the URL itself when it does not parse. */
export function originForm(url: string): string {
  const slash = plainPathStart(url);
  if (slash >= 0) {
    // Exchanges in a row mostly go to one origin: compared in place, no substring to hash.
    if (slash === lastAuthority.length && url.startsWith(lastAuthority)) return url.slice(slash);
    const authority = url.slice(0, slash);
    if (PARSED_AUTHORITIES.has(authority)) {
      lastAuthority = authority;
      return url.slice(slash);
    }
  }
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  if (slash >= 0) {
    if (PARSED_AUTHORITIES.size >= MAX_AUTHORITIES) PARSED_AUTHORITIES.clear();
    PARSED_AUTHORITIES.add(url.slice(0, slash));
  }
  return u.pathname + u.search;
}
