/**
 * Lab: configure a matrix run (target, cells, variants, runs), run it with progress and
 * cancel, then compare the cells (LabResults).
 */
import { useEffect, useRef, useState } from 'react';
import type { AppStatus, CellId, LabOptions, LabRunComparison, LabRunConfig } from '../../../../proxy/src/api/contract';
import { baselineChoices } from '../../../../proxy/src/lab/cells';
import { LAB_DEFAULTS, LAB_LIMITS } from '../../../../proxy/src/lab/limits';
import { baselinePlan, formBaseline, runsHint } from '../../lib/lab-model';
import { LabCompare } from './LabCompare';
import { LabHistory, useLabHistory } from './LabHistory';
import { api, errorMessage } from '../../api';
import { useToasts } from '../../ui/Toasts';
import { labStore, useLabRun } from './lab-store';
import { LabResults } from './LabResults';
import { cellsWithVariants, takesVariants, variantInputs, variantProblems, type VariantDraft } from '../../lib/lab-variants';
import { VariantPicker } from './VariantPicker';

export function LabView({
  status,
  onOpenLabSession,
}: {
  status?: AppStatus;
  /** Opens a HAR of run `runId` as a session in the Connections view (App owns the views). */
  onOpenLabSession?: (runId: string, file: string) => void;
}) {
  const toast = useToasts();
  const [options, setOptions] = useState<LabOptions>();
  const [loadError, setLoadError] = useState<string>();
  const [config, setConfig] = useState<LabRunConfig>();
  const [starting, setStarting] = useState(false);
  const run = useLabRun();
  const history = useLabHistory();
  const [comparison, setComparison] = useState<LabRunComparison>();
  const restored = useRef(false);
  const [variants, setVariants] = useState<VariantDraft[]>([]);
  /** startLab's refusal of a variant (bad rules name the rule and field), shown under the picker until it is edited. */
  const [variantError, setVariantError] = useState<string>();

  // After a reload: follow a run still in progress, else show the newest finished run.
  useEffect(() => {
    if (restored.current || !history.runs || labStore.current()) return;
    restored.current = true;
    const id = history.running[0] ?? history.runs.find((r) => r.state === 'ok')?.runId;
    if (id) void openRun(id);
    // Runs once the history has loaded, not again when `openRun` (a new closure each render) changes.
  }, [history.runs]);

  const openRun = async (runId: string) => {
    try {
      labStore.show(await api.getLabRun({ runId }));
      setComparison(undefined);
    } catch (err) {
      toast.error(err, 'The run cannot be opened');
    }
  };
  const compareRuns = async (a: string, b: string) => {
    try {
      setComparison(await api.compareLabRuns({ a, b }));
    } catch (err) {
      toast.error(err, 'The runs cannot be compared');
    }
  };

  useEffect(() => {
    api.getLabOptions().then(
      (o) => {
        setOptions(o);
        setConfig((c) => c ?? o.defaults);
      },
      (err) => setLoadError(errorMessage(err)),
    );
    void labStore.refresh();
  }, []);

  if (loadError)
    return (
      <div className="empty">
        <h2>The lab cannot be shown</h2>
        <p className="err">{loadError}</p>
      </div>
    );
  if (!options || !config)
    return (
      <div className="empty">
        <div className="spinner" />
        Loading the lab…
      </div>
    );

  const cells = config.cells ?? [];
  const running = run?.state === 'running';
  const toggleCell = (id: CellId) => setConfig({ ...config, cells: cells.includes(id) ? cells.filter((c) => c !== id) : [...cells, id] });
  const target = config.target;
  // The cells the run will have: each ticked proxy cell followed by its variant cells (`<cell>~<name>`).
  const runCells = cellsWithVariants(
    cells,
    variants.map((v) => v.name),
  );
  const problems = variantProblems(variants);
  const noProxyCell = variants.length > 0 && !cells.some(takesVariants);
  // Only cells being run can be the baseline: what the dropdown shows is what the run uses.
  const baseline = formBaseline(runCells, config.baseline);
  const plan = baseline ? baselinePlan(runCells, baseline) : [];
  const runs = config.runs ?? LAB_DEFAULTS.runs;
  const hint = runsHint(runs);
  const num = (name: 'images' | 'latencyMs' | 'runs') => ({ min: LAB_LIMITS[name].min, max: LAB_LIMITS[name].max, step: 1 });
  const start = async () => {
    setStarting(true);
    try {
      const { runId } = await api.startLab({ ...config, baseline, ...(variants.length ? { variants: variantInputs(variants) } : {}) });
      labStore.follow(runId, runCells.length * runs);
      setComparison(undefined);
    } catch (err) {
      if (/variant/.test(errorMessage(err))) setVariantError(errorMessage(err));
      toast.error(err, 'The lab could not start');
    } finally {
      setStarting(false);
    }
  };

  return (
    <div className="page" data-testid="lab-view">
      <div className="lab-layout">
        <div>
          <div className="card" data-testid="lab-config">
            <h2>Configure</h2>
            {!options.available && (
              <div className="note" data-testid="lab-unavailable" style={{ margin: '0 0 10px' }}>
                The lab runner is not part of this build yet, so no run can start. You can look at the configuration; results appear here
                once the runner is installed.
              </div>
            )}
            <div className="form-row">
              <label>
                <input
                  type="radio"
                  checked={target.kind === 'site'}
                  onChange={() =>
                    setConfig({
                      ...config,
                      target: options.defaults.target.kind === 'site' ? options.defaults.target : { ...LAB_DEFAULTS.target },
                    })
                  }
                />{' '}
                Test site
              </label>
              <label>
                <input
                  type="radio"
                  checked={target.kind === 'url'}
                  onChange={() => setConfig({ ...config, target: { kind: 'url', url: 'https://' } })}
                />{' '}
                Any URL
              </label>
            </div>
            {target.kind === 'site' ? (
              <>
                <div className="form-row">
                  <label htmlFor="lab-images">Images</label>
                  <input
                    id="lab-images"
                    type="number"
                    {...num('images')}
                    value={target.images}
                    onChange={(e) => setConfig({ ...config, target: { ...target, images: Number(e.target.value) } })}
                    style={{ width: 90 }}
                    data-testid="lab-images"
                  />
                </div>
                <div className="form-row">
                  <label htmlFor="lab-latency">Latency</label>
                  <input
                    id="lab-latency"
                    type="number"
                    {...num('latencyMs')}
                    value={target.latencyMs}
                    onChange={(e) => setConfig({ ...config, target: { ...target, latencyMs: Number(e.target.value) } })}
                    style={{ width: 90 }}
                    data-testid="lab-latency"
                  />
                  <span className="muted">ms per response and per new connection</span>
                </div>
              </>
            ) : (
              <div className="form-row">
                <label htmlFor="lab-url">URL</label>
                <input
                  id="lab-url"
                  type="text"
                  value={target.url}
                  onChange={(e) => setConfig({ ...config, target: { kind: 'url', url: e.target.value } })}
                  style={{ flex: 1 }}
                />
              </div>
            )}
            <div className="form-row">
              <label htmlFor="lab-runs">Runs per cell</label>
              <input
                id="lab-runs"
                type="number"
                {...num('runs')}
                value={runs}
                onChange={(e) => setConfig({ ...config, runs: Number(e.target.value) })}
                style={{ width: 90 }}
                data-testid="lab-runs"
              />
              <span
                className={hint?.enough ? 'muted' : 'warn-text'}
                data-testid="lab-min-p"
                title="Exact two-sided Mann-Whitney U: 2 / C(2n, n) for n runs in each of two cells"
              >
                {hint ? hint.text : `whole number from ${LAB_LIMITS.runs.min} to ${LAB_LIMITS.runs.max}`}
              </span>
            </div>
            <h3>Cells</h3>
            <div className="cells-grid">
              {options.cells.map((c) => (
                <label
                  key={c.id}
                  title={`proxy ${c.settings.proxy ? 'on' : 'off'}, HTTP/2 ${c.settings.http2 ? 'on' : 'off'}, interception ${c.settings.intercept ? 'on' : 'off'}, Nagle ${c.settings.nagle ? 'on' : 'off'}`}
                >
                  <input type="checkbox" checked={cells.includes(c.id)} onChange={() => toggleCell(c.id)} data-testid={`cell-${c.id}`} />
                  {c.id}
                </label>
              ))}
            </div>
            <VariantPicker
              variants={variants}
              problems={problems}
              noProxyCell={noProxyCell}
              error={variantError}
              onChange={(next) => {
                setVariants(next);
                setVariantError(undefined);
              }}
            />
            <div className="form-row" style={{ marginTop: 10 }}>
              <label htmlFor="lab-baseline">Baseline</label>
              <select
                id="lab-baseline"
                value={baseline ?? ''}
                disabled={!baseline}
                onChange={(e) => setConfig({ ...config, baseline: e.target.value as LabRunConfig['baseline'] })}
                data-testid="lab-baseline"
              >
                {baselineChoices(runCells).map((c) => (
                  <option key={c} value={c}>
                    {c === 'direct' ? 'direct cell with the same HTTP/2 setting' : c}
                  </option>
                ))}
                {!baseline && <option value="">tick a cell first</option>}
              </select>
            </div>
            <ul className="muted baseline-plan" data-testid="lab-baseline-plan">
              {plan.map((p) => (
                <li key={p.cell} className="mono" data-testid="lab-plan-cell" data-cell={p.cell}>
                  {p.cell}{' '}
                  {p.vs ? (
                    `→ compared with ${p.vs}`
                  ) : p.missing ? (
                    <span className="warn-text">→ not compared ({p.missing} is not ticked)</span>
                  ) : (
                    '— baseline'
                  )}
                  {p.cell.includes('~') && p.vs !== p.cell.slice(0, p.cell.indexOf('~')) && (
                    <span className="muted"> · its effect: vs {p.cell.slice(0, p.cell.indexOf('~'))}</span>
                  )}
                </li>
              ))}
            </ul>
            <div className="form-row" style={{ marginTop: 12 }}>
              <button
                className="btn primary"
                disabled={!options.available || running || starting || cells.length === 0 || !hint || problems.size > 0 || noProxyCell}
                onClick={start}
                data-testid="lab-run"
              >
                {starting ? 'Starting…' : 'Run'}
              </button>
              {running && (
                <button
                  className="btn danger"
                  onClick={() => api.cancelLab({ runId: run.runId }).catch((e) => toast.error(e))}
                  data-testid="lab-cancel"
                >
                  Cancel
                </button>
              )}
              <span className="muted">
                {runCells.length} cell{runCells.length === 1 ? '' : 's'} × {runs} runs = {runCells.length * runs} page loads
              </span>
            </div>
          </div>
          {status && !status.features.browser && (
            <div className="note">Chrome launch is not available in this build: the lab needs it.</div>
          )}
        </div>
        <div>
          {comparison && <LabCompare comparison={comparison} onClose={() => setComparison(undefined)} />}
          {running && (
            <div className="card" data-testid="lab-progress">
              <h2>Running…</h2>
              <div className="progress">
                <div style={{ width: `${run.total ? (run.completed / run.total) * 100 : 0}%` }} />
              </div>
              <p className="muted">
                {run.completed} / {run.total} page loads
                {run.progress?.type === 'warm-up' && ' · warming up the proxy (unmeasured loads)'}
                {run.progress?.type === 'run-start' && ` · now: ${run.progress.cell} (round ${run.progress.round + 1})`}
                {run.progress?.type === 'run-end' && !run.progress.run.ok && (
                  <span className="err"> · last run failed: {run.progress.run.error?.message}</span>
                )}
              </p>
            </div>
          )}
          {(run?.state === 'failed' || run?.state === 'cancelled') && (
            <div className={`note ${run.state === 'failed' ? 'error' : ''}`} style={{ margin: '0 0 12px' }} data-testid="lab-failed">
              {run.state === 'failed' ? 'The lab run failed: ' : ''}
              {run.error.message} [{run.error.code}]
            </div>
          )}
          {run && (run.state === 'done' || run.state === 'cancelled') && run.result ? (
            <LabResults
              runId={run.runId}
              result={run.result}
              onOpenProxySide={onOpenLabSession && ((file) => onOpenLabSession(run.runId, file))}
            />
          ) : (
            !running && (
              <div className="card empty" style={{ minHeight: 260 }} data-testid="lab-empty">
                <h2>{history.runs?.length ? 'No run open' : 'No lab run yet'}</h2>
                <p>
                  A run loads the page in a fresh headless Chrome again and again, once per cell and round, in a shuffled order. Results
                  compare each cell with its baseline: median, p95, ratio, and a Mann-Whitney test of whether the difference is real.
                </p>
              </div>
            )
          )}
        </div>
      </div>
      <LabHistory history={history} openRunId={run?.runId} onOpen={openRun} onCompare={compareRuns} />
    </div>
  );
}
