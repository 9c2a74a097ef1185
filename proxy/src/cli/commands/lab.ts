import fs from 'node:fs';
import path from 'node:path';
import { defaultCells, parseCells } from '../../lab/cells.js';
import { checkBudget, checkRegression, parseBudget } from '../../lab/checks.js';
import { formatTable, progressLine } from '../../lab/report.js';
import { resolveLabConfig, runLab } from '../../lab/runner.js';
import { LAB_ALPHA, LAB_LIMITS, limitRange, minPValue } from '../../lab/limits.js';
import { ErrorCodes } from '../../errors.js';
import { labReport, LAB_REPORT_HELP } from './lab-report.js';
import type { CheckFailure, LabConfig, LabResult, ViaProxy } from '../../lab/types.js';
import { parseViaFlag } from '../../lab/via.js';
import { checkVariantCellName, loadVariant, parseVariantFlag } from '../../lab/variants.js';
import { EXIT_FAILED, EXIT_OK, intFlag, UsageError, type CliCommand } from '../command.js';
import { dataDirFlag, insecureFlag, upstreamCAFlag } from '../flags.js';

function readJson(file: string, what: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read the ${what} file ${file}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`the ${what} file ${file} is not valid JSON: ${(err as Error).message}`);
  }
}

function numberFlag(values: Record<string, unknown>, name: string, fallback: number, min: number, max: number): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (typeof raw !== 'string' || !Number.isFinite(n) || n < min || n > max)
    throw new UsageError(`--${name} must be a number between ${min} and ${max} (got "${String(raw)}")`);
  return n;
}

export const labCommand: CliCommand = {
  name: 'lab',
  summary:
    'load a page in headless Chrome across the proxy × HTTP/2 × interception × Nagle matrix (and through other proxies), with statistics',
  // A getter: the ranges are formatted with toLocaleString, and loading ICU's number data at
  // startup cost every CLI command ~5 MB of resident memory (docs/benchmarks.md, idle memory).
  get help() {
    return `Usage: netlens lab [--url URL | --images N] [flags]

Loads a page again and again in headless Chrome (a fresh browser per run, and a
fresh proxy for proxy cells), in each cell of the matrix, interleaved in a
shuffled order per round. Prints per cell: load time median/p95/min/max/IQR/CV,
ratio to the baseline cell with a Mann-Whitney U p-value and Cliff's delta, TTFB,
connections, protocol. Writes results.json and every HAR to --out.

Cells (--cells, comma-separated; parts select groups, e.g. "direct", "proxy+h2", "nagle"):
  direct+h2  direct+h1
  proxy+h2+intercept  proxy+h2+intercept+nagle  proxy+h2+tunnel  proxy+h2+tunnel+nagle
  proxy+h1+intercept  proxy+h1+intercept+nagle  proxy+h1+tunnel  proxy+h1+tunnel+nagle
  proxy+h1+intercept+naive  proxy+h1+intercept+naive+nagle   (opt-in, not in "all": the proxy
                              relays as a naive proxy, head and each chunk in writes of their
                              own; select them with "naive")
  via-NAME+h2  via-NAME+h1   (per --via proxy; "via" selects them all; added by
                              default when --cells names none of them)

Flags:
  --url URL              load this URL instead of the built-in test site
  --expected-requests N  with --url: fewer browser HAR entries than N fails a run
                         (default ${LAB_LIMITS.expectedRequests.default}, ${limitRange('expectedRequests')})
  --images N             test site: images on the page (default ${LAB_LIMITS.images.default}, ${limitRange('images')})
  --latency MS           test site: delay per response and per new connection
                         (default ${LAB_LIMITS.latencyMs.default}, ${limitRange('latencyMs')})
  --conn-latency MS      test site: delay per new connection only (default: --latency, ${limitRange('latencyMs')})
  --cells LIST|all       cells to run (default all: every cell but the naive ones)
  --via NAME=URL         also load the page through another HTTP proxy (Charles,
                         mitmproxy, a corporate proxy…) at URL = http://host:port;
                         repeatable. It must support CONNECT for https pages; the
                         lab's throwaway browser profiles trust the certificate it
                         presents for the page. It is not restarted between runs (warm).
                         On 127.0.0.1 (Linux) its CPU per load is read like Netlens's.
  --variant NAME=FILE    what if: also run every proxy cell with the rules in FILE (docs/rules.md),
                         as cell <cell>~NAME, compared with <cell> (ratio, p, delta under
                         "Effects"); repeatable. FILE is read and validated once, before any run
  --runs N               runs per cell (default ${LAB_LIMITS.runs.default}, ${limitRange('runs')}); the smallest p-value N runs
                         can give is 2/C(2N,N): 3 runs ${minPValue(3).toFixed(3)}, 4 runs ${minPValue(4).toFixed(3)}, 5 runs ${minPValue(5).toFixed(4)}
  --baseline-cell CELL   compare every cell with CELL, which must be among --cells, or a variant
                         cell such as proxy+h2+intercept~NAME (default: direct cell of the same
                         HTTP/2 setting)
  --out DIR              write results.json and the HARs (browser + proxy side) here
  --json                 print results.json to stdout instead of the table
  --seed N               seed of the shuffled order (to repeat a run order)
  --quiet-ms MS          network idle after load that ends a run (default ${LAB_LIMITS.quietMs.default}, ${limitRange('quietMs')})
  --timeout-ms MS        give up on one page load after MS (default ${LAB_LIMITS.timeoutMs.default}, ${limitRange('timeoutMs')})
  --alpha A              significance level (default 0.05)
  --browser-nice N       run every cell's browser at this lower CPU priority (${limitRange('browserNice')}, default
                         ${LAB_LIMITS.browserNice.default}; 0 = the normal one), so on a machine with few cores the proxy and
                         the test site are not queued behind it (Linux: the browser's autogroup; docs/lab.md)
  --upstream-ca FILE     with an https --url: also trust this CA (PEM) for the origin; repeatable.
                         Proxy cells verify upstream with it; before the first run the lab
                         checks the origin's certificate with it and the direct cells'
                         throwaway profiles trust exactly that origin key
  --insecure             with an https --url: do not verify the origin's certificate
                         (testing only; prints a warning)
  --data-dir DIR         data directory holding the CA
CI:
  --budget FILE          per-cell limits, e.g. {"proxy+h2+intercept": {"loadMs": {"median": 1500}}};
                         a variant cell (proxy+h2+intercept~NAME) can have limits too
                         (metrics: loadMs onLoadMs ttfbMeanMs ttfbMedianMs; stats: median p95 max mean)
  --baseline FILE        a stored results.json: fail when a cell is significantly slower than there...
  --max-ratio R          ...by more than R times its median load time (default 1.2)
Exit status: 0 ok, 1 a budget or baseline check failed (reasons on stderr) or no run succeeded, 2 usage.

${LAB_REPORT_HELP}

Examples:
  netlens lab --images 100 --runs 5 --latency 20 --out lab-out
  netlens lab --cells direct+h2,proxy+h2+intercept --runs 10 --budget budget.json
  netlens lab --url https://intranet.example/ --cells proxy+h2 --baseline lab-out/results.json
  netlens lab --url https://localhost:9443/ --upstream-ca dev-ca.pem --cells direct+h2,proxy+h2+intercept
  netlens lab --images 200 --latency 10 --cells direct,proxy+intercept --via mitmproxy=http://127.0.0.1:8081
  netlens lab --cells direct+h2,proxy+h2+intercept --variant slow-api=slow-api.rules.json --runs 10
`;
  },
  options: {
    url: { type: 'string' },
    'expected-requests': { type: 'string' },
    images: { type: 'string' },
    latency: { type: 'string' },
    'conn-latency': { type: 'string' },
    cells: { type: 'string' },
    via: { type: 'string', multiple: true },
    variant: { type: 'string', multiple: true },
    runs: { type: 'string' },
    'baseline-cell': { type: 'string' },
    out: { type: 'string' },
    json: { type: 'boolean' },
    seed: { type: 'string' },
    'quiet-ms': { type: 'string' },
    'browser-nice': { type: 'string' },
    'timeout-ms': { type: 'string' },
    alpha: { type: 'string' },
    'data-dir': { type: 'string' },
    'upstream-ca': { type: 'string', multiple: true },
    insecure: { type: 'boolean' },
    budget: { type: 'string' },
    baseline: { type: 'string' },
    'max-ratio': { type: 'string' },
    html: { type: 'string' },
  },
  maxPositionals: 2,
  async run({ values, positionals, stdout, stderr, env, stopSignal }) {
    if (positionals[0] === 'report') return labReport({ values, positionals: positionals.slice(1), stdout, stderr });
    if (positionals.length)
      throw new UsageError(`unknown subcommand "${positionals[0]}" (flags only, or: netlens lab report DIR [--html FILE])`);
    if (values.html !== undefined) throw new UsageError('--html belongs to "netlens lab report DIR --html FILE"');
    if (values.url && (values.images !== undefined || values.latency !== undefined || values['conn-latency'] !== undefined)) {
      throw new UsageError('--images and --latency describe the built-in test site; they cannot be combined with --url');
    }
    const via: ViaProxy[] = [];
    for (const raw of (values.via as string[] | undefined) ?? []) {
      try {
        via.push(parseViaFlag(raw));
      } catch (err) {
        throw new UsageError(`--via: ${(err as Error).message}`);
      }
      if (via.slice(0, -1).some((v) => v.name === via.at(-1)!.name))
        throw new UsageError(`--via: the name "${via.at(-1)!.name}" is given twice`);
    }
    const viaNames = via.map((v) => v.name);
    const variantSpecs: Array<{ name: string; file: string }> = [];
    for (const raw of (values.variant as string[] | undefined) ?? []) {
      try {
        variantSpecs.push(parseVariantFlag(raw));
      } catch (err) {
        throw new UsageError(`--variant: ${(err as Error).message}`);
      }
      const name = variantSpecs.at(-1)!.name;
      if (variantSpecs.slice(0, -1).some((v) => v.name === name)) throw new UsageError(`--variant: the name "${name}" is given twice`);
    }
    if (!values.url && (values['upstream-ca'] !== undefined || values.insecure)) {
      throw new UsageError(
        '--upstream-ca and --insecure are for an https --url origin (the built-in test site is signed by the Netlens CA)',
      );
    }
    const upstreamCA = upstreamCAFlag(values);
    const insecure = insecureFlag(values, stderr);
    let cells: LabConfig['cells'];
    try {
      cells = values.cells ? parseCells(String(values.cells), viaNames) : undefined;
    } catch (err) {
      throw new UsageError(`--cells: ${(err as Error).message}`);
    }
    // Absent: the runner's default ('direct'); given: it must be one of the cells being run (checked below, before any run).
    let baselineCell: LabConfig['baseline'];
    const variantNames = variantSpecs.map((v) => v.name);
    const rawBaseline = values['baseline-cell'] ? String(values['baseline-cell']).trim().toLowerCase() : '';
    if (rawBaseline.includes('~')) {
      // A variant cell, e.g. proxy+h2+intercept~slow-api: its base cell must be run and its variant given.
      try {
        baselineCell = checkVariantCellName(rawBaseline, cells ?? defaultCells(viaNames), variantNames);
      } catch (err) {
        throw new UsageError(`--baseline-cell: ${(err as Error).message}`);
      }
    } else if (rawBaseline) {
      const [one, ...more] = (() => {
        try {
          return parseCells(String(values['baseline-cell']), viaNames);
        } catch (err) {
          throw new UsageError(`--baseline-cell: ${(err as Error).message}`);
        }
      })();
      if (more.length)
        throw new UsageError(`--baseline-cell names exactly one cell ("${values['baseline-cell']}" matches ${[one, ...more].join(', ')})`);
      baselineCell = one;
    }
    const lim = (flag: string, name: keyof typeof LAB_LIMITS) =>
      intFlag(values, flag, LAB_LIMITS[name].default, LAB_LIMITS[name].min, LAB_LIMITS[name].max);
    const latencyMs = lim('latency', 'latencyMs');
    const config: LabConfig = {
      target: values.url
        ? { kind: 'url', url: String(values.url), expectedRequests: lim('expected-requests', 'expectedRequests') }
        : {
            kind: 'site',
            images: lim('images', 'images'),
            latencyMs,
            connectionLatencyMs: intFlag(values, 'conn-latency', latencyMs, LAB_LIMITS.latencyMs.min, LAB_LIMITS.latencyMs.max),
          },
      cells,
      ...(via.length ? { via } : {}),
      // Read and validated now, before any run (NL_RULES_FILE / NL_RULES_INVALID name the variant).
      ...(variantSpecs.length ? { variants: variantSpecs.map((v) => loadVariant(v.name, v.file)) } : {}),
      runs: lim('runs', 'runs'),
      ...(baselineCell ? { baseline: baselineCell } : {}),
      quietMs: lim('quiet-ms', 'quietMs'),
      browserNice: lim('browser-nice', 'browserNice'),
      timeoutMs: lim('timeout-ms', 'timeoutMs'),
      alpha: numberFlag(values, 'alpha', LAB_ALPHA.default, LAB_ALPHA.min, LAB_ALPHA.max),
      seed: values.seed !== undefined ? intFlag(values, 'seed', 0, 0, 2 ** 31 - 1) : undefined,
      outDir: values.out ? path.resolve(String(values.out)) : undefined,
      dataDir: dataDirFlag(values, env),
      ...(upstreamCA.length ? { upstreamCA } : {}),
      ...(insecure ? { insecure } : {}),
    };
    // The checks the API makes too (baseline among the cells, limits): a usage error before any run.
    try {
      resolveLabConfig(config);
    } catch (err) {
      if ((err as { code?: string }).code === ErrorCodes.USAGE)
        throw new UsageError(String((err as Error).message).replace(/^baseline/, '--baseline-cell: baseline'));
      throw err;
    }
    // Read the CI inputs before spending minutes on the runs.
    const budget = values.budget
      ? (() => {
          try {
            return parseBudget(readJson(String(values.budget), 'budget'), viaNames, variantNames);
          } catch (err) {
            throw err instanceof UsageError ? err : new UsageError((err as Error).message);
          }
        })()
      : undefined;
    const stored = values.baseline ? (readJson(String(values.baseline), 'baseline') as LabResult) : undefined;
    if (stored && !Array.isArray(stored.cells))
      throw new UsageError(`--baseline ${values.baseline} is not a Netlens results.json (no "cells" array)`);
    const maxRatio = numberFlag(values, 'max-ratio', 1.2, 1, 1000);

    const abort = new AbortController();
    void stopSignal.then((sig) => {
      stderr.write(`\n${sig}: cancelling the lab (cleaning up the current run)…\n`);
      abort.abort();
    });
    const tty = Boolean((stderr as NodeJS.WriteStream).isTTY);
    const result = await runLab(config, {
      signal: abort.signal,
      onProgress: (p) => {
        if (p.type === 'start') stderr.write(progressLine(p) + '\n');
        else if (tty) stderr.write(`\r\x1b[K${progressLine(p)}${p.type === 'done' ? '\n' : ''}`);
        else if (p.type !== 'run-start') stderr.write(progressLine(p) + '\n');
      },
    });

    if (values.json) stdout.write(JSON.stringify(result, null, 2) + '\n');
    else stdout.write(formatTable(result) + '\n');
    if (result.config.outDir)
      stderr.write(`Results: ${path.join(result.config.outDir, 'results.json')} (HARs in ${path.join(result.config.outDir, 'har')})\n`);

    const failures: CheckFailure[] = [];
    if (budget) failures.push(...checkBudget(result.cells, budget));
    if (stored) failures.push(...checkRegression(result.cells, stored, { maxRatio, alpha: result.config.alpha }));
    for (const f of failures) stderr.write(`FAIL ${f.message}\n`);
    const okRuns = result.cells.reduce((n, c) => n + c.runs.filter((r) => r.ok).length, 0);
    if (okRuns === 0) stderr.write('FAIL no run succeeded (see "Failed runs" above)\n');
    if (result.aborted) return EXIT_FAILED;
    return failures.length || okRuns === 0 ? EXIT_FAILED : EXIT_OK;
  },
};
