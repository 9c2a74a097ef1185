/**
 * What the preload exposes as `window.netlens`: exactly the contract's
 * commands (generated from COMMAND_NAMES) plus `subscribe`, nothing else.
 *
 * Built from an `ipcRenderer`-like object passed in, so it is tested without
 * Electron and the page never gets `ipcRenderer` itself. Failures reject with a
 * plain `{ code, message }` object: contextBridge copies plain objects whole,
 * whereas an Error crossing the bridge loses its `code`.
 */
import { COMMAND_NAMES, type NetlensApi, type NetlensEvent, type NetlensEventListener } from '../proxy/src/api/contract.js';
import { ErrorCodes } from '../proxy/src/errors.js';
import { commandChannel, EVENT_CHANNEL, type IpcReply } from './channels.js';

export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

export function buildBridge(ipc: IpcRendererLike): NetlensApi {
  const listeners = new Set<NetlensEventListener>();
  // One IPC listener for all subscribers, attached only while someone listens.
  const onEvent = (_event: unknown, payload: unknown) => {
    for (const l of listeners) {
      try {
        l(payload as NetlensEvent);
      } catch (err) {
        console.error('Netlens event listener failed', err);
      }
    }
  };

  const api: Record<string, unknown> = {};
  for (const name of COMMAND_NAMES) {
    api[name] = async (args?: unknown) => {
      let reply: IpcReply;
      try {
        reply = (await ipc.invoke(commandChannel(name), args)) as IpcReply;
      } catch (err) {
        throw { code: ErrorCodes.API_UNREACHABLE, message: `The Netlens core did not answer "${name}": ${(err as Error)?.message ?? err}` };
      }
      if (!reply || typeof reply !== 'object') throw { code: ErrorCodes.API_BAD_RESPONSE, message: `Unexpected answer to "${name}".` };
      if (reply.ok) return reply.result;
      throw { code: reply.error.code, message: reply.error.message };
    };
  }
  api.subscribe = (listener: NetlensEventListener) => {
    if (typeof listener !== 'function') throw { code: ErrorCodes.API_BAD_REQUEST, message: 'subscribe needs a function' };
    if (listeners.size === 0) ipc.on(EVENT_CHANNEL, onEvent);
    listeners.add(listener);
    return () => {
      if (listeners.delete(listener) && listeners.size === 0) ipc.removeListener(EVENT_CHANNEL, onEvent);
    };
  };
  return Object.freeze(api) as unknown as NetlensApi;
}
