/**
 * Reading a results.json back: a file from another version, cut short by a
 * crash, or edited by hand must give a reason, never an exception from deep
 * inside a table or chart. Checks the type of every field a reader (history,
 * terminal table, HTML report, comparison, Lab view) uses. `null` where a
 * number belongs is read as NaN: JSON.stringify writes NaN (a ratio against a
 * zero median) as null, so a result the lab wrote itself can hold it.
 */
import { ErrorCodes, NetlensError } from '../errors.js';
import { LAB_SCHEMA_VERSION, type LabResult } from './types.js';

/** results.json files above this are not read (a 1000-image, 10-cell, 50-run result is ~2 MB). */
export const RESULT_FILE_MAX_BYTES = 64 * 2 ** 20;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

class Bad extends Error {}
const fail = (where: string, what: string): never => {
  throw new Bad(`${where} ${what}`);
};

/** Numbers (null → NaN). `optional`: may be absent (null then means absent too). */
function numbers(o: Obj, where: string, keys: readonly string[], optional = false): void {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === 'number') continue;
    if (v === null) {
      if (optional) delete o[k];
      else o[k] = NaN;
    } else if (!(optional && v === undefined)) fail(where, `"${k}" is not a number`);
  }
}

function strings(o: Obj, where: string, keys: readonly string[], optional = false): void {
  for (const k of keys) if (typeof o[k] !== 'string' && !(optional && o[k] === undefined)) fail(where, `"${k}" is not a string`);
}

function booleans(o: Obj, where: string, keys: readonly string[], optional = false): void {
  for (const k of keys) if (typeof o[k] !== 'boolean' && !(optional && o[k] === undefined)) fail(where, `"${k}" is not true or false`);
}

function object(v: unknown, where: string): Obj {
  return isObj(v) ? v : fail(where, 'is not an object');
}

function list(v: unknown, where: string): unknown[] {
  return Array.isArray(v) ? v : fail(where, 'is not a list');
}

function comparison(v: unknown, where: string): void {
  const c = object(v, where);
  numbers(c, where, ['ratio', 'u', 'p', 'cliffsDelta']);
  strings(c, where, ['baseline', 'magnitude']);
  booleans(c, where, ['significant']);
}

const RUN_NUMBERS = ['loadMs', 'onLoadMs', 'ttfbMeanMs', 'ttfbMedianMs', 'requests', 'connections', 'bytes'] as const;

function checkResult(value: unknown): void {
  const r = object(value, 'the file');
  if (r.schemaVersion !== LAB_SCHEMA_VERSION) {
    fail('schemaVersion', `is ${JSON.stringify(r.schemaVersion) ?? 'missing'}; this Netlens reads ${LAB_SCHEMA_VERSION}`);
  }
  const config = object(r.config, '"config"');
  const target = object(config.target, '"config.target"');
  if (target.kind === 'url') strings(target, '"config.target"', ['url']);
  else if (target.kind === 'site') numbers(target, '"config.target"', ['images', 'latencyMs']);
  else fail('"config.target.kind"', 'is neither "site" nor "url"');
  numbers(config, '"config"', ['runs', 'alpha']);
  strings(config, '"config"', ['baseline']);
  if (typeof r.startedAt !== 'string' || Number.isNaN(Date.parse(r.startedAt))) fail('"startedAt"', 'is not a date');
  strings(r, 'the file', ['url']);
  numbers(r, 'the file', ['durationMs'], true);
  booleans(r, 'the file', ['aborted'], true);
  if (r.machine !== undefined) object(r.machine, '"machine"');
  for (const [i, cv] of list(r.cells, '"cells"').entries()) {
    const c = object(cv, `cells[${i}]`);
    strings(c, `cells[${i}]`, ['id']);
    const at = `cell ${c.id}:`;
    booleans(c, at, ['noisy', 'noisyBaseline'], true);
    numbers(c, at, ['representativeRun'], true);
    for (const [j, rv] of list(c.runs, `${at} "runs"`).entries()) {
      const run = object(rv, `${at} runs[${j}]`);
      booleans(run, `${at} runs[${j}]`, ['ok']);
      numbers(run, `${at} runs[${j}]`, ['round']);
      numbers(run, `${at} runs[${j}]`, RUN_NUMBERS, true);
      strings(run, `${at} runs[${j}]`, ['browserHar', 'proxyHar', 'cell'], true);
      if (run.error !== undefined) object(run.error, `${at} runs[${j}].error`);
    }
    for (const [m, sv] of Object.entries(object(c.stats, `${at} "stats"`))) {
      numbers(object(sv, `${at} stats.${m}`), `${at} stats.${m}`, ['n', 'median', 'p95', 'min', 'max', 'mean', 'iqr', 'cv']);
    }
    for (const [m, cmp] of Object.entries(object(c.comparisons, `${at} "comparisons"`))) comparison(cmp, `${at} comparisons.${m}`);
  }
  if (r.effects !== undefined) {
    for (const [i, ev] of list(r.effects, '"effects"').entries()) {
      const e = object(ev, `effects[${i}]`);
      strings(e, `effects[${i}]`, ['dimension', 'cell', 'versus']);
      comparison(e.comparison, `effects[${i}].comparison`);
    }
  }
}

/** Why `value` is not a usable LabResult, or undefined. Normalizes it in place (null numbers → NaN). */
export function labResultProblem(value: unknown): string | undefined {
  try {
    checkResult(value);
    return undefined;
  } catch (err) {
    if (err instanceof Bad) return err.message;
    throw err;
  }
}

/** Parses results.json text; throws NL_LAB_RESULT_INVALID with the reason. */
export function parseLabResult(text: string, file = 'results.json'): LabResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new NetlensError(ErrorCodes.LAB_RESULT_INVALID, `${file} is not valid JSON (cut short?): ${(err as Error).message}`);
  }
  const problem = labResultProblem(value);
  if (problem) throw new NetlensError(ErrorCodes.LAB_RESULT_INVALID, `${file} is not a Netlens lab result: ${problem}`);
  const result = value as LabResult;
  if (!Array.isArray(result.effects)) result.effects = [];
  return result;
}
