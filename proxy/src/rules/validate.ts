/**
 * Validating a rules file: the JSON Schema (schema.ts, with ajv 8 + ajv-formats like the HAR
 * checks) first, then what a schema cannot say (regexes compile, ids unique, profiles exist).
 * Every problem names the rule (position, id, name) and the field, so a user can find it.
 */
import { createRequire } from 'node:module';
import type { Ajv as AjvType, ErrorObject, ValidateFunction } from 'ajv';
import { ErrorCodes, NetlensError } from '../errors.js';
import { rulesSchema } from './schema.js';
import { PROFILES } from './profiles.js';
import { compileFilter } from './filter-query.js';
import { compileJsonPath } from './json-path.js';
import type { RulesFile } from './types.js';

// Loaded on first validation only (see lazy-require.ts: the proxy's hot path never needs ajv).
const require = createRequire(import.meta.url);
let validator: ValidateFunction | undefined;

function compiled(): ValidateFunction {
  if (validator) return validator;
  const { Ajv } = require('ajv') as typeof import('ajv');
  const formats = require('ajv-formats') as { default?: unknown };
  const addFormats = (formats.default ?? formats) as (ajv: AjvType) => AjvType;
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  validator = ajv.compile(rulesSchema);
  return validator;
}

export interface RuleProblem {
  /** e.g. `rules[2] ("block ads", id ads)` or `file`. */
  rule: string;
  /** Dotted field inside the rule, e.g. `actions[0].status`. */
  field: string;
  message: string;
}

function ruleLabel(file: unknown, index: number): string {
  const r = (file as { rules?: { id?: unknown; name?: unknown }[] })?.rules?.[index];
  const id = typeof r?.id === 'string' ? `id "${r.id}"` : 'no id';
  return `rules[${index}] (${typeof r?.name === 'string' ? `"${r.name}", ` : ''}${id})`;
}

function fieldOf(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return 'is missing';
    case 'additionalProperties':
      return `has an unknown field "${String(p.additionalProperty)}"`;
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'not':
      return 'has more than one of body, bodyFile and har; a mock takes its body from one';
    case 'anyOf':
      return 'needs a profile or at least one of downloadKbps, uploadKbps, latencyMs';
    default:
      return e.message ?? e.keyword;
  }
}

function schemaProblems(file: unknown): RuleProblem[] {
  const validate = compiled();
  if (validate(file)) return [];
  const out: RuleProblem[] = [];
  const seen = new Set<string>();
  for (const e of validate.errors ?? []) {
    // if/then reports a wrapper error beside the real one; oneOf its branches: keep the useful lines.
    if (e.keyword === 'if') continue;
    let pointer = e.instancePath;
    if (e.keyword === 'required') pointer += `/${(e.params as { missingProperty: string }).missingProperty}`;
    if (e.keyword === 'additionalProperties') pointer += `/${(e.params as { additionalProperty: string }).additionalProperty}`;
    const m = /^\/rules\/(\d+)(\/.*)?$/.exec(pointer);
    const problem = m
      ? { rule: ruleLabel(file, Number(m[1])), field: fieldOf(m[2] ?? '') || '(the rule)', message: describe(e) }
      : { rule: 'file', field: fieldOf(pointer) || '(top level)', message: describe(e) };
    const key = `${problem.rule}|${problem.field}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(problem);
  }
  return out;
}

function regexProblem(source: string, flags = ''): string | undefined {
  try {
    new RegExp(source, flags);
    return undefined;
  } catch (err) {
    return `is not a valid regular expression: ${(err as Error).message}`;
  }
}

function semanticProblems(file: RulesFile): RuleProblem[] {
  const out: RuleProblem[] = [];
  const ids = new Map<string, number>();
  file.rules.forEach((rule, i) => {
    const label = ruleLabel(file, i);
    const add = (field: string, message: string | undefined) => message && out.push({ rule: label, field, message });
    const prev = ids.get(rule.id);
    if (prev !== undefined) add('id', `repeats the id of rules[${prev}]; ids must be unique`);
    ids.set(rule.id, i);
    const m = rule.match;
    for (const key of ['host', 'path'] as const) {
      const p = m[key];
      if (p && typeof p === 'object') add(`match.${key}.regex`, regexProblem(p.regex, p.flags));
    }
    for (const [name, q] of Object.entries(m.query ?? {}))
      if (q && typeof q === 'object') add(`match.query.${name}.regex`, regexProblem(q.regex));
    m.headers?.forEach((h, j) => h.regex !== undefined && add(`match.headers[${j}].regex`, regexProblem(h.regex, 'i')));
    if (m.body?.regex !== undefined) add('match.body.regex', regexProblem(m.body.regex));
    const json = m.body?.json;
    if (json) {
      try {
        compileJsonPath(json.path);
      } catch (err) {
        add('match.body.json.path', `is not a JSON path this matcher knows: ${(err as Error).message}`);
      }
      if (json.regex !== undefined) add('match.body.json.regex', regexProblem(json.regex));
      if (json.exists === false && ('equals' in json || json.regex !== undefined)) {
        add('match.body.json.exists', 'is false, so equals or regex can never hold; drop one');
      }
    }
    if (m.filter !== undefined) {
      try {
        compileFilter(m.filter);
      } catch (err) {
        add('match.filter', (err as Error).message);
      }
    }
    rule.actions.forEach((a, j) => {
      const at = `actions[${j}]`;
      if ((a.type === 'rewriteRequest' || a.type === 'rewriteResponse') && a.body?.replace) {
        a.body.replace.forEach((r, k) => add(`${at}.body.replace[${k}].regex`, regexProblem(r.regex, r.flags)));
      }
      if (a.type === 'throttle' && a.profile !== undefined && !PROFILES[a.profile]) {
        add(`${at}.profile`, `is not a known profile; use one of ${Object.keys(PROFILES).join(', ')}`);
      }
      if (a.type === 'mock' && j > 0 && rule.actions.slice(0, j).some((b) => b.type === 'mock')) {
        add(at, 'is a second mock in one rule; a rule answers once');
      }
    });
  });
  return out;
}

/** The problems of a parsed rules file, or [] when it is valid. */
export function rulesProblems(file: unknown): RuleProblem[] {
  const schema = schemaProblems(file);
  return schema.length ? schema : semanticProblems(file as RulesFile);
}

export function formatProblems(problems: RuleProblem[]): string {
  return problems.map((p) => `  ${p.rule}: ${p.field} ${p.message}`).join('\n');
}

/** Returns the file typed, or throws NL_RULES_INVALID listing every problem. */
export function validateRules(file: unknown, source = 'rules'): RulesFile {
  const problems = rulesProblems(file);
  if (problems.length) {
    throw new NetlensError(
      ErrorCodes.RULES_INVALID,
      `${source} has ${problems.length} problem${problems.length === 1 ? '' : 's'} (see docs/rules.md):\n${formatProblems(problems)}`,
    );
  }
  return file as RulesFile;
}
