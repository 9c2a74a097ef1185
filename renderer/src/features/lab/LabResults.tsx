/**
 * Lab results: the comparison table, bar charts with spread (recharts), and the
 * waterfalls of the representative (median) run of two chosen cells, side by side.
 */
import { useEffect, useMemo, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Cell, ErrorBar, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { CellId, ExchangeSummary, LabResult, MetricName } from '../../../../proxy/src/api/contract';
import { api, errorMessage } from '../../api';
import { chartSeries, labTableRows, representativeRun } from '../../lib/lab-model';
import { formatMs, formatPValue, formatRatio } from '../../lib/format';
import { harToRows } from '../../../../proxy/src/api/har-row';
import { WaterfallChart, rowExtent } from '../waterfall/WaterfallChart';
import { useToasts } from '../../ui/Toasts';
import { minPValue, NOISY_CV } from '../../../../proxy/src/lab/limits';
import type { Verdict } from '../../../../proxy/src/lab/verdict';
import { exportLabReport } from './export-report';
import { Legend } from '../waterfall/WaterfallView';
import { isNaiveRelay } from '../../../../proxy/src/lab/cell-detail';
import { LabBreakdown, NaiveTag } from './LabBreakdown';

/** Fill of a naive-relay cell's bars: the pattern is defined once in LabResults (an SVG of its own). */
const NAIVE_FILL = 'url(#lab-naive-stripes)';

function MetricChart({ result, metric, title }: { result: LabResult; metric: MetricName; title: string }) {
  const data = useMemo(() => chartSeries(result, metric), [result, metric]);
  const naive = useMemo(() => new Set<string>(result.cells.filter(isNaiveRelay).map((c) => c.id)), [result]);
  return (
    <div className="chart-card" data-testid={`lab-chart-${metric}`}>
      <h4>
        {title} — median, bars show min…max{naive.size > 0 && <span className="muted"> · striped: naive relay</span>}
      </h4>
      <ResponsiveContainer width="100%" height={240}>
        <BarChart data={data} margin={{ top: 8, right: 8, bottom: 60, left: 8 }}>
          <CartesianGrid stroke="#3c4043" vertical={false} />
          <XAxis dataKey="cell" tick={{ fill: '#9aa0a6', fontSize: 10 }} angle={-20} textAnchor="end" interval={0} />
          <YAxis tick={{ fill: '#9aa0a6', fontSize: 10 }} unit=" ms" width={64} />
          <Tooltip contentStyle={{ background: '#303134', border: '1px solid #5f6368' }} formatter={(v) => formatMs(Number(v))} />
          <Bar dataKey="median" fill="#03a9f4" isAnimationActive={false}>
            {data.map((d) => (
              <Cell key={d.cell} fill={naive.has(d.cell) ? NAIVE_FILL : '#03a9f4'} data-naive={naive.has(d.cell) || undefined} />
            ))}
            <ErrorBar dataKey="spread" width={6} stroke="#e8eaed" />
          </Bar>
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

/** Representative run's browser HAR → rows shifted to start at 0, so two runs share one axis. */
function useRepresentativeRows(runId: string, result: LabResult, cell: CellId | undefined) {
  const [state, setState] = useState<{ rows?: ExchangeSummary[]; error?: string }>({});
  useEffect(() => {
    setState({});
    const c = result.cells.find((x) => x.id === cell);
    const rep = c && representativeRun(c);
    if (!c) return;
    if (!rep?.browserHar) {
      setState({ error: 'No successful run with a HAR in this cell.' });
      return;
    }
    let live = true;
    api.getLabHar({ runId, file: rep.browserHar }).then(
      (log) => {
        const rows = harToRows(log);
        const t0 = rows.reduce((m, r) => Math.min(m, r.startTime), Infinity);
        if (live) setState({ rows: rows.map((r) => ({ ...r, startTime: r.startTime - t0 })) });
      },
      (err) => live && setState({ error: errorMessage(err) }),
    );
    return () => {
      live = false;
    };
  }, [runId, result, cell]);
  return state;
}

/** Short in the table ("slower (large)": the baseline is in "Compared with"); the full sentence on hover. */
function VerdictText({ v, magnitude }: { v: Verdict; magnitude?: string }) {
  const short =
    v.kind === 'slower' || v.kind === 'faster'
      ? v.text.replace(/ than \S+ /, ' ')
      : v.kind === 'same'
        ? `not significant${magnitude ? ` (δ ${magnitude})` : ''}`
        : v.kind === 'none'
          ? 'no successful run'
          : v.kind === 'baseline'
            ? 'baseline'
            : 'not compared';
  const cls = v.kind === 'slower' ? 'sig' : v.kind === 'faster' ? 'ok-text' : 'muted';
  return (
    <span className={cls} title={v.text}>
      {v.kind === 'slower' || v.kind === 'faster' ? '● ' : ''}
      {short}
    </span>
  );
}

export function LabResults({
  runId,
  result,
  onOpenProxySide,
}: {
  runId: string;
  result: LabResult;
  /** Opens a run's proxy-side HAR (with its socket timeline) as a session in the Connections view. */
  onOpenProxySide?: (file: string) => void;
}) {
  const toast = useToasts();
  const exportReport = async () => {
    try {
      toast.show(`Report saved as ${await exportLabReport(runId)}`, 'ok');
    } catch (err) {
      toast.error(err, 'The report could not be written');
    }
  };
  const rows = useMemo(() => labTableRows(result), [result]);
  const anyFinished = result.cells.some((c) => c.runs.some((r) => r.ok));
  const [left, setLeft] = useState<CellId | undefined>(result.cells[0]?.id);
  const [right, setRight] = useState<CellId | undefined>(result.cells[1]?.id ?? result.cells[0]?.id);
  const a = useRepresentativeRows(runId, result, left);
  const b = useRepresentativeRows(runId, result, right);
  // One axis for both sides, so a longer load looks longer.
  const bounds = useMemo(() => {
    const all = [...(a.rows ?? []), ...(b.rows ?? [])];
    return all.length ? rowExtent(all) : undefined;
  }, [a.rows, b.rows]);

  return (
    <div data-testid="lab-results">
      <svg width="0" height="0" style={{ position: 'absolute' }} aria-hidden="true">
        <defs>
          <pattern id="lab-naive-stripes" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <rect width="6" height="6" fill="#03a9f4" />
            <rect width="2" height="6" fill="#e8eaed" />
          </pattern>
        </defs>
      </svg>
      <div className="card">
        <div className="form-row" style={{ justifyContent: 'space-between', marginTop: 0 }}>
          <h2 style={{ margin: 0 }}>
            Results{' '}
            <span className="muted" style={{ fontWeight: 'normal' }}>
              · {result.url} · {formatMs(result.durationMs)} · {result.startedAt.replace('T', ' ').slice(0, 19)}
            </span>
          </h2>
          <button
            className="btn"
            onClick={exportReport}
            data-testid="lab-export-report"
            title="One HTML file with the tables, charts, the median run's waterfalls and the machine: opens offline"
          >
            Export report
          </button>
        </div>
        <div style={{ overflowX: 'auto' }}>
          <table className="data lab-table" data-testid="lab-table">
            <thead>
              <tr>
                <th>Cell</th>
                <th className="num">Runs</th>
                <th>Compared with</th>
                <th className="num">Load median</th>
                <th className="num">Load p95</th>
                <th className="num">Ratio</th>
                <th className="num">p-value</th>
                <th>Load verdict</th>
                <th className="num">TTFB median</th>
                <th className="num">TTFB ratio</th>
                <th className="num">TTFB p</th>
                <th>TTFB verdict</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.cell} data-testid="lab-table-row" data-cell={r.cell}>
                  <td className="mono">
                    {r.cell}
                    {r.isBaseline && <span className="baseline-tag">baseline</span>}
                    {isNaiveRelay({ id: r.cell as CellId }) && <NaiveTag />}
                    {r.noisy && (
                      <span
                        className="baseline-tag noisy-tag"
                        data-testid="lab-noisy"
                        title={`Load-time coefficient of variation ${((r.cv ?? 0) * 100).toFixed(0)}%, above ${NOISY_CV * 100}%: its median moves a lot between runs, comparisons with it are shaky`}
                      >
                        noisy {((r.cv ?? 0) * 100).toFixed(0)}%
                      </span>
                    )}
                  </td>
                  <td className="num">
                    {r.runs - r.failures}/{r.runs}
                    {r.failures > 0 && <span className="err"> ({r.failures} failed)</span>}
                  </td>
                  <td className="mono muted">{r.baseline ?? (r.isBaseline ? '–' : 'not run')}</td>
                  <td className="num">{formatMs(r.median)}</td>
                  <td className="num">{formatMs(r.p95)}</td>
                  <td className="num">{r.ratio !== undefined ? formatRatio(r.ratio) : r.isBaseline ? '×1.00' : '–'}</td>
                  <td className="num">{formatPValue(r.p)}</td>
                  <td className="wrap" data-testid="lab-load-verdict">
                    <VerdictText v={r.loadVerdict} magnitude={r.magnitude} />
                  </td>
                  <td className="num">{formatMs(r.ttfbMedian)}</td>
                  <td className="num">{r.ttfbRatio !== undefined ? formatRatio(r.ttfbRatio) : r.isBaseline ? '×1.00' : '–'}</td>
                  <td className="num">{formatPValue(r.ttfbP)}</td>
                  <td className="wrap" data-testid="lab-ttfb-verdict">
                    <VerdictText v={r.ttfbVerdict} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p className="muted" style={{ marginBottom: 0 }}>
          Ratio = this cell's median / its baseline's ("Compared with"). Verdicts: two-sided Mann-Whitney U, significant when p &lt;{' '}
          {result.config.alpha}; with {result.config.runs} runs per cell the smallest possible p is{' '}
          {formatPValue(minPValue(result.config.runs))}. TTFB = each run's median time to first byte. Noisy = load-time CV above{' '}
          {NOISY_CV * 100}%.
        </p>
      </div>
      {!anyFinished ? (
        <div className="note info" data-testid="lab-no-runs">
          No page load finished, so there is nothing to chart or compare yet.
        </div>
      ) : (
        <>
          <div className="charts">
            <MetricChart result={result} metric="loadMs" title="Page load time" />
            <MetricChart result={result} metric="ttfbMedianMs" title="TTFB (median per run)" />
          </div>
          <LabBreakdown result={result} />
          <div className="card" style={{ marginTop: 14 }}>
            <h2>Representative runs side by side</h2>
            <div className="toolbar" style={{ background: 'none', border: 0, padding: '0 0 8px' }}>
              <Legend />
            </div>
            <div className="side-by-side">
              {(
                [
                  [left, setLeft, a],
                  [right, setRight, b],
                ] as const
              ).map(([cell, setCell, data], i) => (
                <div key={i}>
                  <div className="form-row">
                    <select value={cell} onChange={(e) => setCell(e.target.value as CellId)} data-testid={`lab-compare-${i}`}>
                      {result.cells.map((c) => (
                        <option key={c.id}>{c.id}</option>
                      ))}
                    </select>
                    <span className="muted">median run</span>
                    {(() => {
                      const found = result.cells.find((c) => c.id === cell);
                      const proxyHar = found && representativeRun(found)?.proxyHar;
                      return proxyHar && onOpenProxySide ? (
                        <button
                          className="btn"
                          style={{ marginLeft: 'auto' }}
                          data-testid={`lab-open-connections-${i}`}
                          title="Opens this run's proxy-side HAR as a session: its sockets, writes, reads and stalls in Connections"
                          onClick={() => onOpenProxySide(proxyHar)}
                        >
                          Connections
                        </button>
                      ) : null;
                    })()}
                  </div>
                  <div className="wf-box">
                    {data.error ? (
                      <div className="note error">{data.error}</div>
                    ) : !data.rows ? (
                      <div className="empty">
                        <div className="spinner" />
                      </div>
                    ) : (
                      <WaterfallChart rows={data.rows} nameWidth={170} testid={`lab-wf-${i}`} bounds={bounds} />
                    )}
                  </div>
                </div>
              ))}
            </div>
          </div>
        </>
      )}
    </div>
  );
}
