/** Flags several commands share: where the data lives and which extra CAs to trust upstream. */
import path from 'node:path';
import { defaultDataDir, RELAY_MODES, type RelayMode } from '../options.js';
import { readCAFile } from '../api/proxy-config.js';
import { UsageError, type CommandContext } from './command.js';

/** `--data-dir DIR`, else $NETLENS_DATA_DIR, else the platform's user data directory. */
export function dataDirFlag(values: CommandContext['values'], env: NodeJS.ProcessEnv): string {
  return values['data-dir'] ? path.resolve(String(values['data-dir'])) : defaultDataDir(env);
}

/**
 * `--upstream-ca FILE` (repeatable): PEM contents. A file that is missing, too large or
 * holds no certificate (a key, say) fails here with NL_UPSTREAM_CA_FILE naming it, the
 * check Settings makes, instead of an obscure TLS error at the first connection.
 */
export function upstreamCAFlag(values: CommandContext['values']): string[] {
  return ((values['upstream-ca'] as string[] | undefined) ?? []).map((file) => readCAFile(path.resolve(file)));
}

/** The one-line warning every command prints when `--insecure` is given (stderr, every time). */
export const INSECURE_WARNING =
  'netlens: warning: --insecure: upstream TLS certificates are not verified, so any server (or an impostor in between) is accepted; ' +
  'for testing only, prefer --upstream-ca FILE';

/** `--insecure`: true after printing INSECURE_WARNING to `stderr`. */
export function insecureFlag(values: CommandContext['values'], stderr: NodeJS.WritableStream): boolean {
  if (!values.insecure) return false;
  stderr.write(INSECURE_WARNING + '\n');
  return true;
}

/** `--relay coalesce|naive` (ProxyOptions.relay); default coalesce. */
export function relayFlag(values: CommandContext['values']): RelayMode {
  const raw = values.relay;
  if (raw === undefined) return 'coalesce';
  if (typeof raw === 'string' && (RELAY_MODES as readonly string[]).includes(raw)) return raw as RelayMode;
  throw new UsageError(`--relay must be one of ${RELAY_MODES.join(', ')} (got "${String(raw)}")`);
}
