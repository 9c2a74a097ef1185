/**
 * Damaged results.json files (issue 15 item 7): whatever a crash, an old
 * version or a hand edit leaves, reading it either fails with
 * NL_LAB_RESULT_INVALID and a reason, or every reader (history entry, terminal
 * table, HTML report, run comparison) copes. The Lab view's model: renderer/src/lib/lab-model.test.ts.
 *   npm test: seed 42, 300 cases. More: NETLENS_FUZZ_RUNS=5000 npx vitest run proxy/test/lab/result-file-fuzz.test.ts
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareRuns, historyEntry } from '../../src/lab/history.js';
import { renderHtmlReport } from '../../src/lab/html-report.js';
import { formatTable } from '../../src/lab/report.js';
import { parseLabResult } from '../../src/lab/result-file.js';
import { apply, damage, good } from './damage.js';

const RUNS = Number(process.env.NETLENS_FUZZ_RUNS ?? 300);
const SEED = Number(process.env.NETLENS_FUZZ_SEED ?? 42);

describe('damaged results.json', () => {
  it(
    `${RUNS} damaged files (seed ${SEED}): a reason, or readers that cope`,
    () => {
      let parsed = 0;
      fc.assert(
        fc.property(damage, (edits) => {
          const text = apply(edits);
          let result;
          try {
            result = parseLabResult(text);
          } catch (err) {
            expect((err as { code?: string }).code).toBe('NL_LAB_RESULT_INVALID');
            return;
          }
          parsed++;
          historyEntry('x', result);
          formatTable(result);
          renderHtmlReport(result);
          try {
            compareRuns({ runId: 'a', result: good }, { runId: 'b', result });
          } catch (err) {
            expect((err as Error).message).toMatch(/different targets/);
          }
        }),
        { seed: SEED, numRuns: RUNS },
      );
      // Some damage is harmless (a number changed): those files must be read, not refused.
      expect(parsed).toBeGreaterThan(0);
    },
    10_000 + RUNS * 25,
  );
});
