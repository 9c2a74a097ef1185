/**
 * `netlens` entry point: parses the command line, dispatches to one command,
 * and turns errors into clear messages and exit codes (2 = usage, 1 = failure).
 *
 * The caller (bin/netlens.js) sets the app paths first (setAppPaths, re-exported here
 * so a bundle's caller reaches the bundle's own copy of the module).
 */
import { parseArgs } from 'node:util';
import { commands } from './commands/index.js';
import { appPaths } from '../app-paths.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError, type CliCommand } from './command.js';
import { isErrorCode } from '../errors.js';
import { keepWasmOnBaselineTier } from '../upstream/wasm-tiering.js';
import { steadyHeapGrowth } from '../server/heap-growth.js';
import { useFastAsyncBind } from '../upstream/async-bind.js';

export { appPathsFor, setAppPaths } from '../app-paths.js';

function globalHelp(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'netlens — network inspector and network-performance lab',
    '',
    'Usage: netlens <command> [flags]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Global flags:',
    '  -h, --help     show help (also: netlens <command> --help)',
    '  -v, --version  print the version',
    '',
    'Environment: NETLENS_DATA_DIR overrides the data directory (CA, sessions).',
  ].join('\n');
}

/**
 * SIGINT/SIGTERM as a promise, for the commands that stop on them (they read `ctx.stopSignal`). Attached only when a
 * command asks, and detached when it returns: a listener left behind would swallow Ctrl-C in a command that does not
 * wait for it, and every main() call (the CLI tests make many in one process) added two more.
 */
function stopSignal(): { promise: Promise<NodeJS.Signals>; dispose(): void } {
  let onSignal: (sig: NodeJS.Signals) => void = () => {};
  const dispose = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  const promise = new Promise<NodeJS.Signals>((resolve) => {
    onSignal = (sig) => {
      dispose();
      resolve(sig);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  return { promise, dispose };
}

export async function main(argv: string[], io = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  // Before any command can open an upstream connection: ~10 MB less resident memory (wasm-tiering.ts).
  keepWasmOnBaselineTier();
  // HTTP/2 upstream requests without Node 20's costly AsyncResource.bind (async-bind.ts).
  useFastAsyncBind();
  // Large bodies after many small requests without a full collection every few MiB (heap-growth.ts).
  steadyHeapGrowth();
  const [first, ...rest] = argv;
  if (first === undefined || first === '-h' || first === '--help' || first === 'help') {
    io.stdout.write(globalHelp() + '\n');
    return first === undefined ? EXIT_USAGE : EXIT_OK;
  }
  if (first === '-v' || first === '--version') {
    io.stdout.write(`netlens ${appPaths().version}\n`);
    return EXIT_OK;
  }
  const command: CliCommand | undefined = commands.find((c) => c.name === first);
  if (!command) {
    const hint = first.startsWith('-') ? `unknown flag "${first}"` : `unknown command "${first}"`;
    io.stderr.write(`netlens: ${hint}. Run "netlens --help" for the list of commands.\n`);
    return EXIT_USAGE;
  }
  if (rest.includes('-h') || rest.includes('--help')) {
    io.stdout.write(command.help.trimEnd() + '\n');
    return EXIT_OK;
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: rest, options: command.options, allowPositionals: true, strict: true });
    if (parsed.positionals.length > command.maxPositionals) {
      throw new UsageError(
        command.maxPositionals === 0
          ? `"${command.name}" takes no arguments (got "${parsed.positionals[0]}")`
          : `"${command.name}" takes at most ${command.maxPositionals} argument(s)`,
      );
    }
  } catch (err) {
    io.stderr.write(`netlens ${command.name}: ${(err as Error).message}\nRun "netlens ${command.name} --help" for usage.\n`);
    return EXIT_USAGE;
  }
  let stop: ReturnType<typeof stopSignal> | undefined;
  try {
    return await command.run({
      values: parsed.values as Record<string, string | boolean | string[] | boolean[] | undefined>,
      positionals: parsed.positionals,
      stdout: io.stdout,
      stderr: io.stderr,
      env: process.env,
      get stopSignal() {
        return (stop ??= stopSignal()).promise;
      },
    });
  } catch (err) {
    const e = err as Error & { code?: string };
    if (err instanceof UsageError) {
      io.stderr.write(`netlens ${command.name}: ${e.message}\nRun "netlens ${command.name} --help" for usage.\n`);
      return EXIT_USAGE;
    }
    const code = isErrorCode(e.code) ? ` [${e.code}]` : '';
    io.stderr.write(`netlens ${command.name}: ${e.message}${code}\n`);
    if (!code && process.env.NETLENS_DEBUG) io.stderr.write(`${e.stack}\n`);
    return EXIT_FAILED;
  } finally {
    stop?.dispose();
  }
}
