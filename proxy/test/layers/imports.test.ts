/**
 * The layer order of proxy/src (eslint.layers.js, docs/architecture.md), checked with the
 * TypeScript parser instead of ESLint so it holds in every `vitest run`: no module imports
 * from a layer above its own, except the listed exceptions, each still needed; the core
 * imports nothing from electron/ or renderer/; and what the renderer imports from the core
 * loads no Node built-in at run time (the UI runs in a browser).
 */
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { LAYER_EXCEPTIONS, PROXY_LAYERS, type LayerException, type ProxyLayer } from '../../../eslint.layers.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const SRC = path.join(ROOT, 'proxy', 'src');

interface Edge {
  /** Importing file, absolute. */
  from: string;
  /** Imported file (resolved) or the bare specifier of a package or built-in. */
  to: string;
  typeOnly: boolean;
}

function walk(dir: string, keep: (file: string) => boolean, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(p, keep, out);
    else if (keep(p)) out.push(p);
  }
  return out;
}

/** A relative specifier as TypeScript resolves it here (NodeNext `.js` names the `.ts` source; the renderer omits extensions). */
function resolveSpecifier(from: string, spec: string): string {
  if (!spec.startsWith('.')) return spec;
  const base = path.resolve(path.dirname(from), spec);
  const stem = base.replace(/\.js$/, '');
  for (const c of [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.d.ts`, path.join(base, 'index.ts')]) {
    if (fs.existsSync(c) && fs.statSync(c).isFile()) return c;
  }
  throw new Error(`${path.relative(ROOT, from)}: cannot resolve import "${spec}"`);
}

/** Every import, re-export, import() and import('…') type of a file, with whether it is type-only. */
function importsOf(file: string): Edge[] {
  const source = ts.createSourceFile(
    file,
    fs.readFileSync(file, 'utf8'),
    ts.ScriptTarget.Latest,
    true,
    file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const edges: Edge[] = [];
  const add = (spec: string, typeOnly: boolean) => edges.push({ from: file, to: resolveSpecifier(file, spec), typeOnly });
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      // `import { type A, type B }` is elided like `import type`: nothing loads at run time.
      const allTypes = !!clause && !clause.name && !!named && named.length > 0 && named.every((e) => e.isTypeOnly);
      add(node.moduleSpecifier.text, !!clause?.isTypeOnly || allTypes);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node.argument.literal.text, true);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      add(node.arguments[0].text, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

/** The layer member a proxy/src module belongs to: its folder, or its own name at the top. */
function memberOf(file: string): string {
  const rel = path.relative(SRC, file).split(path.sep);
  return rel.length > 1 ? rel[0]! : rel[0]!.replace(/(\.d)?\.ts$/, '');
}

export interface LayerProblem {
  kind: 'up' | 'unplaced' | 'stale-exception';
  message: string;
}

/** The layer rules over a set of edges (proxy/src modules only); pure, so a synthetic graph tests the checker itself. */
export function layerProblems(edges: Edge[], layers: ProxyLayer[], exceptions: LayerException[]): LayerProblem[] {
  const layerOf = new Map(layers.flatMap((l, i) => l.members.map((m) => [m, i] as const)));
  const problems: LayerProblem[] = [];
  const used = new Set<LayerException>();
  const unplaced = new Set<string>();
  for (const e of edges) {
    if (!e.to.startsWith(SRC + path.sep)) continue;
    const [fromMember, toMember] = [memberOf(e.from), memberOf(e.to)];
    for (const m of [fromMember, toMember]) if (!layerOf.has(m)) unplaced.add(m);
    const [a, b] = [layerOf.get(fromMember), layerOf.get(toMember)];
    if (a === undefined || b === undefined || b <= a) continue;
    const [fromRel, toRel] = [path.relative(SRC, e.from), path.relative(SRC, e.to)].map((p) => p.split(path.sep).join('/'));
    const exception = exceptions.find((x) => (x.from === '*' || x.from === fromRel) && x.to === toRel && (e.typeOnly || !x.typeOnly));
    if (exception) {
      used.add(exception);
      continue;
    }
    problems.push({
      kind: 'up',
      message:
        `${fromRel} (layer "${layers[a]!.name}") imports ${e.typeOnly ? 'type-only ' : ''}${toRel} ` +
        `(layer "${layers[b]!.name}", above it)`,
    });
  }
  for (const m of unplaced) {
    problems.push({
      kind: 'unplaced',
      message: `proxy/src/${m} is in no layer: add it to PROXY_LAYERS in eslint.layers.js (and docs/architecture.md)`,
    });
  }
  for (const x of exceptions) {
    if (!used.has(x))
      problems.push({
        kind: 'stale-exception',
        message: `no import needs the exception ${x.from} -> ${x.to} any more: delete it from eslint.layers.js`,
      });
  }
  return problems;
}

const proxyFiles = walk(SRC, (f) => f.endsWith('.ts'));
const proxyEdges = proxyFiles.flatMap(importsOf);

describe('proxy/src layers (eslint.layers.js)', () => {
  it('no module imports from a layer above its own; every module is placed; every exception is still needed', () => {
    expect(proxyFiles.length).toBeGreaterThan(100);
    expect(layerProblems(proxyEdges, PROXY_LAYERS, LAYER_EXCEPTIONS).map((p) => p.message)).toEqual([]);
  });

  it('every exception says why', () => {
    for (const x of LAYER_EXCEPTIONS) expect(x.reason.length, `${x.from} -> ${x.to}`).toBeGreaterThan(20);
  });

  it('the checker itself reports an upward import, an unplaced module and an unused exception', () => {
    const file = (rel: string) => path.join(SRC, rel);
    const layers: ProxyLayer[] = [
      { name: 'low', why: '', members: ['har'] },
      { name: 'high', why: '', members: ['server'] },
    ];
    const edges: Edge[] = [
      { from: file('har/a.ts'), to: file('server/b.ts'), typeOnly: false },
      { from: file('server/b.ts'), to: file('har/a.ts'), typeOnly: false },
      { from: file('har/a.ts'), to: file('mystery/c.ts'), typeOnly: true },
      { from: file('har/a.ts'), to: file('server/t.ts'), typeOnly: false },
    ];
    const typeOnlyException: LayerException = {
      from: '*',
      to: 'server/t.ts',
      typeOnly: true,
      reason: 'a type-only exception does not admit a value import',
    };
    const unused: LayerException = { from: 'har/z.ts', to: 'server/b.ts', typeOnly: false, reason: 'never used' };
    const problems = layerProblems(edges, layers, [typeOnlyException, unused]);
    expect(problems.map((p) => p.kind).sort()).toEqual(['stale-exception', 'stale-exception', 'unplaced', 'up', 'up']);
    expect(problems.find((p) => p.kind === 'up')!.message).toBe('har/a.ts (layer "low") imports server/b.ts (layer "high", above it)');
  });

  it('the core imports nothing from electron/ or renderer/', () => {
    const outside = proxyEdges.filter((e) =>
      [path.join(ROOT, 'electron'), path.join(ROOT, 'renderer')].some((d) => e.to.startsWith(d + path.sep)),
    );
    expect(outside.map((e) => `${path.relative(ROOT, e.from)} -> ${path.relative(ROOT, e.to)}`)).toEqual([]);
  });
});

describe('renderer/src', () => {
  const isBuiltin = (spec: string) => spec.startsWith('node:') || builtinModules.includes(spec.split('/')[0]!);
  const rendererFiles = walk(path.join(ROOT, 'renderer', 'src'), (f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f));

  it('loads no Node built-in at run time, directly or through the core modules it imports', () => {
    const problems: string[] = [];
    const seen = new Set<string>();
    const queue = rendererFiles.map((f) => ({ file: f, via: path.relative(ROOT, f) }));
    while (queue.length > 0) {
      const { file, via } = queue.shift()!;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const e of importsOf(file)) {
        if (e.typeOnly) continue;
        if (isBuiltin(e.to)) problems.push(`${via} loads "${e.to}"`);
        else if (path.isAbsolute(e.to))
          queue.push({ file: e.to, via: e.to.startsWith(SRC) ? `${via} -> ${path.relative(ROOT, e.to)}` : path.relative(ROOT, e.to) });
      }
    }
    expect(seen.size).toBeGreaterThan(rendererFiles.length);
    expect(problems).toEqual([]);
  });

  it('imports nothing from electron/', () => {
    const edges = rendererFiles.flatMap(importsOf).filter((e) => e.to.startsWith(path.join(ROOT, 'electron') + path.sep));
    expect(edges.map((e) => path.relative(ROOT, e.from))).toEqual([]);
  });
});
