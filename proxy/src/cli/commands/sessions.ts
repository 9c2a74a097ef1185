import path from 'node:path';
import { defaultDataDir } from '../../options.js';
import { formatIssue } from '../../har/reader.js';
import { SessionStore } from '../../sessions/store.js';
import { EXIT_OK, UsageError, type CliCommand } from '../command.js';
import { plural } from '../format.js';

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export const sessionsCommand: CliCommand = {
  name: 'sessions',
  summary: 'list, import, export and delete saved sessions (HAR files in the data directory)',
  help: `Usage: netlens sessions <list|import|export|rm> [args] [flags]

  netlens sessions list                  sessions, newest first (recovers interrupted recordings first)
  netlens sessions import FILE [--name N] import a HAR file (refused, with the bad field named, if it cannot be used)
  netlens sessions export SESSION FILE   write a session's HAR to FILE (SESSION: id or name)
  netlens sessions rename SESSION NAME   rename a session
  netlens sessions rm SESSION...         delete sessions

Flags:
  --data-dir DIR  data directory (default: $NETLENS_DATA_DIR or ~/.local/share/netlens)
  --name N        session name for import (default: the file name)

Session names are unique: importing a second "page" names it "page (2)"
(the import says so), and renaming to a name in use is refused.
  --json          list: print JSON
`,
  options: { 'data-dir': { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean' } },
  maxPositionals: Infinity,
  async run({ values, positionals, stdout, stderr, env }) {
    const dataDir = values['data-dir'] ? path.resolve(String(values['data-dir'])) : defaultDataDir(env);
    const store = new SessionStore(dataDir);
    const [sub, ...args] = positionals;
    const need = (n: number, usage: string) => {
      if (args.length !== n) throw new UsageError(`usage: netlens sessions ${usage}`);
    };
    switch (sub) {
      case 'list': {
        need(0, 'list');
        const recovered = await store.recover();
        for (const r of recovered)
          stderr.write(`recovered interrupted recording "${r.name}" (${plural(r.entryCount, 'entry', 'entries')})\n`);
        const sessions = await store.list();
        if (values.json) {
          stdout.write(JSON.stringify(sessions, null, 2) + '\n');
          return EXIT_OK;
        }
        if (sessions.length === 0) {
          stdout.write(`no sessions in ${store.dir}\n`);
          return EXIT_OK;
        }
        for (const s of sessions) {
          const state = s.state === 'recording' ? ' [recording]' : '';
          stdout.write(
            `${s.id}  ${s.createdAt.slice(0, 19).replace('T', ' ')}  ${String(s.entryCount).padStart(6)} ${s.entryCount === 1 ? 'entry  ' : 'entries'}  ${size(s.sizeBytes).padStart(9)}  ${s.source.padEnd(7)} ${s.name}${state}\n`,
          );
        }
        return EXIT_OK;
      }
      case 'import': {
        need(1, 'import FILE [--name NAME]');
        const { info, warnings, requestedName } = await store.importFile(args[0], { name: values.name as string | undefined });
        stdout.write(`imported ${plural(info.entryCount, 'entry', 'entries')} as "${info.name}" (${info.id})\n`);
        if (requestedName)
          stdout.write(`  a session was already named "${requestedName}": session names are unique, so this one is "${info.name}"\n`);
        for (const w of warnings) stderr.write(`  ${formatIssue('warning', w)}\n`);
        return EXIT_OK;
      }
      case 'export': {
        need(2, 'export SESSION FILE');
        const r = await store.exportTo(args[0], args[1]);
        stdout.write(`wrote ${plural(r.entries, 'entry', 'entries')} (${size(r.bytes)}) to ${args[1]}\n`);
        return EXIT_OK;
      }
      case 'rename': {
        need(2, 'rename SESSION NAME');
        const info = await store.rename(args[0], args[1]);
        stdout.write(`renamed ${info.id} to "${info.name}"\n`);
        return EXIT_OK;
      }
      case 'rm': {
        if (args.length === 0) throw new UsageError('usage: netlens sessions rm SESSION...');
        for (const id of args) {
          const info = await store.get(id);
          await store.delete(info.id);
          stdout.write(`deleted "${info.name}" (${info.id})\n`);
        }
        return EXIT_OK;
      }
      default:
        throw new UsageError(
          sub === undefined
            ? 'missing subcommand (list, import, export, rename, rm)'
            : `unknown subcommand "${sub}" (expected list, import, export, rename or rm)`,
        );
    }
  },
};
