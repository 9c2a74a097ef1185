/**
 * Per cell: Nagle/delayed-ACK stalls per run and where the browser's time went (queue,
 * client leg, proxy, upstream, back) as a stacked bar; the same figures as the HTML report.
 */
import { useMemo } from 'react';
import type { LabResult } from '../../../../proxy/src/api/contract';
import { BREAKDOWN_SEGMENTS, browserPriorityText, NAIVE_RELAY_NOTE } from '../../../../proxy/src/lab/cell-detail';
import { formatMs } from '../../lib/format';
import { labDetailRows } from '../../lib/lab-detail';

/** The tag next to a naive-relay cell's name (the table and the charts stripe its bars). */
export function NaiveTag() {
  return (
    <span className="baseline-tag naive-tag" data-testid="lab-naive" title={NAIVE_RELAY_NOTE}>
      naive relay
    </span>
  );
}

/** Who used the CPU during the cell's loads (lab/cpu-use.ts), under the cell's breakdown. */
function CpuLine({ text }: { text: string }) {
  return (
    <div className="muted" style={{ whiteSpace: 'normal' }} data-testid="lab-cpu">
      CPU per load: {text}
    </div>
  );
}

export function LabBreakdown({ result }: { result: LabResult }) {
  const rows = useMemo(() => labDetailRows(result), [result]);
  const anyNaive = rows.some((r) => r.naive);
  return (
    <div className="card" style={{ marginTop: 14 }} data-testid="lab-breakdown">
      <h2>Stalls and where the browser’s time went</h2>
      <div className="legend" data-testid="lab-breakdown-legend" style={{ marginBottom: 6 }}>
        {BREAKDOWN_SEGMENTS.map((s) => (
          <span key={s.part}>
            <span className="swatch" style={{ background: s.color }} />
            {s.label}
          </span>
        ))}
        {anyNaive && (
          <span title={NAIVE_RELAY_NOTE}>
            <span className="swatch naive-stripes" style={{ background: '#5f6368' }} />
            striped: naive relay
          </span>
        )}
      </div>
      <div style={{ overflowX: 'auto' }}>
        <table className="data lab-breakdown-table" data-testid="lab-breakdown-table">
          <thead>
            <tr>
              <th>Cell</th>
              <th className="num">Stalls per run</th>
              <th className="num">Stalled (wall clock)</th>
              <th style={{ width: '100%' }}>Breakdown of the median request</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.cell} data-testid="lab-breakdown-row" data-breakdown-cell={r.cell}>
                <td className="mono">
                  {r.cell}
                  {r.naive && <NaiveTag />}
                </td>
                <td className="num" data-testid="lab-stalls">
                  {r.stalls ?? '–'}
                </td>
                <td className="num" data-testid="lab-stalled">
                  {r.stalledMs === 0 ? '0 ms' : formatMs(r.stalledMs)}
                </td>
                {r.segments ? (
                  <td className="stack-cell" data-testid="lab-breakdown-bar">
                    <div className={`stack${r.naive ? ' naive-stripes' : ''}`} style={{ width: `${r.barPct}%` }}>
                      {r.segments.map((s) => (
                        <div
                          key={s.part}
                          data-part={s.part}
                          style={{ width: `${s.widthPct}%`, background: s.color }}
                          title={`${s.label}: ${formatMs(s.ms)}`}
                        />
                      ))}
                    </div>
                    <div className="stack-values muted">
                      <span data-testid="lab-breakdown-values">{r.segments.map((s) => `${s.label} ${formatMs(s.ms)}`).join(' · ')}</span>
                      {` — sum ${formatMs(r.total)}; requests matched: ${r.matched}`}
                    </div>
                    {r.cpu && <CpuLine text={r.cpu} />}
                  </td>
                ) : (
                  <td className="wrap muted">
                    <span data-testid="lab-no-breakdown">{r.missing}</span>
                    {r.cpu && <CpuLine text={r.cpu} />}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="muted" style={{ marginBottom: 0 }}>
        Stalls = Nagle/delayed-ACK stalls the proxy’s socket timeline flagged in a run: median per run (fewest–most). Stalled (wall clock) =
        median per run of the time during which at least one connection was stalled; stalls on parallel connections that overlap count once.
        The breakdown cuts each matched request’s browser time into five parts; each part is the median over the cell’s aligned runs of the
        run’s median, so their sum is close to, not exactly, a median request’s time. CPU per load (Linux) = median per run of the time each
        process spent on a core from navigation to network quiet, and how long its main thread (all of the browser’s threads) waited
        runnable for one: a proxy that waited longer than it ran measured the machine’s contention as much as itself. This run:{' '}
        <span data-testid="lab-browser-priority">{browserPriorityText(result)}</span> (the lab lowers the browser’s priority by default, so
        the proxy and the test site, which stand in for a network and servers elsewhere, do not queue behind it;{' '}
        <code>--browser-nice 0</code> in the CLI keeps the normal one).
      </p>
    </div>
  );
}
