/**
 * The ONLY file that knows how the renderer reaches the core.
 *
 *  - In Electron the preload script exposes the contract as `window.netlens`.
 *  - In a browser (`netlens serve`), commands are POST /api/<name> with the
 *    per-launch token as `Authorization: Bearer`, and events come over a
 *    WebSocket that offers the token as a subprotocol (ws-auth.ts).
 *
 * The token arrives once in the address (`?token=…`). It is kept in
 * sessionStorage (scoped to this scheme+host+port and this tab) and removed
 * from the address before anything renders, so it is never in history, in a
 * bookmark, or in a cookie that Chromium would send to other ports of 127.0.0.1.
 *
 * Components import `api` and the contract's types; never fetch or WebSocket.
 */
import { wsProtocols } from '../../proxy/src/api/ws-auth';
import { errorCodeOf, ErrorCodes, toErrorInfo } from '../../proxy/src/errors';
import { takePageToken } from './lib/page-token';
import {
  COMMAND_NAMES,
  type ApiErrorInfo,
  type CommandName,
  type NetlensApi,
  type NetlensEvent,
  type NetlensEventListener,
} from '../../proxy/src/api/contract';

declare global {
  interface Window {
    netlens?: NetlensApi;
  }
}

/** A failed command, with the core's stable code and user-facing message. */
export class ApiError extends Error implements ApiErrorInfo {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export type ConnectionState = 'connecting' | 'open' | 'closed';

function httpApi(origin: string, token: string): NetlensApi & { onConnection(cb: (s: ConnectionState) => void): () => void } {
  const listeners = new Set<NetlensEventListener>();
  const connListeners = new Set<(s: ConnectionState) => void>();
  let ws: WebSocket | undefined;
  let retry = 0;
  let state: ConnectionState = 'closed';
  const setState = (s: ConnectionState) => {
    state = s;
    connListeners.forEach((cb) => cb(s));
  };

  const connect = () => {
    if (ws || listeners.size === 0) return;
    setState('connecting');
    const sock = new WebSocket(`${origin.replace(/^http/, 'ws')}/api/events`, wsProtocols(token));
    ws = sock;
    sock.onopen = () => {
      retry = 0;
      setState('open');
    };
    sock.onmessage = (m) => {
      let event: NetlensEvent;
      try {
        event = JSON.parse(String(m.data)) as NetlensEvent;
      } catch {
        return;
      }
      listeners.forEach((l) => l(event));
    };
    sock.onclose = () => {
      ws = undefined;
      setState('closed');
      // Reconnect with backoff (the core may be restarting); stop when nobody listens.
      if (listeners.size > 0) setTimeout(connect, Math.min(5000, 250 * 2 ** retry++));
    };
  };

  const call = async (name: CommandName, args: unknown): Promise<unknown> => {
    let res: Response;
    try {
      res = await fetch(`${origin}/api/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: args === undefined ? '' : JSON.stringify(args),
      });
    } catch (err) {
      throw new ApiError(
        ErrorCodes.API_UNREACHABLE,
        `Netlens is not reachable (${(err as Error).message}). Is "netlens serve" still running?`,
      );
    }
    let body: { ok: boolean; result?: unknown; error?: ApiErrorInfo };
    try {
      body = await res.json();
    } catch {
      throw new ApiError(ErrorCodes.API_BAD_RESPONSE, `Unexpected answer from Netlens (HTTP ${res.status}).`);
    }
    if (!body.ok) throw new ApiError(errorCodeOf(body.error), body.error?.message ?? `HTTP ${res.status}`);
    return body.result;
  };

  const api = {
    subscribe(listener: NetlensEventListener) {
      listeners.add(listener);
      connect();
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) ws?.close();
      };
    },
    onConnection(cb: (s: ConnectionState) => void) {
      connListeners.add(cb);
      cb(state);
      return () => connListeners.delete(cb);
    },
  } as Record<string, unknown>;
  for (const name of COMMAND_NAMES) api[name] = (args: unknown) => call(name, args);
  return api as unknown as NetlensApi & { onConnection(cb: (s: ConnectionState) => void): () => void };
}

function ipcApi(bridge: NetlensApi): NetlensApi & { onConnection(cb: (s: ConnectionState) => void): () => void } {
  // IPC errors arrive as plain Errors whose message may carry the code; keep the shape uniform.
  const api = {
    subscribe: (l: NetlensEventListener) => bridge.subscribe(l),
    onConnection: (cb: (s: ConnectionState) => void) => (cb('open'), () => undefined),
  } as Record<string, unknown>;
  for (const name of COMMAND_NAMES) {
    api[name] = async (args: unknown) => {
      try {
        return await (bridge[name] as (a: unknown) => Promise<unknown>)(args);
      } catch (err) {
        const info = toErrorInfo(err);
        throw new ApiError(info.code, info.message);
      }
    };
  }
  return api as unknown as NetlensApi & { onConnection(cb: (s: ConnectionState) => void): () => void };
}

/** Set when the page has no token: main.tsx shows how to get one instead of the app. */
export let missingToken = false;

function sessionStorageOrNone(): Storage | undefined {
  try {
    return window.sessionStorage;
  } catch {
    return undefined; // storage disabled by the browser's settings
  }
}

function createApi() {
  if (typeof window !== 'undefined' && window.netlens) return ipcApi(window.netlens);
  const token = takePageToken(location, sessionStorageOrNone(), history);
  missingToken = !token;
  return httpApi(location.origin, token ?? '');
}

export const api = createApi();

/** The message to show for any error a command threw. */
export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) return `${err.message} [${err.code}]`;
  return (err as Error)?.message ?? String(err);
}
