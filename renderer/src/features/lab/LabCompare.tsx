/** Two runs of the same target, cell by cell: medians, ratio (newer / older) and Mann-Whitney p, for load time and TTFB. */
import type { LabRunComparison } from '../../../../proxy/src/api/contract';
import { formatMs, formatPValue, formatRatio } from '../../lib/format';
import { comparisonVerdict } from '../../../../proxy/src/lab/verdict';

const when = (iso: string) => iso.replace('T', ' ').slice(0, 16);

export function LabCompare({ comparison: c, onClose }: { comparison: LabRunComparison; onClose(): void }) {
  return (
    <div className="card" data-testid="lab-run-compare">
      <div className="form-row" style={{ justifyContent: 'space-between' }}>
        <h2 style={{ margin: 0 }}>
          Run {when(c.b.startedAt)} vs run {when(c.a.startedAt)}{' '}
          <span className="muted" style={{ fontWeight: 'normal' }}>
            · {c.target}
          </span>
        </h2>
        <button className="btn" onClick={onClose} data-testid="lab-compare-close">
          Close
        </button>
      </div>
      <table className="data" data-testid="lab-compare-table">
        <thead>
          <tr>
            <th>Cell</th>
            <th>Metric</th>
            <th className="num">Older ({c.a.runs} runs)</th>
            <th className="num">Newer ({c.b.runs} runs)</th>
            <th className="num">Ratio</th>
            <th className="num">p-value</th>
            <th>Verdict</th>
          </tr>
        </thead>
        <tbody>
          {c.cells.flatMap((cell) =>
            cell.metrics.map((m, i) => {
              const v = comparisonVerdict(m.comparison);
              return (
                <tr key={`${cell.cell}-${m.metric}`} data-testid="lab-compare-row">
                  <td className="mono">{i === 0 ? cell.cell : ''}</td>
                  <td>{m.metric === 'loadMs' ? 'load time' : 'TTFB'}</td>
                  <td className="num">{formatMs(m.a)}</td>
                  <td className="num">{formatMs(m.b)}</td>
                  <td className="num">{formatRatio(m.comparison?.ratio)}</td>
                  <td className="num">{formatPValue(m.comparison?.p)}</td>
                  <td>
                    {!v ? (
                      <span className="muted">–</span>
                    ) : v.kind === 'same' ? (
                      <span className="muted">no significant change</span>
                    ) : (
                      <span className={v.kind === 'slower' ? 'sig' : 'ok-text'}>
                        {v.kind} ({m.comparison!.magnitude})
                      </span>
                    )}
                  </td>
                </tr>
              );
            }),
          )}
        </tbody>
      </table>
      {(c.onlyA.length > 0 || c.onlyB.length > 0) && (
        <p className="muted">
          {c.onlyA.length > 0 && `Only in the older run: ${c.onlyA.join(', ')}. `}
          {c.onlyB.length > 0 && `Only in the newer run: ${c.onlyB.join(', ')}.`}
        </p>
      )}
      <p className="muted" style={{ marginBottom: 0 }}>
        Ratio = newer median / older median; p = two-sided Mann-Whitney U of the newer runs against the older ones.
      </p>
    </div>
  );
}
