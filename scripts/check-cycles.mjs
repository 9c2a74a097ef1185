#!/usr/bin/env node
// Finds import cycles among the project's own TypeScript modules (proxy/, electron/, renderer/src/, bench/).
// ESLint's import-x/no-cycle does the same in CI; this is the quick stand-alone check (no madge).
// Usage: node scripts/check-cycles.mjs [--runtime]   (--runtime ignores `import type` edges)
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const runtimeOnly = process.argv.includes('--runtime');
const dirs = ['proxy/src', 'electron', 'renderer/src', 'bench', 'bin'];

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist') continue;
    if (statSync(path).isDirectory()) walk(path, out);
    else if (/\.(ts|tsx|js|mjs)$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

// Matches `import … from '…'`, `export … from '…'` and `import('…')`; flags type-only forms.
const importRe = /(?:^|\n)\s*(import|export)\s+(type\s+)?[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function resolveSpec(from, spec) {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec);
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.js$/, '.tsx'),
    `${base}.ts`,
    `${base}.tsx`,
    join(base, 'index.ts'),
  ];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

export function importGraph(files, { runtime = false } = {}) {
  const graph = new Map();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const deps = new Set();
    for (const m of text.matchAll(importRe)) {
      if (runtime && m[2]) continue;
      const target = resolveSpec(file, m[3] ?? m[4]);
      if (target) deps.add(target);
    }
    graph.set(file, deps);
  }
  return graph;
}

// Tarjan's strongly connected components: every component with more than one module is a cycle.
function cycles(graph) {
  let index = 0;
  const stack = [],
    onStack = new Set(),
    idx = new Map(),
    low = new Map(),
    out = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const comp = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || graph.get(v)?.has(v)) out.push(comp);
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

const files = dirs
  .map((d) => join(root, d))
  .filter(existsSync)
  .flatMap((d) => walk(d));
const found = cycles(importGraph(files, { runtime: runtimeOnly }));
for (const comp of found)
  console.log(
    `cycle: ${comp
      .map((f) => relative(root, f))
      .sort()
      .join(' <-> ')}`,
  );
if (found.length > 0) {
  console.error(`${found.length} import cycle(s)${runtimeOnly ? ' (run-time imports only)' : ''}`);
  process.exit(1);
}
console.log(`no import cycles among ${files.length} modules${runtimeOnly ? ' (run-time imports only)' : ''}`);
