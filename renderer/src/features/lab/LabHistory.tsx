/**
 * Past lab runs (`<data>/lab/<runId>/`): date, target, cells, runs, headline
 * verdicts; open, export, delete, and pick two runs of the same target to
 * compare. Damaged results are listed with the reason the core gave.
 */
import { useCallback, useEffect, useState } from 'react';
import type { LabHistoryEntry } from '../../../../proxy/src/api/contract';
import { api, errorMessage } from '../../api';
import { useToasts } from '../../ui/Toasts';
import { exportLabReport } from './export-report';
import { onLabFinished } from './lab-store';

export interface LabHistoryState {
  runs?: LabHistoryEntry[];
  running: string[];
  error?: string;
  reload(): Promise<void>;
}

/** The history, reloaded whenever a run finishes. */
export function useLabHistory(): LabHistoryState {
  const [state, setState] = useState<{ runs?: LabHistoryEntry[]; running: string[]; error?: string }>({ running: [] });
  const reload = useCallback(async () => {
    try {
      const r = await api.listLabRuns();
      setState({ runs: r.runs, running: r.running });
    } catch (err) {
      setState((s) => ({ ...s, error: errorMessage(err) }));
    }
  }, []);
  useEffect(() => {
    void reload();
    return onLabFinished(() => void reload());
  }, [reload]);
  return { ...state, reload };
}

const when = (iso: string) => iso.replace('T', ' ').slice(0, 16);

export function LabHistory({
  history,
  openRunId,
  onOpen,
  onCompare,
}: {
  history: LabHistoryState;
  openRunId?: string;
  onOpen(runId: string): void;
  onCompare(a: string, b: string): void;
}) {
  const toast = useToasts();
  const [picked, setPicked] = useState<string[]>([]);
  const runs = history.runs ?? [];
  const byId = new Map(runs.map((r) => [r.runId, r]));
  const pickedOk = picked.map((id) => byId.get(id)).filter((r): r is Extract<LabHistoryEntry, { state: 'ok' }> => r?.state === 'ok');
  const sameTarget = pickedOk.length === 2 && pickedOk[0]!.targetKey === pickedOk[1]!.targetKey;
  const toggle = (id: string) => setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p.slice(-1), id]));

  const remove = async (runId: string) => {
    if (!window.confirm(`Delete lab run ${runId} and its HAR files?`)) return;
    try {
      await api.deleteLabRun({ runId });
      setPicked((p) => p.filter((x) => x !== runId));
      await history.reload();
    } catch (err) {
      toast.error(err, 'The run could not be deleted');
    }
  };
  const exportRun = async (runId: string) => {
    try {
      toast.show(`Report saved as ${await exportLabReport(runId)}`, 'ok');
    } catch (err) {
      toast.error(err, 'The report could not be written');
    }
  };
  const compare = () => {
    // Older first: the comparison reads "newer vs older".
    const [a, b] = [...pickedOk].sort((x, y) => x.startedAt.localeCompare(y.startedAt));
    onCompare(a!.runId, b!.runId);
  };

  return (
    <div className="card" data-testid="lab-history">
      <h2>
        Past runs{' '}
        <span className="muted" style={{ fontWeight: 'normal' }}>
          · {runs.length} in the data directory
        </span>
      </h2>
      {history.error && <div className="note error">{history.error}</div>}
      {history.running
        .filter((id) => id !== openRunId)
        .map((id) => (
          <div className="form-row" key={id} data-testid="lab-history-running">
            <span className="mono">{id}</span> <span className="muted">is running</span>
            <button className="btn small" onClick={() => onOpen(id)}>
              Show progress
            </button>
          </div>
        ))}
      {history.runs && runs.length === 0 && (
        <p className="muted" data-testid="lab-history-empty">
          No finished run yet. Each run you start is kept here, also after a restart.
        </p>
      )}
      {runs.length > 0 && (
        <>
          <div className="form-row">
            <button className="btn" disabled={!sameTarget} onClick={compare} data-testid="lab-compare-runs">
              Compare selected
            </button>
            <span className="muted">
              {picked.length < 2
                ? 'Tick two runs of the same target to compare them cell by cell.'
                : sameTarget
                  ? 'Newer run against older.'
                  : 'These two runs loaded different targets.'}
            </span>
          </div>
          <table className="data history-table">
            <thead>
              <tr>
                <th />
                <th>Date</th>
                <th>Target</th>
                <th>Cells × runs</th>
                <th>Verdicts</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {runs.map((r) => (
                <tr
                  key={r.runId}
                  data-testid="lab-history-row"
                  data-run-id={r.runId}
                  className={r.runId === openRunId ? 'selected' : undefined}
                >
                  <td>
                    {r.state === 'ok' && (
                      <input
                        type="checkbox"
                        aria-label={`select run ${r.runId}`}
                        checked={picked.includes(r.runId)}
                        onChange={() => toggle(r.runId)}
                        data-testid="lab-history-pick"
                      />
                    )}
                  </td>
                  {r.state === 'ok' ? (
                    <>
                      <td className="mono">{when(r.startedAt)}</td>
                      <td className="wrap" title={r.target}>
                        {r.target}
                        {r.aborted && <span className="baseline-tag">cancelled</span>}
                      </td>
                      <td className="wrap mono" title={r.cells.join('\n')}>
                        {r.cells.length} × {r.runs}
                      </td>
                      <td className="wrap">
                        {r.headlines.length ? (
                          r.headlines.map((h) => <div key={h}>{h}</div>)
                        ) : (
                          <span className="muted">no significant difference</span>
                        )}
                        {r.noisyCells.length > 0 && <div className="warn-text">noisy: {r.noisyCells.join(', ')}</div>}
                      </td>
                      <td className="actions">
                        <div>
                          <button className="btn small" onClick={() => onOpen(r.runId)} data-testid="lab-history-open">
                            Open
                          </button>
                          <button className="btn small" onClick={() => exportRun(r.runId)} data-testid="lab-history-export">
                            Export
                          </button>
                          <button className="btn small danger" onClick={() => remove(r.runId)} data-testid="lab-history-delete">
                            Delete
                          </button>
                        </div>
                      </td>
                    </>
                  ) : (
                    <>
                      <td className="mono">{r.modifiedAt ? when(r.modifiedAt) : '–'}</td>
                      <td colSpan={3} className="wrap err" data-testid="lab-history-damaged">
                        Damaged: {r.reason}
                      </td>
                      <td className="actions">
                        <div>
                          <button className="btn small danger" onClick={() => remove(r.runId)} data-testid="lab-history-delete">
                            Delete
                          </button>
                        </div>
                      </td>
                    </>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </div>
  );
}
