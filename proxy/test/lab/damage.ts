/** fast-check damage to a good results.json: up to 4 values replaced by junk or deleted. No Node imports (renderer tests use it). */
import fc from 'fast-check';
import { fakeResult, WALKTHROUGH } from './fake-result.js';

export const good = fakeResult(WALKTHROUGH);

/** Every path to a value in a JSON tree. */
function paths(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) paths(x, [...at, k], out);
  return out;
}
const ALL = paths(good).filter((p) => p.length > 0);

const junk = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 5 }),
  fc.constant([]),
  fc.constant({}),
  fc.boolean(),
);

/** Up to 4 edits: a value replaced by junk or deleted. */
export const damage = fc.array(fc.tuple(fc.integer({ min: 0, max: ALL.length - 1 }), junk, fc.boolean()), { minLength: 1, maxLength: 4 });

export function apply(edits: [number, unknown, boolean][]): string {
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
