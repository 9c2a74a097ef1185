/** Flags several commands share: where the data lives and which extra CAs to trust upstream. */
import fs from 'node:fs';
import path from 'node:path';
import { defaultDataDir } from '../options.js';
import { UsageError, type CommandContext } from './command.js';

/** `--data-dir DIR`, else $NETLENS_DATA_DIR, else the platform's user data directory. */
export function dataDirFlag(values: CommandContext['values'], env: NodeJS.ProcessEnv): string {
  return values['data-dir'] ? path.resolve(String(values['data-dir'])) : defaultDataDir(env);
}

/** `--upstream-ca FILE` (repeatable): PEM contents, with a usage error naming an unreadable file. */
export function upstreamCAFlag(values: CommandContext['values']): string[] {
  return ((values['upstream-ca'] as string[] | undefined) ?? []).map((file) => {
    try {
      return fs.readFileSync(file, 'utf8');
    } catch (err) {
      throw new UsageError(`--upstream-ca: cannot read "${file}" (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  });
}
