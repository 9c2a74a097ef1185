// ESLint rule: no import cycle that runs through a type-only import.
//
// import-x/no-cycle skips `import type` on purpose (such imports vanish at run time), so a
// cycle like context.ts --type--> handle-request.ts --> context.ts goes unreported. Issue 14
// wants those gone too: a type cycle still means two modules that cannot be read, tested or
// moved apart. This rule reports a type-only import whose target imports (types or values,
// directly or through other modules) the importing file. Value-only cycles are left to
// import-x/no-cycle, so no cycle is reported twice at the same import.
//
// It resolves specifiers with the first resolver of the `import-x/resolver-next` setting (the
// one eslint.config.js gives import-x) and reads other files' imports with TypeScript's
// preProcessFile. The import graph is cached for one ESLint process: an editor's long-lived
// ESLint server sees other files' new imports only after a restart.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** file → resolved local files it imports (values and types). Shared across files of one run. */
const edges = new Map();

function importsOf(file, resolve) {
  let out = edges.get(file);
  if (out) return out;
  out = [];
  edges.set(file, out);
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return out;
  }
  for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
    const target = resolve(fileName, file);
    if (target) out.push(target);
  }
  return out;
}

/** Whether `from` reaches `to` by imports; the route when it does. */
function routeBetween(from, to, resolve) {
  const previous = new Map([[from, undefined]]);
  const queue = [from];
  while (queue.length > 0) {
    const file = queue.shift();
    if (file === to) {
      const route = [];
      for (let f = file; f !== undefined; f = previous.get(f)) route.unshift(f);
      return route;
    }
    for (const next of importsOf(file, resolve)) {
      if (previous.has(next)) continue;
      previous.set(next, file);
      queue.push(next);
    }
  }
  return undefined;
}

const isTypeOnly = (node) =>
  node.importKind === 'type' ||
  node.exportKind === 'type' ||
  (node.type === 'ImportDeclaration' && node.specifiers.length > 0 && node.specifiers.every((s) => s.importKind === 'type'));

export default {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid import cycles that pass through a type-only import (import-x/no-cycle ignores those).' },
    schema: [],
    messages: { cycle: 'Type import cycle: {{route}}. Move the shared types to a module both can import.' },
  },
  create(context) {
    const resolver = context.settings['import-x/resolver-next']?.[0];
    if (!resolver) return {};
    const root = context.cwd;
    const resolve = (specifier, importer) => {
      if (!specifier.startsWith('.')) return undefined;
      const r = resolver.resolve(specifier, importer);
      return r.found && r.path && !r.path.includes(`${path.sep}node_modules${path.sep}`) ? r.path : undefined;
    };
    const self = context.physicalFilename;
    const check = (node) => {
      if (!node.source || !isTypeOnly(node)) return;
      const target = resolve(node.source.value, self);
      if (!target || target === self) return;
      const route = routeBetween(target, self, resolve);
      if (!route) return;
      const names = [self, ...route].map((f) => path.relative(root, f));
      context.report({ node, messageId: 'cycle', data: { route: names.join(' → ') } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
  },
};
