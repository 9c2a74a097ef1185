#!/usr/bin/env node
// The CLI runs from dist/cli/main.mjs when `npm run build` made it and it is
// current; otherwise from the TypeScript sources through tsx, so `npx netlens`
// works right after `npm ci` with no build step (see cli-entry.js).
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cliEntry } from './cli-entry.js';

const entry = cliEntry(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'));
if (entry.kind === 'source') {
  const { register } = await import('tsx/esm/api');
  register();
}
const { main } = await import(pathToFileURL(entry.file).href);
const code = await main(process.argv.slice(2));
// Let stdout drain, then exit: a stopped proxy may leave idle keep-alive timers behind.
process.stdout.write('', () => process.exit(code));
