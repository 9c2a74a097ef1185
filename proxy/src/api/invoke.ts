/**
 * The one dispatcher both transports (HTTP in http-transport.ts, Electron IPC in
 * electron/ipc.ts) hand a command to: it checks the name against the contract,
 * checks the argument's shape, calls the service and turns whatever it throws
 * into `{ code, message }`. The transports only carry bytes and decide who may call.
 *
 * The command's own fields are checked by its handler (commands/*.ts), so a direct
 * caller of the service (tests, the CLI) gets the same refusals.
 */
import { COMMAND_NAMES, type CommandName, type NetlensApi } from './contract.js';
import { ErrorCodes, toErrorInfo, type ErrorInfo } from '../errors.js';

export type InvokeReply = { ok: true; result: unknown } | { ok: false; error: ErrorInfo };

const commandSet: ReadonlySet<string> = new Set(COMMAND_NAMES);

/** Whether `name` is a contract command (own commands only: never `constructor`, `__proto__`, `subscribe`). */
export function isCommandName(name: unknown): name is CommandName {
  return typeof name === 'string' && commandSet.has(name);
}

export interface InvokeOptions {
  /** Prefix of the warning written for an internal failure, e.g. "netlens serve". */
  where: string;
  /** Where internal failures (bugs) are reported with their stack; default process.emitWarning. */
  warn?: (message: string) => void;
}

/** Runs one command; never throws. Internal failures are warned about with their stack; the reply carries the message only. */
export async function invoke(service: NetlensApi, name: unknown, args: unknown, options: InvokeOptions): Promise<InvokeReply> {
  if (!isCommandName(name)) {
    return { ok: false, error: { code: ErrorCodes.API_BAD_REQUEST, message: `Unknown command "${String(name).slice(0, 100)}".` } };
  }
  // Every command takes an object or nothing: anything else is refused before the service sees it.
  if (args !== undefined && args !== null && (typeof args !== 'object' || Array.isArray(args))) {
    return { ok: false, error: { code: ErrorCodes.API_BAD_REQUEST, message: `${name}: the argument must be an object` } };
  }
  try {
    const fn = service[name] as (a: unknown) => Promise<unknown>;
    const result = await fn.call(service, args);
    return { ok: true, result: result ?? null };
  } catch (err) {
    const error = toErrorInfo(err);
    if (error.code === ErrorCodes.INTERNAL) {
      (options.warn ?? process.emitWarning)(`${options.where}: ${name} failed: ${(err as Error)?.stack ?? String(err)}`);
    }
    return { ok: false, error };
  }
}
