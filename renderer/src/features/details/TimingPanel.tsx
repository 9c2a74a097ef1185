/** Timing tab: each HAR phase as a bar on the exchange's own time axis, with numbers. */
import type { ExchangeDetail, ExchangeSummary } from '../../../../proxy/src/api/contract';
import { formatMs } from '../../lib/format';
import { PHASE_COLORS, PHASE_LABELS, phaseSegments, phaseTotal } from '../../lib/phases';

export function TimingPanel({ row, detail }: { row: ExchangeSummary; detail?: ExchangeDetail }) {
  if (!row.timings) {
    return (
      <div className="empty">
        <p>
          {row.state === 'pending'
            ? 'Still in flight: timings appear when the exchange completes.'
            : 'No timings were recorded for this exchange.'}
        </p>
      </div>
    );
  }
  const segs = phaseSegments(row.timings);
  const total = Math.max(phaseTotal(row.timings), 0.001);
  const ct = detail?.clientTimings;
  return (
    <div data-testid="timing-panel">
      <table className="timing-table">
        <tbody>
          {segs.map((s) => (
            <tr key={s.phase}>
              <td className="label">
                <span className="swatch" style={{ background: PHASE_COLORS[s.phase] }} />
                {PHASE_LABELS[s.phase]}
              </td>
              <td>
                <div className="track">
                  <div
                    className="bar"
                    style={{
                      left: `${(s.start / total) * 100}%`,
                      width: `${((s.end - s.start) / total) * 100}%`,
                      background: PHASE_COLORS[s.phase],
                    }}
                  />
                </div>
              </td>
              <td className="val">{formatMs(s.end - s.start)}</td>
            </tr>
          ))}
          <tr className="total">
            <td className="label">Total (upstream phases)</td>
            <td />
            <td className="val">{formatMs(total)}</td>
          </tr>
        </tbody>
      </table>
      {segs.length === 0 && <div className="note info">All phases were zero or not applicable.</div>}
      {ct && (
        <>
          <div className="section-title" style={{ cursor: 'default' }}>
            Client leg (browser ↔ proxy)
          </div>
          <div className="kv">
            <span className="k plain">Request body received</span>
            <span className="v">{formatMs(ct.receiveRequest)}</span>
            <span className="k plain">Proxy overhead</span>
            <span className="v">{formatMs(ct.proxyOverhead)}</span>
            <span className="k plain">Response head relayed</span>
            <span className="v">{formatMs(ct.respond)}</span>
            <span className="k plain">Client-leg total</span>
            <span className="v">{formatMs(ct.total)}</span>
          </div>
        </>
      )}
      <div className="note info" style={{ marginTop: 12 }}>
        Phases follow HAR 1.2: SSL is part of the initial connection; a reused connection has no DNS, connection or SSL phase.
      </div>
    </div>
  );
}
