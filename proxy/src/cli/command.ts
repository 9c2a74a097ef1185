import type { ParseArgsConfig } from 'node:util';
import { ErrorCodes } from '../errors.js';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export interface CommandContext {
  /** Parsed flags (node:util parseArgs, strict: unknown flags never reach a command). */
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  positionals: string[];
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  /** Resolves when the user asks to stop (SIGINT/SIGTERM). Long-running commands await it. */
  stopSignal: Promise<NodeJS.Signals>;
}

/**
 * One CLI command, one file in cli/commands/. The registry (commands/index.ts)
 * lists them; main.ts parses flags, prints help and maps errors to exit codes.
 */
export interface CliCommand {
  name: string;
  /** One line for `netlens --help`. */
  summary: string;
  /** Full help text for `netlens <name> --help` (usage line, flags, examples). */
  help: string;
  options: OptionSpec;
  /** Max positional arguments (0 = none). Infinity for lists of files. */
  maxPositionals: number;
  /** Returns the exit code. Throw NetlensError for user-facing failures. */
  run(ctx: CommandContext): Promise<number>;
}

/** Exit codes: 0 ok, 1 the job failed (budget exceeded, invalid file…), 2 usage error. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** Reads an integer flag with bounds; throws a usage error naming the flag. */
export function intFlag(values: CommandContext['values'], name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (typeof raw !== 'string' || !/^-?\d+$/.test(raw) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name} must be a whole number between ${min} and ${max} (got "${String(raw)}")`);
  }
  return n;
}

export class UsageError extends Error {
  readonly code = ErrorCodes.USAGE;
}
