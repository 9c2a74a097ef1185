#!/usr/bin/env node
// The CLI runs the TypeScript sources through tsx (esbuild), so `npx netlens`
// works right after `npm ci` with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../proxy/src/cli/main.ts');
const code = await main(process.argv.slice(2));
// Let stdout drain, then exit: a stopped proxy may leave idle keep-alive timers behind.
process.stdout.write('', () => process.exit(code));
