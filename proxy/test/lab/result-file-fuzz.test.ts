/**
 * Damaged results.json files (issue 15 item 7): whatever a crash, an old
 * version or a hand edit leaves, reading it either fails with
 * NL_LAB_RESULT_INVALID and a reason, or every reader (history entry, terminal
 * table, HTML report, run comparison, the Lab view's table model) copes.
 *   npm test: seed 42, 300 cases. More: NETLENS_FUZZ_RUNS=5000 npx vitest run proxy/test/lab/result-file-fuzz.test.ts
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareRuns, historyEntry } from '../../src/lab/history.js';
import { renderHtmlReport } from '../../src/lab/html-report.js';
import { formatTable } from '../../src/lab/report.js';
import { parseLabResult } from '../../src/lab/result-file.js';
import { labTableRows } from '../../../renderer/src/lib/lab-model.js';
import { fakeResult, WALKTHROUGH } from './fake-result.js';

const RUNS = Number(process.env.NETLENS_FUZZ_RUNS ?? 300);
const SEED = Number(process.env.NETLENS_FUZZ_SEED ?? 42);
const good = fakeResult(WALKTHROUGH);

/** Every path to a value in a JSON tree. */
function paths(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) paths(x, [...at, k], out);
  return out;
}
const ALL = paths(good).filter((p) => p.length > 0);

const junk = fc.oneof(fc.constant(null), fc.constant(undefined), fc.integer(), fc.double(), fc.string({ maxLength: 5 }), fc.constant([]), fc.constant({}), fc.boolean());

/** Up to 4 edits: a value replaced by junk or deleted. */
const damage = fc.array(fc.tuple(fc.integer({ min: 0, max: ALL.length - 1 }), junk, fc.boolean()), { minLength: 1, maxLength: 4 });

function apply(edits: [number, unknown, boolean][]): string {
  const doc = JSON.parse(JSON.stringify(good));
  for (const [i, value, del] of edits) {
    const p = ALL[i]!;
    let parent = doc;
    for (const k of p.slice(0, -1)) {
      if (parent === null || typeof parent !== 'object') break;
      parent = parent[k];
    }
    if (parent === null || typeof parent !== 'object') continue;
    const last = p[p.length - 1]!;
    if (del) delete parent[last];
    else parent[last] = value;
  }
  return JSON.stringify(doc);
}

describe('damaged results.json', () => {
  it(`${RUNS} damaged files (seed ${SEED}): a reason, or readers that cope`, () => {
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
        labTableRows(result);
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
  }, 10_000 + RUNS * 25);
});
