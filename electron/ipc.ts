/**
 * The ONE place IPC handlers are registered. Every contract command gets a
 * handler that first checks who is calling (our app's top frame only), then
 * hands the command to the shared dispatcher (proxy/src/api/invoke.ts), which
 * answers `{ ok, result }` or `{ ok: false, error }`.
 *
 * Takes `ipcMain` as a parameter (no runtime import of 'electron') so tests
 * drive it with a fake.
 */
import type { IpcMainInvokeEvent } from 'electron';
import { COMMAND_NAMES, type NetlensApi } from '../proxy/src/api/contract.js';
import { invoke } from '../proxy/src/api/invoke.js';
import { ErrorCodes } from '../proxy/src/errors.js';
import { commandChannel, type IpcReply } from './channels.js';
import { isAppUrl } from './window.js';

export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcMainInvokeEvent, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
}

/** The part of an invoke event sender validation looks at. */
export interface SenderLike {
  senderFrame?: { url: string; parent: unknown } | null;
}

/** Only the top frame of a page served from our own `netlens://app` origin may call the core. */
export function isTrustedSender(event: SenderLike): boolean {
  const frame = event.senderFrame;
  if (!frame) return false; // frame already navigated away or destroyed
  if (frame.parent) return false; // no subframes (none exist; any would be foreign)
  return isAppUrl(frame.url);
}

/**
 * Registers a handler per entry of COMMAND_NAMES and returns a function that
 * removes them all (used on quit and by tests).
 */
export function registerApi(
  ipcMain: IpcMainLike,
  service: NetlensApi,
  isTrusted: (event: SenderLike) => boolean = isTrustedSender,
): () => void {
  const channels: string[] = [];
  for (const name of COMMAND_NAMES) {
    const channel = commandChannel(name);
    ipcMain.handle(channel, async (event, args): Promise<IpcReply> => {
      if (!isTrusted(event as SenderLike)) {
        return {
          ok: false,
          error: { code: ErrorCodes.API_FORBIDDEN, message: `IPC call "${name}" refused: the sender is not the Netlens window.` },
        };
      }
      return invoke(service, name, args, { where: 'Netlens IPC' });
    });
    channels.push(channel);
  }
  return () => channels.forEach((c) => ipcMain.removeHandler(c));
}
