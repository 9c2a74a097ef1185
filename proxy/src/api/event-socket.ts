/**
 * The event WebSocket of `netlens serve` (GET /api/events): one JSON
 * `NetlensEvent` per message. A slow client is dropped rather than buffered
 * without bound; a refused or failed upgrade never throws.
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import { lazyRequire } from '../lazy-require.js';
import type { NetlensApi } from './contract.js';
import { sendRaw } from './http-replies.js';
import { WS_PROTOCOL } from './ws-auth.js';

const ws = lazyRequire<typeof import('ws')>('ws');

/** A slow WebSocket client is dropped rather than buffering events without bound. */
const MAX_WS_BUFFERED = 64 * 1024 * 1024;
/** The page sends nothing; a peer that does gets cut at this size. */
const MAX_WS_PAYLOAD = 64 * 1024;

export interface EventSockets {
  upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): void;
}

export function eventSockets(service: NetlensApi): EventSockets {
  let wss: WebSocketServer | undefined;
  const sockets = new Set<WebSocket>();
  const server = () =>
    (wss ??= new (ws().WebSocketServer)({
      noServer: true,
      maxPayload: MAX_WS_PAYLOAD,
      // Select `netlens` when offered (a browser page, which also offers its token); never echo the token.
      handleProtocols: (offered) => (offered.has(WS_PROTOCOL) ? WS_PROTOCOL : false),
    }));

  return {
    upgrade(req, socket, head) {
      try {
        server().handleUpgrade(req, socket, head, (client) => {
          sockets.add(client);
          const unsubscribe = service.subscribe((event) => {
            if (client.readyState !== client.OPEN) return;
            if (client.bufferedAmount > MAX_WS_BUFFERED) {
              client.close(1013, 'client too slow; reload to resync');
              return;
            }
            client.send(JSON.stringify(event));
          });
          client.on('close', () => {
            unsubscribe();
            sockets.delete(client);
          });
          client.on('error', () => client.terminate());
        });
      } catch (err) {
        // ws validates the handshake and answers 400 itself; this is for what it did not foresee.
        process.emitWarning(`netlens serve: WebSocket upgrade failed: ${(err as Error)?.stack ?? err}`);
        sendRaw(socket, 500, 'Netlens internal error');
      }
    },
    close() {
      for (const s of sockets) s.terminate();
      wss?.close();
    },
  };
}
