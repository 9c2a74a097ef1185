#!/usr/bin/env node
// `npm test`: type-check, lint, format check, unit + integration tests (vitest, real sockets on
// 127.0.0.1), then end-to-end tests (Playwright driving Debian's Chromium
// against `netlens serve`). Prints one closing line "N passed, N failed, N skipped".
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { handleArgs } from './usage.mjs';

handleArgs(
  `Usage: npm test [-- --no-e2e]   (or: node scripts/test.js [--no-e2e])

Type-checks (tsc), lints (eslint) and checks formatting (prettier), runs the
unit and integration tests (vitest, real sockets on
127.0.0.1), then the end-to-end tests (Playwright with Debian's Chromium against
"netlens serve"; run "npm run build" first). Ends with "N passed, N failed, N skipped".

Flags:
  --no-e2e     skip the end-to-end tests
  -h, --help   this help

One file: npx vitest run path/to/file.test.ts; e2e only: npm run test:e2e
`,
  ['--no-e2e'],
);

const bin = (name) => new URL(`../node_modules/.bin/${name}`, import.meta.url).pathname;
mkdirSync('test-results', { recursive: true });
const run = (cmd, args, env = {}) => spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } }).status ?? 1;

const totals = { passed: 0, failed: 0, skipped: 0 };
let failedStep = '';

console.log('\n== type-check (tsc) ==');
if (run(bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']) !== 0) failedStep ||= 'type-check';
if (existsSync('renderer/tsconfig.json') && run(bin('tsc'), ['-p', 'renderer/tsconfig.json', '--noEmit']) !== 0)
  failedStep ||= 'type-check (renderer)';

// Lint (eslint: typescript-eslint, no import cycles, the layer order of docs/architecture.md) and
// the format check (prettier --check): a finding fails `npm test` and names the step.
console.log('\n== lint (eslint) ==');
if (run(bin('eslint'), ['.']) !== 0) failedStep ||= 'lint (eslint; npm run lint)';
console.log('\n== format check (prettier) ==');
if (run(bin('prettier'), ['--check', '.']) !== 0) failedStep ||= 'format check (prettier; npm run format, then review and commit)';

console.log('\n== unit and integration tests (vitest) ==');
const vitestStatus = run(bin('vitest'), ['run', '--reporter=default', '--reporter=json', '--outputFile.json=test-results/vitest.json']);
try {
  const r = JSON.parse(readFileSync('test-results/vitest.json', 'utf8'));
  totals.passed += r.numPassedTests;
  totals.failed += r.numFailedTests;
  totals.skipped += r.numPendingTests + (r.numTodoTests ?? 0);
} catch {
  totals.failed += 1;
}
if (vitestStatus !== 0) failedStep ||= 'vitest';

if (!process.argv.includes('--no-e2e')) {
  console.log('\n== end-to-end tests (Playwright + Chromium) ==');
  // Outside Playwright's outputDir (it empties that at start); absolute, because a
  // relative name is resolved against the config's folder.
  const e2eJson = resolve('e2e-results.json');
  const e2eStatus = run(bin('playwright'), ['test', '-c', 'e2e/playwright.config.ts', '--reporter=list,json'], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: e2eJson,
  });
  try {
    const r = JSON.parse(readFileSync(e2eJson, 'utf8'));
    totals.passed += r.stats.expected + (r.stats.flaky ?? 0);
    totals.failed += r.stats.unexpected;
    totals.skipped += r.stats.skipped;
  } catch {
    totals.failed += 1;
  }
  if (e2eStatus !== 0) failedStep ||= 'e2e';
}

console.log(`\n${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
if (failedStep) console.log(`first failing step: ${failedStep}`);
process.exit(failedStep || totals.failed ? 1 : 0);
