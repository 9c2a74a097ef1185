/**
 * Reading a results.json back: a file from another version, cut short by a
 * crash, or edited by hand must give a reason, never an exception from deep
 * inside a table or chart. Checks the shape the readers (history, report,
 * comparison, UI) rely on; everything else is taken as it is.
 */
import { ErrorCodes, NetlensError } from '../errors.js';
import { LAB_SCHEMA_VERSION, type LabResult } from './types.js';

/** results.json files above this are not read (a 1000-image, 10-cell, 50-run result is ~2 MB). */
export const RESULT_FILE_MAX_BYTES = 64 * 2 ** 20;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Why `value` is not a usable LabResult, or undefined. */
export function labResultProblem(value: unknown): string | undefined {
  if (!isObj(value)) return 'not a JSON object';
  if (value.schemaVersion !== LAB_SCHEMA_VERSION) return `schemaVersion is ${JSON.stringify(value.schemaVersion) ?? 'missing'}; this Netlens reads ${LAB_SCHEMA_VERSION}`;
  const config = value.config;
  if (!isObj(config)) return 'no "config" object';
  if (!isObj(config.target) || (config.target.kind !== 'site' && config.target.kind !== 'url')) return 'no "config.target" of kind "site" or "url"';
  if (typeof config.runs !== 'number') return 'no "config.runs" number';
  if (typeof value.startedAt !== 'string' || Number.isNaN(Date.parse(value.startedAt))) return 'no valid "startedAt" date';
  if (typeof value.url !== 'string') return 'no "url" string';
  if (!Array.isArray(value.cells)) return 'no "cells" array';
  for (const [i, c] of value.cells.entries()) {
    if (!isObj(c) || typeof c.id !== 'string') return `cells[${i}] has no "id"`;
    if (!Array.isArray(c.runs) || !c.runs.every((r) => isObj(r) && typeof r.ok === 'boolean')) return `cell ${c.id}: "runs" is not a list of runs`;
    if (!isObj(c.stats) || !isObj(c.comparisons)) return `cell ${c.id}: "stats" or "comparisons" missing`;
    for (const [m, s] of Object.entries(c.stats)) if (!isObj(s) || typeof s.median !== 'number') return `cell ${c.id}: stats.${m} has no median`;
    for (const [m, s] of Object.entries(c.comparisons)) {
      if (!isObj(s) || typeof s.ratio !== 'number' || typeof s.p !== 'number' || typeof s.baseline !== 'string') return `cell ${c.id}: comparisons.${m} is incomplete`;
    }
  }
  if (value.effects !== undefined && !Array.isArray(value.effects)) return '"effects" is not a list';
  if (value.machine !== undefined && !isObj(value.machine)) return '"machine" is not an object';
  return undefined;
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
