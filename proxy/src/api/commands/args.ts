/**
 * Checks shared by the command handlers. Arguments arrive from a transport as
 * untrusted JSON; each way an argument can be wrong gets its own message, which
 * names the command and the field.
 */
import { ErrorCodes, NetlensError } from '../../errors.js';

export type Args = Record<string, unknown>;

/** The error of an argument that is missing or of the wrong shape. */
export function bad(message: string): NetlensError {
  return new NetlensError(ErrorCodes.API_BAD_REQUEST, message);
}

/** The argument object; none at all (undefined, null) reads as `{}`. */
export function obj(args: unknown, command: string): Args {
  if (args === undefined || args === null) return {};
  if (typeof args !== 'object' || Array.isArray(args)) throw bad(`${command}: the argument must be an object`);
  return args as Args;
}

/** A string argument; each way it can be wrong gets its own message (a 100 MiB string is not "empty"). */
export function str(args: Args, key: string, command: string, maxLength = 100_000_000): string {
  const v = args[key];
  if (typeof v !== 'string') {
    const got = v === undefined ? ' (it is missing)' : `, not ${v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v}`;
    throw bad(`${command}: "${key}" must be a string${got}`);
  }
  if (v.length === 0) throw bad(`${command}: "${key}" must not be empty`);
  if (v.length > maxLength) {
    const [got, most] = [v.length.toLocaleString('en-US'), maxLength.toLocaleString('en-US')];
    throw bad(`${command}: "${key}" is too long: ${got} characters, at most ${most}`);
  }
  return v;
}
