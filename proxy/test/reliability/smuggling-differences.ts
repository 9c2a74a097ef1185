/**
 * Where the proxy's decision on a corpus case differs from Node's own server, and why.
 * Every entry is an intended difference; the test says so when one no longer differs.
 */
import type { CorpusPath as Path } from './raw-client.js';

export interface Difference {
  cases: string[];
  paths?: Path[];
  why: string;
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
    why:
      'an explicit proxy takes absolute-form targets only and answers 400 (with Connection: close) otherwise; the request pipelined ' +
      'behind it waits its turn and is never forwarded (connection-order.ts)',
  },
  {
    cases: ['request line: GET *'],
    paths: ['tunnel'],
    why: 'asterisk-form is only for OPTIONS (RFC 9112 §3.2.4): 400, and the request pipelined behind it is not forwarded',
  },
  {
    cases: ['Host duplicate, equal', 'Host duplicate, different'],
    why: 'two Host headers: a server MUST answer 400 (RFC 9112 §3.2); Node accepts them. Two Hosts are how requests are smuggled past proxies',
  },
  {
    cases: ['request line: HTTP/2.0', 'request line: HTTP/3.0', 'request line: PRI * HTTP/2.0 preface'],
    why:
      'a well-formed request line naming another major version gets 505 HTTP Version Not Supported (RFC 9110 §15.6.6); Node says 400. ' +
      'Malformed versions (HTTP/1.2, a trailing space, bare LF) still get 400, as from Node (client-error.ts)',
  },
  {
    cases: ['1,100 header lines'],
    why:
      'more than 1,000 header lines get 431 (request-checks.ts): Node keeps only the first 2,000 (its maxHeadersCount) and drops ' +
      'the rest silently, which would forward a different request than the client sent',
  },
  {
    cases: ['Host with userinfo', 'Host with a space inside', 'Host with a path'],
    paths: ['tunnel'],
    why:
      'inside tunnels the Host value becomes part of the upstream URL, so only host[:port] is accepted (a path in Host moved into the upstream ' +
      'target before); RFC 9112 §3.2 asks for 400 on an invalid Host. An empty Host falls back to the tunnel target.',
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
