/**
 * Property-based fuzzing of the proxy (issue 13): mostly-valid requests, corrupted and
 * split across writes, on the plain listener and inside an intercepted CONNECT tunnel,
 * against the proxy run as a child process. Fixed seed; NETLENS_FUZZ_RUNS (default
 * 2,000 per path) and NETLENS_FUZZ_SEED for more (`node scripts/fuzz.mjs --runs 10000`).
 * Each batch checks that the process is alive; every few batches and at the end a
 * normal request must still work; no connection may hang 5 s after the client's FIN;
 * no desync. The score is written to test-results/fuzz-<path>.json.
 */
import fs from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuzzCase } from './fuzz-gen.js';
import { Fuzzer } from './fuzz-run.js';

const RUNS = Number(process.env.NETLENS_FUZZ_RUNS ?? 2000);
const SEED = Number(process.env.NETLENS_FUZZ_SEED ?? 42);
const PATHS = (process.env.NETLENS_FUZZ_PATHS ?? 'plain,tunnel').split(',') as ('plain' | 'tunnel')[];
/**
 * Cases run at once (one connection each; the checks run per batch). Fewer inside tunnels,
 * where every case is also a CONNECT and a TLS handshake: more would only delay answers.
 */
const BATCH = { plain: 200, tunnel: 100 };

describe('proxy fuzzing (fast-check)', () => {
  for (const path of PATHS) {
    // One path at a time: both at once load the test process (clients, origins, TLS) enough to delay answers.
    it(
      `${path}: ${RUNS} fuzzed requests, seed ${SEED}: 0 crashes, 0 hung connections, 0 desyncs`,
      async () => {
        const fuzzer = await Fuzzer.start(path);
        const started = Date.now();
        try {
          let batches = 0;
          await fc.assert(
            fc.asyncProperty(fc.array(fuzzCase, { minLength: BATCH[path], maxLength: BATCH[path] }), async (batch) => {
              await fuzzer.runBatch(batch);
              if (++batches % 10 === 0) await fuzzer.normalRequestWorks();
            }),
            { seed: SEED, numRuns: Math.ceil(RUNS / BATCH[path]) },
          );
          expect(fuzzer.alive()).toBe(true);
          expect(await fuzzer.normalRequestWorks()).toBe(true);
        } finally {
          const s = fuzzer.score;
          const summary = {
            path,
            seed: SEED,
            runs: RUNS,
            seconds: Math.round((Date.now() - started) / 1000),
            proxyStalls: fuzzer.stalls(),
            ...s,
          };
          fs.mkdirSync('test-results', { recursive: true });
          fs.writeFileSync(`test-results/fuzz-${path}.json`, JSON.stringify(summary, null, 1));
          console.log(
            `[fuzz ${path}] ${s.cases} cases in ${summary.seconds} s: ${s.crashes.length} crashes, ${s.hung.length} hung, ${s.desyncs.length} desyncs, ` +
              `normal request failed ${s.brokenAfter}x; ${s.late} late (proxy event loop stalled ${summary.proxyStalls}x); ` +
              `origin received ${s.forwarded}; answers ${JSON.stringify(s.answers)}`,
          );
          await fuzzer.stop();
        }
        expect(fuzzer.score.crashes).toEqual([]);
        expect(fuzzer.score.hung).toEqual([]);
        expect(fuzzer.score.desyncs).toEqual([]);
        expect(fuzzer.score.brokenAfter).toBe(0);
        expect(fuzzer.score.cases).toBeGreaterThanOrEqual(RUNS);
      },
      Math.max(600_000, RUNS * 120),
    );
  }
});
