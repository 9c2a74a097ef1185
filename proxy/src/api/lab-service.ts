/**
 * The lab half of the core service: validates what the UI asks for (with the
 * lab's own limits and baseline rule, the same checks the CLI makes), runs the
 * lab in the background with progress events, and serves the run history in
 * `<data>/lab/<runId>/` (list, open, delete, compare, HTML report).
 */
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCodes, NetlensError } from '../errors.js';
import { baselineProblem, isCellId } from '../lab/cells.js';
import { compareRuns, isRunId, LabHistory } from '../lab/history.js';
import { renderHtmlReport, representativeWaterfalls } from '../lab/html-report.js';
import { LAB_DEFAULTS, limitProblem } from '../lab/limits.js';
import type { CellId, LabConfig, LabResult } from '../lab/types.js';
import { withVariantCells } from '../lab/variants.js';
import type { RulesFile } from '../rules/types.js';
import type { LabBackend } from './backends.js';
import { labCells } from './lab-cells.js';
import { parseHarText } from './har-text.js';
import type { CommandArgs, CommandResult, LabRunConfig, LabRunState, NetlensEvent } from './contract.js';
import { bad, obj, type Args } from './commands/args.js';
import { labVariantsArg } from './lab-variant-args.js';

const CANCELLED = { code: ErrorCodes.LAB_ABORTED, message: 'The run was cancelled; the table shows the runs that finished.' };

function runIdArg(a: Args, key: string, command: string): string {
  const v = a[key];
  if (!isRunId(v)) throw bad(`${command}: "${key}" must be a lab run id (letters, digits, . _ -; at most 200)`);
  return v;
}

/** What the Lab view starts with: the lab's defaults (runs, images, baseline), on two cells that finish quickly. */
export const UI_DEFAULT_CELLS: CellId[] = [...LAB_DEFAULTS.uiCells];

/** A startLab request checked: its variants resolved to their rules (the runner's LabVariant). */
export type CheckedLabConfig = Pick<LabConfig, 'target' | 'cells' | 'runs' | 'baseline' | 'variants'>;

export class LabService {
  private readonly runs = new Map<string, { state: LabRunState; abort: AbortController }>();
  private seq = 0;
  private readonly history: LabHistory;

  constructor(
    private readonly lab: LabBackend,
    private readonly dataDir: string,
    private readonly emit: (event: NetlensEvent) => void,
    /** The Settings' upstream CA files (read now) and insecure flag: an https URL target is trusted as the capture proxy trusts it. */
    private readonly upstreamTrust: () => { upstreamCA: string[]; insecure: boolean } = () => ({ upstreamCA: [], insecure: false }),
    /** The app's rules now: a variant of source "current" runs with them. */
    private readonly currentRules: () => RulesFile | undefined = () => undefined,
  ) {
    this.history = new LabHistory(path.join(dataDir, 'lab'));
  }

  get available(): boolean {
    return this.lab.available;
  }

  options(): CommandResult<'getLabOptions'> {
    return {
      available: this.lab.available,
      cells: labCells(),
      defaults: {
        target: { ...LAB_DEFAULTS.target },
        cells: [...UI_DEFAULT_CELLS],
        runs: LAB_DEFAULTS.runs,
        baseline: LAB_DEFAULTS.baseline,
      },
    };
  }

  /** The checks of resolveLabConfig (limits.ts, cells.ts), as API errors. */
  config(args: unknown): CheckedLabConfig {
    const a = obj(args, 'startLab');
    const t = obj(a.target, 'startLab');
    const check = (problem: string | undefined) => {
      if (problem) throw bad(`startLab: ${problem}`);
    };
    let target: LabRunConfig['target'];
    if (t.kind === 'site') {
      check(limitProblem('images', t.images));
      check(limitProblem('latencyMs', t.latencyMs));
      target = { kind: 'site', images: t.images as number, latencyMs: t.latencyMs as number };
    } else if (t.kind === 'url') {
      const url = t.url;
      if (typeof url !== 'string' || url.length > 8192 || !/^https?:\/\/./i.test(url)) {
        throw bad('startLab: the target URL must start with http:// or https:// (at most 8192 characters)');
      }
      target = { kind: 'url', url };
    } else throw bad('startLab: target.kind must be "site" or "url"');
    if (!Array.isArray(a.cells) || a.cells.length === 0 || !a.cells.every((c) => typeof c === 'string' && isCellId(c))) {
      throw bad('startLab: pick at least one cell of the matrix');
    }
    const cells = [...new Set(a.cells as CellId[])];
    check(limitProblem('runs', a.runs));
    const variants = labVariantsArg(a.variants, cells, { currentRules: this.currentRules, dataDir: this.dataDir });
    // A variant cell (`<cell>~<name>`) can be the baseline too: it is run like any other.
    const runCells = withVariantCells(cells, variants);
    const b = a.baseline;
    if (b !== undefined && b !== 'direct' && !(typeof b === 'string' && (isCellId(b) || (runCells as string[]).includes(b)))) {
      throw bad(`startLab: baseline must be "direct" or one of the cells being run (${runCells.join(', ')})`);
    }
    const baseline = b as LabRunConfig['baseline'];
    if (baseline !== undefined) check(baselineProblem(runCells, baseline));
    return {
      target,
      cells,
      runs: a.runs as number,
      ...(baseline !== undefined ? { baseline } : {}),
      ...(variants.length ? { variants } : {}),
    };
  }

  private dir(runId: string): string {
    return path.join(this.dataDir, 'lab', runId);
  }

  async start(args: CommandArgs<'startLab'>): Promise<CommandResult<'startLab'>> {
    const config = this.config(args);
    const trust = config.target.kind === 'url' ? this.upstreamTrust() : { upstreamCA: [], insecure: false };
    if (!this.lab.available) await this.lab.run(config, { signal: new AbortController().signal, onProgress: () => undefined });
    const runId = `${new Date().toISOString().replace(/[:.]/g, '-')}-${++this.seq}`;
    const abort = new AbortController();
    const total = withVariantCells(config.cells!, config.variants ?? []).length * config.runs!;
    const entry: { state: LabRunState; abort: AbortController } = { state: { runId, state: 'running', completed: 0, total }, abort };
    this.runs.set(runId, entry);
    void this.lab
      .run(
        {
          ...config,
          outDir: this.dir(runId),
          dataDir: this.dataDir,
          ...(trust.upstreamCA.length ? { upstreamCA: trust.upstreamCA } : {}),
          ...(trust.insecure ? { insecure: true } : {}),
        },
        {
          signal: abort.signal,
          onProgress: (progress) => {
            const completed = 'completed' in progress ? progress.completed : 0;
            entry.state = { runId, state: 'running', progress, completed, total: progress.total };
            this.emit({ type: 'lab-progress', runId, progress });
          },
        },
      )
      .then(
        (result) => {
          entry.state = result.aborted ? { runId, state: 'cancelled', error: CANCELLED, result } : { runId, state: 'done', result };
        },
        (err: NetlensError) => {
          const cancelled = abort.signal.aborted;
          entry.state = {
            runId,
            state: cancelled ? 'cancelled' : 'failed',
            error: {
              code: err?.code ?? ErrorCodes.INTERNAL,
              message: cancelled ? 'The run was cancelled.' : (err?.message ?? String(err)),
            },
          };
        },
      )
      .finally(() => this.emit({ type: 'lab-finished', run: entry.state }));
    return { runId };
  }

  private live(args: unknown, command: string) {
    const runId = runIdArg(obj(args, command), 'runId', command);
    return { runId, entry: this.runs.get(runId) };
  }

  async cancel(args: unknown): Promise<CommandResult<'cancelLab'>> {
    const { runId, entry } = this.live(args, 'cancelLab');
    if (!entry) throw new NetlensError(ErrorCodes.NOT_FOUND, `No lab run "${runId}" in progress.`);
    if (entry.state.state !== 'running') return { cancelled: false };
    entry.abort.abort();
    return { cancelled: true };
  }

  /** A run of this session (any state), else one from the history on disk. */
  async get(args: unknown): Promise<CommandResult<'getLabRun'>> {
    const { runId, entry } = this.live(args, 'getLabRun');
    if (entry) return entry.state;
    const result = await this.stored(runId);
    return result.aborted ? { runId, state: 'cancelled', error: CANCELLED, result } : { runId, state: 'done', result };
  }

  private async stored(runId: string): Promise<LabResult> {
    const live = this.runs.get(runId)?.state;
    if (live && 'result' in live && live.result) return live.result;
    if (live?.state === 'running') throw new NetlensError(ErrorCodes.NOT_FOUND, `Lab run "${runId}" is still running.`);
    try {
      return await this.history.read(runId);
    } catch (err) {
      if ((err as NetlensError).code === ErrorCodes.NOT_FOUND) {
        throw new NetlensError(ErrorCodes.NOT_FOUND, `No lab run "${runId}" (it may have been deleted). Refresh the history.`);
      }
      throw err;
    }
  }

  /** `{ runId, file }` -> the HAR's absolute path, which must be inside the run's directory and exist. */
  async harFile(args: unknown, command: 'getLabHar' | 'openLabSession'): Promise<{ runId: string; file: string; size: number }> {
    const a = obj(args, command);
    const runId = runIdArg(a, 'runId', command);
    const dir = this.dir(runId);
    if (typeof a.file !== 'string' || a.file.length === 0 || a.file.length > 1000)
      throw bad(`${command}: "file" must be a path of at most 1000 characters`);
    const file = path.resolve(dir, a.file);
    if (!file.startsWith(dir + path.sep)) throw bad(`${command}: the file must be inside the run directory`);
    try {
      const stat = await fs.promises.stat(file);
      if (!stat.isFile()) throw new Error('not a file');
      return { runId, file, size: stat.size };
    } catch {
      throw new NetlensError(ErrorCodes.NOT_FOUND, `The lab run has no HAR "${path.relative(dir, file)}".`);
    }
  }

  async har(args: unknown): Promise<CommandResult<'getLabHar'>> {
    const { file, size } = await this.harFile(args, 'getLabHar');
    const name = path.basename(file);
    if (size > 256 * 2 ** 20) throw bad(`getLabHar: ${name} is over 256 MiB; open it with "netlens har" instead`);
    let text: string;
    try {
      text = await fs.promises.readFile(file, 'utf8');
    } catch {
      throw new NetlensError(ErrorCodes.NOT_FOUND, `The lab run has no HAR "${name}".`);
    }
    return parseHarText(name, text);
  }

  /** Past runs, newest first; runs of this session still in progress first of all. */
  async list(): Promise<CommandResult<'listLabRuns'>> {
    const running = [...this.runs.entries()].filter(([, e]) => e.state.state === 'running').map(([id]) => id);
    return { running, runs: await this.history.list(new Set(running)) };
  }

  async remove(args: unknown): Promise<CommandResult<'deleteLabRun'>> {
    const { runId, entry } = this.live(args, 'deleteLabRun');
    if (entry?.state.state === 'running') throw bad(`deleteLabRun: run "${runId}" is still running; cancel it first`);
    this.runs.delete(runId);
    return { deleted: await this.history.remove(runId) };
  }

  async compare(args: unknown): Promise<CommandResult<'compareLabRuns'>> {
    const a = obj(args, 'compareLabRuns');
    const ia = runIdArg(a, 'a', 'compareLabRuns');
    const ib = runIdArg(a, 'b', 'compareLabRuns');
    if (ia === ib) throw bad('compareLabRuns: pick two different runs');
    const [ra, rb] = [await this.stored(ia), await this.stored(ib)];
    try {
      return compareRuns({ runId: ia, result: ra }, { runId: ib, result: rb }, rb.config.alpha);
    } catch (err) {
      throw bad(`compareLabRuns: ${(err as Error).message}`);
    }
  }

  async report(args: unknown): Promise<CommandResult<'exportLabReport'>> {
    const runId = runIdArg(obj(args, 'exportLabReport'), 'runId', 'exportLabReport');
    const result = await this.stored(runId);
    const html = renderHtmlReport(result, await representativeWaterfalls(this.dir(runId), result));
    return { fileName: `netlens-lab-${runId}.html`, text: html };
  }

  close(): void {
    for (const run of this.runs.values()) run.abort.abort();
  }
}
