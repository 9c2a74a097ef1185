/**
 * How a browser page proves it holds the `netlens serve` token on the event
 * WebSocket. A browser WebSocket cannot set an Authorization header, and a
 * token in the socket's URL would end up in logs; so the page offers two
 * subprotocols, `netlens` and `netlens.bearer.<token>`, and the server selects
 * `netlens` (it never echoes the token back). Kubernetes does the same
 * (`base64url.bearer.authorization.k8s.io.<token>`).
 *
 * Shared by the core and the renderer: no Node imports here.
 */
export const WS_PROTOCOL = 'netlens';
export const WS_TOKEN_PREFIX = 'netlens.bearer.';

/** The subprotocols the page offers (the token is base64url: valid protocol characters). */
export function wsProtocols(token: string): string[] {
  return [WS_PROTOCOL, `${WS_TOKEN_PREFIX}${token}`];
}

/** The token offered in a `Sec-WebSocket-Protocol` header, if any. */
export function tokenFromWsProtocols(header: string | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  for (const part of header.split(',')) {
    const p = part.trim();
    if (p.startsWith(WS_TOKEN_PREFIX)) return p.slice(WS_TOKEN_PREFIX.length);
  }
  return undefined;
}
