/**
 * `--help` for the npm scripts under scripts/: prints the usage and exits 0;
 * a flag the script does not take prints what is wrong plus the usage and
 * exits 2 (a usage error), instead of being ignored or ending in a stack trace.
 */
export function handleArgs(usage, known = [], argv = process.argv.slice(2)) {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(usage.trimEnd() + '\n');
    process.exit(0);
  }
  const unknown = argv.filter((a) => !known.includes(a));
  if (unknown.length) {
    process.stderr.write(`unexpected argument${unknown.length === 1 ? '' : 's'}: ${unknown.join(' ')}\n\n${usage.trimEnd()}\n`);
    process.exit(2);
  }
}
