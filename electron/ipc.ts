/**
 * The ONE place IPC handlers are registered. Every contract command gets a
 * handler that first checks who is calling (our app's top frame only), then
 * calls the core service and answers `{ ok, result }` or `{ ok: false, error }`.
 *
 * Takes `ipcMain` as a parameter (no runtime import of 'electron') so tests
 * drive it with a fake.
 */
import type { IpcMainInvokeEvent } from 'electron';
import { COMMAND_NAMES, type CommandName, type NetlensApi } from '../proxy/src/api/contract.js';
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

function toErrorInfo(err: unknown): { code: string; message: string } {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  const code = typeof e?.code === 'string' && e.code.startsWith('NL_') ? e.code : ErrorCodes.INTERNAL;
  const message = typeof e?.message === 'string' && e.message ? e.message : String(err);
  return { code, message };
}

/**
 * Registers a handler per entry of COMMAND_NAMES and returns a function that
 * removes them all (used on quit and by tests).
 */
export function registerApi(ipcMain: IpcMainLike, service: NetlensApi, isTrusted: (event: SenderLike) => boolean = isTrustedSender): () => void {
  const channels: string[] = [];
  for (const name of COMMAND_NAMES) {
    const channel = commandChannel(name);
    ipcMain.handle(channel, async (event, args): Promise<IpcReply> => {
      if (!isTrusted(event as SenderLike)) {
        return { ok: false, error: { code: ErrorCodes.API_FORBIDDEN, message: `IPC call "${name}" refused: the sender is not the Netlens window.` } };
      }
      try {
        const fn = service[name as CommandName] as (a: unknown) => Promise<unknown>;
        const result = await fn.call(service, args);
        return { ok: true, result: result ?? null };
      } catch (err) {
        const info = toErrorInfo(err);
        if (info.code === ErrorCodes.INTERNAL) process.emitWarning(`Netlens IPC: ${name} failed: ${(err as Error)?.stack ?? err}`);
        return { ok: false, error: info };
      }
    });
    channels.push(channel);
  }
  return () => channels.forEach((c) => ipcMain.removeHandler(c));
}
