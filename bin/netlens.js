#!/usr/bin/env node
// The CLI runs from dist/cli/main.mjs when `npm run build` made it and it is
// current; otherwise from the TypeScript sources through tsx, so `npx netlens`
// works right after `npm ci` with no build step (see cli-entry.js).
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cliEntry } from './cli-entry.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entry = cliEntry(root);
if (entry.kind === 'source') {
  const { register } = await import('tsx/esm/api');
  register();
}
const cli = await import(pathToFileURL(entry.file).href);
// The one place the CLI learns where its files are (package.json, dist/renderer, the lab's
// child entries): a bundle's children are built next to it, the sources' run under tsx.
cli.setAppPaths(cli.appPathsFor({ root, bundleDir: entry.kind === 'bundle' ? path.dirname(entry.file) : undefined }));
const code = await cli.main(process.argv.slice(2));
// Let stdout drain, then exit: a stopped proxy may leave idle keep-alive timers behind.
process.stdout.write('', () => process.exit(code));
