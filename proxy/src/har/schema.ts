/**
 * HAR 1.2 JSON-schema validation with ajv and the `har-schema` package (the
 * schemas `har-validator` used; `har-validator` itself is deprecated).
 *
 * har-schema is written for draft-06 and uses two keywords that are not JSON
 * Schema (`optional`, `min`, `unique`): ajv runs with `strict: false` so it
 * ignores them instead of refusing the schema.
 */
import { createRequire } from 'node:module';
import type { Ajv as AjvType, ErrorObject, ValidateFunction } from 'ajv';

// Loaded on first validation, not at startup (the proxy never validates; see lazy-require.ts).
const require = createRequire(import.meta.url);

export interface SchemaProblem {
  /** Dotted path, e.g. `log.entries[3].request.url`. */
  path: string;
  message: string;
  /** The offending value (for messages). */
  value: unknown;
}

let compiled:
  | {
      har: ValidateFunction;
      log: ValidateFunction;
      entry: ValidateFunction;
      beforeRequest: ValidateFunction;
      afterRequest: ValidateFunction;
    }
  | undefined;

function validators() {
  if (compiled) return compiled;
  const { Ajv } = require('ajv') as typeof import('ajv');
  const addFormatsModule = require('ajv-formats') as { default?: unknown };
  // ajv-formats is CommonJS with a default export.
  const addFormats = (addFormatsModule.default ?? addFormatsModule) as (ajv: AjvType) => AjvType;
  const harSchemas = require('har-schema') as Record<string, object>;
  const ajv = new Ajv({ allErrors: true, strict: false });
  ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json') as object);
  addFormats(ajv);
  // ajv-formats' full `uri` regex backtracks once per character: a 10 MiB URL overflows the stack
  // (RangeError, and the import failed with a 500). Its fast-mode check (a scheme, then no whitespace)
  // is linear and tells a HAR reader what it needs to know.
  const { fastFormats } = require('ajv-formats/dist/formats.js') as typeof import('ajv-formats/dist/formats.js');
  ajv.addFormat('uri', fastFormats.uri);
  for (const schema of Object.values(harSchemas)) ajv.addSchema(schema);
  compiled = {
    har: ajv.getSchema('har.json#')!,
    log: ajv.getSchema('log.json#')!,
    entry: ajv.getSchema('entry.json#')!,
    beforeRequest: ajv.getSchema('beforeRequest.json#')!,
    afterRequest: ajv.getSchema('afterRequest.json#')!,
  };
  return compiled;
}

/** `/log/entries/3/request` → `log.entries[3].request` */
export function dottedPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

function valueAt(root: unknown, pointer: string): unknown {
  let v: unknown = root;
  for (const part of pointer.split('/').slice(1)) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return v;
}

/**
 * Schema problems of a parsed HAR, one per offending field: ajv reports a
 * `oneOf` failure plus each failed branch; users want one line per field.
 */
export function schemaProblems(har: unknown): SchemaProblem[] {
  return problems(validators().har, har, '');
}

/** Schema problems of one entry, with paths as in the whole file (`log.entries[i]…`). */
export function entrySchemaProblems(entry: unknown, index: number): SchemaProblem[] {
  return problems(validators().entry, entry, `/log/entries/${index}`);
}

/** Schema problems of `log` apart from its entries (pass it with `entries: []`). */
export function logSchemaProblems(log: unknown): SchemaProblem[] {
  return problems(validators().log, log, '/log');
}

function problems(validate: ValidateFunction, har: unknown, base: string): SchemaProblem[] {
  if (validate(har)) return [];
  const byPath = new Map<string, ErrorObject>();
  for (const err of validate.errors ?? []) {
    const pointer =
      err.keyword === 'required' ? `${err.instancePath}/${(err.params as { missingProperty: string }).missingProperty}` : err.instancePath;
    const prev = byPath.get(pointer);
    // Prefer the summary (oneOf) over its branches; otherwise keep the first.
    if (!prev || err.keyword === 'oneOf') byPath.set(pointer, err);
  }
  // Inside a field whose every allowed form failed, the branches' own complaints are noise.
  const summaries = [...byPath].filter(([, e]) => e.keyword === 'oneOf').map(([p]) => p);
  const inSummary = (p: string) => summaries.some((s) => p.startsWith(`${s}/`));
  return [...byPath]
    .filter(([pointer]) => !inSummary(pointer))
    .map(([pointer, err]) => ({
      path: dottedPath(base + pointer),
      message: describe(err),
      value: err.keyword === 'required' ? undefined : valueAt(har, pointer),
    }));
}

function describe(err: ErrorObject): string {
  switch (err.keyword) {
    case 'required':
      return 'missing';
    case 'type':
      return `must be ${(err.params as { type: string }).type}`;
    case 'oneOf':
      return 'does not match any allowed form';
    case 'format':
      return `is not a valid ${(err.params as { format: string }).format}`;
    case 'pattern':
      return 'is not a valid date-time';
    default:
      return err.message ?? err.keyword;
  }
}

export const isValidBeforeRequest = (v: unknown): boolean => validators().beforeRequest(v) as boolean;
export const isValidAfterRequest = (v: unknown): boolean => validators().afterRequest(v) as boolean;
