/**
 * Command-line handling shared by the bench and soak scripts: `--help`/`-h`
 * prints the usage and exits 0; an unknown flag or a bad value prints what is
 * wrong plus the usage and exits 2, instead of a parseArgs stack trace.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Prints `usage` and exits 0 when the arguments ask for help. */
export function exitOnHelp(usage: string, argv: string[] = process.argv.slice(2)): void {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(usage.trimEnd() + '\n');
    process.exit(0);
  }
}

/** Prints the problem and the usage to stderr, exit 2 (a usage error, as `netlens` does). */
export function usageError(message: string, usage: string): never {
  process.stderr.write(`${message}\n\n${usage.trimEnd()}\n`);
  process.exit(2);
}

/** parseArgs (strict) with --help and readable errors. */
export function scriptArgs<O extends Options>(usage: string, options: O, maxPositionals = 0, argv: string[] = process.argv.slice(2)) {
  exitOnHelp(usage, argv);
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    return usageError((err as Error).message, usage);
  }
  if (parsed.positionals.length > maxPositionals) usageError(`unexpected argument "${parsed.positionals[maxPositionals]}"`, usage);
  return parsed;
}

/** A whole number within [min, max], or a usage error naming `what`. */
export function intArg(
  raw: string | undefined,
  fallback: number,
  what: string,
  usage: string,
  min = 1,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < min || n > max) {
    usageError(`${what} must be a whole number from ${min} to ${max} (got "${raw}")`, usage);
  }
  return n;
}
