/** fast-check damage to a good results.json: up to 4 values replaced by junk or deleted. No Node imports (renderer tests use it). */
import fc from 'fast-check';
import { fakeResult, WALKTHROUGH } from './fake-result.js';

/** Every path to a value in a JSON tree. */
function paths(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) paths(x, [...at, k], out);
  return out;
}

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

/**
 * Damage to `source`: `damage` draws up to 4 edits (a value replaced by junk or deleted), `apply` makes them on a copy.
 * `only`: damage only the values at the paths it accepts (e.g. inside `cells[].stalls`).
 */
export function damageOf(source: unknown, only: (path: (string | number)[]) => boolean = () => true) {
  const all = paths(source).filter((p) => p.length > 0 && only(p));
  const damage = fc.array(fc.tuple(fc.integer({ min: 0, max: all.length - 1 }), junk, fc.boolean()), { minLength: 1, maxLength: 4 });
  const apply = (edits: [number, unknown, boolean][]): string => applyEdits(source, all, edits);
  return { damage, apply };
}

export const good = fakeResult(WALKTHROUGH);
/** Damage to the walkthrough's results. */
export const { damage, apply } = damageOf(good);

function applyEdits(source: unknown, all: (string | number)[][], edits: [number, unknown, boolean][]): string {
  const doc = JSON.parse(JSON.stringify(source));
  for (const [i, value, del] of edits) {
    const p = all[i]!;
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
