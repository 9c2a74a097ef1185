/**
 * Who may talk to `netlens serve`. It listens on 127.0.0.1 only, but any web
 * page the user visits can send requests to localhost, so:
 *  - the Host header must name this server (defeats DNS rebinding);
 *  - a request with an Origin other than this server's own is refused, including
 *    WebSocket upgrades, which browsers do not guard with CORS; so is one a browser
 *    marks `Sec-Fetch-Site: cross-site`;
 *  - the API (commands and the event socket) needs the per-launch token:
 *    `Authorization: Bearer <token>`, or on the event socket the subprotocol
 *    `netlens.bearer.<token>` (ws-auth.ts). The built page and its assets carry no
 *    secret and need no token; there is no cookie (a cookie is not port-scoped:
 *    Chromium would send it to every other server on 127.0.0.1).
 */
import crypto from 'node:crypto';
import type http from 'node:http';
import { ErrorCodes } from '../errors.js';
import { tokenFromWsProtocols } from './ws-auth.js';

export type Refusal = [status: number, code: string, message: string];

function sameToken(given: string | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

export function createGuard(token: string, port: () => number) {
  const allowedHosts = () => new Set([`127.0.0.1:${port()}`, `localhost:${port()}`]);
  const allowedOrigins = () => new Set([`http://127.0.0.1:${port()}`, `http://localhost:${port()}`]);

  /** Host and Origin checks, for every request (pages, assets, API). */
  function foreign(req: http.IncomingMessage): Refusal | undefined {
    if (!allowedHosts().has(req.headers.host ?? '')) {
      return [403, ErrorCodes.API_FORBIDDEN, 'Unexpected Host header: open the URL that "netlens serve" printed.'];
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins().has(origin)) {
      return [403, ErrorCodes.API_FORBIDDEN, `Cross-origin request from ${origin.slice(0, 200)} refused.`];
    }
    if (req.headers['sec-fetch-site'] === 'cross-site') return [403, ErrorCodes.API_FORBIDDEN, 'Cross-site request refused.'];
    return undefined;
  }

  /** Host, Origin and token, for the API. */
  function api(req: http.IncomingMessage, { socket = false } = {}): Refusal | undefined {
    const refused = foreign(req);
    if (refused) return refused;
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const protocolHeader = req.headers['sec-websocket-protocol'];
    const given = bearer ?? (socket ? tokenFromWsProtocols(typeof protocolHeader === 'string' ? protocolHeader : undefined) : undefined);
    if (!sameToken(given, token)) {
      return [
        401,
        ErrorCodes.API_UNAUTHORIZED,
        given
          ? 'Wrong token: open the URL that "netlens serve" printed for this launch.'
          : 'Token required: open the URL that "netlens serve" printed (it ends in ?token=…).',
      ];
    }
    return undefined;
  }

  return { foreign, api };
}
