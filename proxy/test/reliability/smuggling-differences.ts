/**
 * Where the proxy's decision on a corpus case differs from Node's own server, and why.
 * `known` marks a difference (or desync) that is a bug owned by another item of issue 13:
 * reported by the test, not failed, until that item's fix lands (then delete the entry;
 * the test says so when one no longer differs).
 */
import type { CorpusPath as Path } from './raw-client.js';

export interface Difference {
  cases: string[];
  paths?: Path[];
  why: string;
  /** Issue 13 item that owns the bug; absent for a justified, intended difference. */
  known?: string;
}

const ANSWER_FIRST =
  'Node writes its 400 in the place of the answer to the complete request before the bad bytes (the application did get that request); ' +
  'the proxy, which did forward it, answers it first and then sends 400 and closes (client-error.ts)';

export const DIFFERENCES: Difference[] = [
  {
    cases: ['TE underscore name, no CL', 'chunked: last chunk then a body', 'GET then garbage'],
    why: ANSWER_FIRST,
  },
  {
    cases: [
      'Connection: close then a pipelined GET',
      'HTTP/1.0 without keep-alive then a pipelined GET',
      'request line: HTTP/1.0',
      'request line: HTTP/0.9 (no version)',
    ],
    why:
      'bytes after a request that ends the connection (Connection: close, HTTP/1.0, HTTP/0.9 line): Node answers 400 in place of that request; ' +
      'the proxy answers the request and closes, ignoring what follows (RFC 9112 §9.6)',
  },
  {
    cases: ['request line: target with a fragment'],
    why: 'the fragment is dropped when the target is parsed as a URL; a fragment is never part of what an origin receives (RFC 9110 §4.2.5)',
  },
  {
    cases: ['request line: OPTIONS *', 'request line: GET *', 'request line: origin-form (also on the plain listener)'],
    paths: ['plain'],
    why: 'an explicit proxy takes absolute-form targets only and answers 400 otherwise; the pipelined request after it must not reach the origin',
    known: 'item 11 (pipelined requests forwarded in parallel: the origin gets GET /after although the client connection closes after the 400)',
  },
  {
    cases: ['Host duplicate, equal', 'Host duplicate, different'],
    why: 'two Host headers: should be 400 (RFC 9112 §3.2), not a closed connection',
    known: 'item 11 (two Host headers close the connection)',
  },
  {
    cases: ['Host empty'],
    why:
      "an empty Host is forwarded as is next to the Host built from the URL, and the upstream request fails (connection closed); the URI's " +
      'authority (or the tunnel target) should replace Host (RFC 9112 §3.2.2)',
    known: "item 11 (an absolute-form request's Host header is not replaced by the URI's authority)",
  },
  {
    cases: ['Upgrade with a Content-Length body'],
    why: 'an Upgrade request with a body gets no answer and the connection stays open after the client FIN',
    known: 'item 9 (Upgrade with a Content-Length body hangs)',
  },
  {
    cases: ['request line: HTTP/2.0'],
    why: 'Node answers 400; the proxy answers 500 (TypeError); should be 505 or 400',
    known: 'item 11 (HTTP/2.0 request line gets 500)',
  },
  {
    cases: [
      'request line: very long target (60 KiB)',
      'request line: target longer than the header limit (70 KiB)',
      'one header of 70 KiB',
      'one header of 40 KiB',
    ],
    paths: ['tunnel'],
    why: 'inside tunnels heads over 16 KiB get no answer (the h2/h1 server has its own limit); one limit with 431 on both paths is wanted',
    known: 'item 11 (a 60 KiB header is refused inside tunnels with no response)',
  },
  {
    cases: ['request line: OPTIONS *', 'request line: GET *', 'request line: absolute-form with userinfo', 'request line: absolute-form (also inside tunnels)'],
    paths: ['tunnel'],
    why: "inside tunnels a target not starting with '/' gets a '/' prefixed: OPTIONS * becomes /*, absolute-form http://h/x becomes /http://h/x",
    known: 'item 11 (inside tunnels OPTIONS * becomes /*; the same line turns absolute-form targets into paths)',
  },
  {
    cases: ['Host missing'],
    paths: ['tunnel'],
    why: 'HTTP/1.1 without Host: Node answers 400 (RFC 9112 §3.2); inside tunnels the proxy forwards it',
    known: 'item 11 (inside tunnels a missing Host is forwarded)',
  },
  {
    cases: ['Host with userinfo', 'Host with a space inside', 'Host with a path'],
    paths: ['tunnel'],
    why:
      'inside tunnels the Host value becomes part of the upstream URL, so only host[:port] is accepted (a path in Host moved into the upstream ' +
      'target before); RFC 9112 §3.2 asks for 400 on an invalid Host. An empty Host falls back to the tunnel target.',
  },
  {
    cases: [':path * with OPTIONS'],
    paths: ['h2'],
    why: "OPTIONS with :path * is forwarded as OPTIONS /* (the same '/' prefix as in HTTP/1 tunnels)",
    known: 'item 11 (inside tunnels OPTIONS * becomes /*)',
  },
  {
    cases: [':authority with userinfo'],
    paths: ['h2'],
    why: ':authority must not carry userinfo (RFC 9113 §8.3.1); the proxy answers 400 rather than build the upstream URL from it',
  },
  {
    cases: ['CONNECT without :protocol'],
    paths: ['h2'],
    why: 'CONNECT inside an intercepted HTTP/2 connection (a tunnel in a tunnel) is not supported: 405, where a bare server just hands it to its handler',
  },
];

export function differenceFor(name: string, path: Path): Difference | undefined {
  return DIFFERENCES.find((d) => d.cases.includes(name) && (!d.paths || d.paths.includes(path)));
}
