/**
 * `--rules FILE` for the commands that run a proxy (proxy, record): loads the rules (a bad
 * file stops the command with NL_RULES_FILE / NL_RULES_INVALID before anything starts),
 * then reloads them whenever the file changes, saying so on stderr. A bad edit keeps the
 * rules in force and prints why.
 */
import { watchRulesFile, type WatchedRules } from '../rules/load-file.js';
import { plural } from './format.js';

/** The --rules lines of a command's help, the description starting at column `col` like the command's other flags. */
export function rulesHelp(col: number): string {
  const pad = ' '.repeat(col);
  return (
    `${'  --rules FILE'.padEnd(col)}mock, rewrite, delay, throttle or break requests by the rules in FILE (docs/rules.md);\n` +
    `${pad}reloaded when FILE changes (a bad edit keeps the old rules and prints the error)`
  );
}

export function rulesFlag(values: Record<string, unknown>, stderr: NodeJS.WritableStream): WatchedRules | undefined {
  const file = values.rules;
  if (typeof file !== 'string' || file === '') return undefined;
  const watched = watchRulesFile(file, (r) => {
    if ('error' in r) {
      const code = (r.error as { code?: string }).code;
      stderr.write(
        `netlens: ${file} changed but was not applied; the previous rules stay in force:\n${r.error.message}${code ? ` [${code}]` : ''}\n`,
      );
    } else stderr.write(`netlens: ${file} reloaded: ${plural(r.rules, 'rule')}\n`);
  });
  stderr.write(`Rules: ${plural(watched.holder.file?.rules.length ?? 0, 'rule')} from ${file} (reloaded when it changes)\n`);
  return watched;
}
