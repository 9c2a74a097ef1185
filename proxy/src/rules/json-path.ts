/**
 * The JSONPath subset body matchers use: `$` then `.name`, `['name']` / `["name"]`, `[3]`
 * (array index, negative from the end) and `.*` / `[*]` (every member). Compiled once per
 * rules set into a list of steps; evaluating is a walk, no parsing per request.
 */
export type JsonStep = { key: string } | { index: number } | { any: true };

const NAME = /^[A-Za-z_$][\w$-]*/;

/** The steps of `path`, or throws an Error whose message says what is wrong and where. */
export function compileJsonPath(path: string): JsonStep[] {
  if (!path.startsWith('$')) throw new Error('must start with $ (e.g. "$.user.id")');
  const steps: JsonStep[] = [];
  let i = 1;
  const fail = (what: string): never => {
    throw new Error(`${what} at character ${i + 1} of "${path}"; use $.name, $['name'], $[0] or $[*]`);
  };
  while (i < path.length) {
    const c = path[i];
    if (c === '.') {
      i++;
      if (path[i] === '*') {
        steps.push({ any: true });
        i++;
        continue;
      }
      const m = NAME.exec(path.slice(i));
      if (!m) fail('expected a name after "."');
      steps.push({ key: m![0] });
      i += m![0].length;
    } else if (c === '[') {
      const rest = path.slice(i);
      const m = /^\[(?:(\*)|(-?\d+)|'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\]/.exec(rest);
      if (!m) fail('expected [*], [number] or a quoted name in brackets');
      if (m![1]) steps.push({ any: true });
      else if (m![2] !== undefined) steps.push({ index: Number(m![2]) });
      else steps.push({ key: (m![3] ?? m![4] ?? '').replace(/\\(.)/g, '$1') });
      i += m![0].length;
    } else fail(`unexpected "${c}"`);
  }
  return steps;
}

/** Every value `steps` reach in `doc` (several with `*`; none when a step does not apply). */
export function selectJson(doc: unknown, steps: JsonStep[]): unknown[] {
  let at: unknown[] = [doc];
  for (const s of steps) {
    const next: unknown[] = [];
    for (const v of at) {
      if (v === null || typeof v !== 'object') continue;
      if ('any' in s) next.push(...(Array.isArray(v) ? (v as unknown[]) : Object.values(v as Record<string, unknown>)));
      else if ('index' in s) {
        if (Array.isArray(v)) {
          const i = s.index < 0 ? v.length + s.index : s.index;
          if (i >= 0 && i < v.length) next.push(v[i]);
        }
      } else if (!Array.isArray(v) && Object.prototype.hasOwnProperty.call(v, s.key)) next.push((v as Record<string, unknown>)[s.key]);
    }
    at = next;
    if (at.length === 0) break;
  }
  return at;
}

/** JSON equality: same type and value, objects by their keys in any order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => jsonEqual(v, bb[i]));
  }
  const ka = Object.keys(a);
  const bo = b as Record<string, unknown>;
  return (
    ka.length === Object.keys(bo).length &&
    ka.every((k) => Object.prototype.hasOwnProperty.call(bo, k) && jsonEqual((a as Record<string, unknown>)[k], bo[k]))
  );
}
