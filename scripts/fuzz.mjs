#!/usr/bin/env node
// On-demand fuzzing of the proxy (issue 13): `node scripts/fuzz.mjs --runs 10000 [--seed N] [--paths plain,tunnel]`.
// Runs proxy/test/reliability/proxy-fuzz.test.ts with NETLENS_FUZZ_RUNS / _SEED / _PATHS and
// prints each path's score (test-results/fuzz-<path>.json). `--corpus` also runs the smuggling corpus.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10000' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    paths: { type: 'string', default: 'plain,tunnel' },
    corpus: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log('Usage: node scripts/fuzz.mjs [--runs N (10000)] [--seed N (random)] [--paths plain,tunnel] [--corpus]');
  process.exit(0);
}
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`--runs must be a positive integer (got "${values.runs}")`);
  process.exit(2);
}
const paths = values.paths.split(',');
for (const p of paths) rmSync(`test-results/fuzz-${p}.json`, { force: true });
const vitest = new URL('../node_modules/.bin/vitest', import.meta.url).pathname;
const files = ['proxy/test/reliability/proxy-fuzz.test.ts', ...(values.corpus ? ['proxy/test/reliability/smuggling-corpus.test.ts'] : [])];
console.log(`fuzzing ${paths.join(' and ')}: ${runs} cases per path, seed ${values.seed}`);
const status = spawnSync(vitest, ['run', ...files], {
  stdio: 'inherit',
  env: { ...process.env, NETLENS_FUZZ_RUNS: String(runs), NETLENS_FUZZ_SEED: values.seed, NETLENS_FUZZ_PATHS: paths.join(',') },
}).status;
for (const p of paths) {
  const file = `test-results/fuzz-${p}.json`;
  if (!existsSync(file)) {
    console.log(`${p}: no score written (the run did not finish)`);
    continue;
  }
  const s = JSON.parse(readFileSync(file, 'utf8'));
  console.log(
    `${p}: ${s.cases} cases in ${s.seconds} s (seed ${s.seed}): ${s.crashes.length} crashes, ${s.hung.length} hung, ${s.desyncs.length} desyncs; ` +
      `normal request failed ${s.brokenAfter}x; ${s.late} answers cut by our own FIN (proxy stalled ${s.proxyStalls}x)`,
  );
}
process.exit(status ?? 1);
