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
          client.on('error', () => client.terminate());
          let unsubscribe = () => {};
          client.on('close', () => {
            unsubscribe();
            sockets.delete(client);
          });
          try {
            unsubscribe = service.subscribe((event) => {
              if (client.readyState !== client.OPEN) return;
              if (client.bufferedAmount > MAX_WS_BUFFERED) {
                client.close(1013, 'client too slow; reload to resync');
                return;
              }
              // Runs inside the service's event loop: an event that cannot be sent must not throw there.
              try {
                client.send(JSON.stringify(event));
              } catch (err) {
                process.emitWarning(`netlens serve: an event could not be sent: ${(err as Error)?.message ?? err}`);
              }
            });
          } catch (err) {
            // The 101 is already on the wire: close the socket as a server error (1011) instead of answering again.
            process.emitWarning(`netlens serve: event subscription failed: ${(err as Error)?.stack ?? err}`);
            client.close(1011, 'Netlens internal error');
          }
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
