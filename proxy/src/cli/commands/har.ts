import { formatIssue } from '../../har/reader.js';
import { scanHarFile } from '../../har/stream-reader.js';
import { EXIT_FAILED, EXIT_OK, UsageError, type CliCommand } from '../command.js';

export const harCommand: CliCommand = {
  name: 'har',
  summary: 'check HAR files: OK, warnings (read anyway) or errors (cannot be opened)',
  help: `Usage: netlens har validate FILE... [--json]

Reads each HAR file as Netlens would open it and prints, per file, OK, the
warnings (deviations from HAR 1.2 that are read anyway, e.g. Chrome's "[::1]"
server address, Firefox's cache objects, a byte-order mark) or the errors (what
makes the file unusable: not JSON, truncated, no log.entries, an entry without
request or response), each with the path of the field.

Exit code: 0 when every file can be opened (warnings allowed), 1 when one cannot.

Flags:
  --json   print one JSON object per file instead of text

Examples:
  netlens har validate session.har
  netlens har validate exports/*.har --json
`,
  options: { json: { type: 'boolean' } },
  maxPositionals: Infinity,
  async run({ values, positionals, stdout }) {
    const [sub, ...files] = positionals;
    if (sub !== 'validate')
      throw new UsageError(
        sub === undefined ? 'missing subcommand: netlens har validate FILE...' : `unknown subcommand "${sub}" (expected "validate")`,
      );
    if (files.length === 0) throw new UsageError('give at least one HAR file: netlens har validate FILE...');
    let failed = false;
    for (const file of files) {
      // Streamed: files of any size are checked in bounded memory.
      const result = await scanHarFile(file);
      const ok = result.log !== undefined;
      if (!ok) failed = true;
      if (values.json) {
        stdout.write(
          JSON.stringify({ file, ok, entries: ok ? result.entries : undefined, warnings: result.warnings, errors: result.errors }) + '\n',
        );
        continue;
      }
      const w = result.warnings.reduce((n, i) => n + i.count, 0);
      const status = ok
        ? `OK, ${result.entries} entr${result.entries === 1 ? 'y' : 'ies'}${w ? `, ${w} warning${w > 1 ? 's' : ''}` : ''}`
        : 'cannot be opened';
      stdout.write(`${file}: ${status}\n`);
      for (const e of result.errors) stdout.write(`  ${formatIssue('error', e)}\n`);
      for (const e of result.warnings) stdout.write(`  ${formatIssue('warning', e)}\n`);
    }
    return failed ? EXIT_FAILED : EXIT_OK;
  },
};
