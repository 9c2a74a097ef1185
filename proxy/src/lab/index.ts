/** The lab: test site, matrix runner, statistics, CI checks. Types for the UI live in types.ts. */
export * from './types.js';
export { runLab, resolveLabConfig } from './runner.js';
export type { RunLabOptions } from './runner.js';
export {
  ALL_CELLS,
  NAIVE_CELLS,
  allCells,
  defaultCells,
  viaCells,
  cellSettings,
  cellId,
  parseCells,
  baselineFor,
  isCellId,
  isViaCellId,
} from './cells.js';
export { validateVia, parseViaFlag } from './via.js';
export { probeViaProxy } from './via-probe.js';
export { analyze } from './analyze.js';
export { checkBudget, checkRegression, parseBudget } from './checks.js';
export { formatTable, progressLine } from './report.js';
export { startTestSite } from './site/test-site.js';
export type { TestSite, TestSiteOptions, TestSiteStats } from './site/test-site.js';
export { describe as describeSample, mannWhitneyU, cliffsDelta } from './stats.js';
