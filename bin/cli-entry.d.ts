/** Which CLI entry to run: the bundle when it is at least as new as every source file, else the sources through tsx. */
export function cliEntry(root: string): { kind: 'bundle' | 'source'; file: string };
