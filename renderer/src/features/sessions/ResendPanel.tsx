/**
 * Sessions → Resend: one row per resent request, recording → now (status,
 * size, body, time), with filters for changed and failed requests.
 */
import { useState } from 'react';
import type { ResendReport, ResendRowInfo } from '../../../../proxy/src/api/contract';
import { formatBytes, formatMs, plural } from '../../lib/format';
import { bodyVerdict, filterResendRows, isChanged, isFailed, type ResendFilter } from '../../lib/resend-rows';

/** Rows drawn at once: a 5,000-request session stays responsive; the filters narrow it down. */
const MAX_SHOWN = 1000;

interface Props {
  report: ResendReport;
  onClose(): void;
}

function pair<T>(before: T, after: T | undefined, fmt: (v: T) => string, testId: string) {
  if (after === undefined) return <td className="num muted">{fmt(before)} → –</td>;
  if (before === after) return <td className="num">{fmt(after)}</td>;
  return (
    <td className="num warn-text" data-testid={testId}>
      {fmt(before)} → {fmt(after)}
    </td>
  );
}

function Row({ r }: { r: ResendRowInfo }) {
  const body = bodyVerdict(r);
  return (
    <tr data-testid="resend-row" data-changes={r.changes.join(' ')}>
      <td className="num muted">{r.index}</td>
      <td
        className="mono"
        style={{ maxWidth: 520, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}
        title={`${r.method} ${r.url}`}
      >
        {r.method} {r.url}
      </td>
      {pair(r.before.status, r.after?.status, String, 'resend-status-changed')}
      {pair(r.before.size, r.after?.size, formatBytes, 'resend-size-changed')}
      <td className={body === 'same' ? 'muted' : body === 'failed' ? 'err' : 'warn-text'}>
        {body === 'failed' ? <span title={r.error?.message}>{r.error?.code ?? 'failed'}</span> : body}
      </td>
      <td className={`num ${r.slower ? 'warn-text' : ''}`} title={r.slower ? 'More than twice as slow' : undefined}>
        {formatMs(r.before.time)} → {r.after ? formatMs(r.after.time) : '–'}
      </td>
    </tr>
  );
}

export function ResendPanel({ report, onClose }: Props) {
  const [filter, setFilter] = useState<ResendFilter>('all');
  const s = report.summary;
  const counts: Record<ResendFilter, number> = {
    all: s.total,
    changed: report.rows.filter(isChanged).length,
    failed: report.rows.filter(isFailed).length,
  };
  const shown = filterResendRows(report.rows, filter);
  const failedRow = report.rows.find(isFailed);
  return (
    <div className="card" data-testid="resend-panel">
      <div style={{ display: 'flex', alignItems: 'center', gap: 8, marginBottom: 6, flexWrap: 'wrap' }}>
        <b>Resent "{report.session.name}"</b>
        <span className="muted" data-testid="resend-summary">
          {plural(s.total, 'request')}{' '}
          {report.via === 'proxy' ? 'through the proxy (they are in the live capture)' : 'directly (the proxy is off)'}: {s.changed}{' '}
          changed, {s.failed} failed, {s.total - s.changed - s.failed} unchanged{s.slower ? `, ${s.slower} more than twice as slow` : ''}
        </span>
        <div className="spacer" />
        <div className="chips" role="group" aria-label="Show">
          {(['all', 'changed', 'failed'] as const).map((f) => (
            <button key={f} className={`chip ${filter === f ? 'on' : ''}`} onClick={() => setFilter(f)} data-testid={`resend-filter-${f}`}>
              {f === 'all' ? 'All' : f === 'changed' ? 'Changed' : 'Failed'} ({counts[f]})
            </button>
          ))}
        </div>
        <button className="btn small ghost" onClick={onClose} data-testid="resend-close">
          Close
        </button>
      </div>
      {failedRow?.error && (
        <div className="note error" style={{ margin: '0 0 6px' }}>
          {failedRow.error.code}: {failedRow.error.message}
          {s.failed > 1 ? ` (and ${s.failed - 1} more failed)` : ''}
        </div>
      )}
      {shown.length === 0 ? (
        <p className="muted" data-testid="resend-none">
          {filter === 'changed' ? 'No request changed: status, size and body are as recorded.' : 'No request failed.'}
        </p>
      ) : (
        <table className="data" data-testid="resend-table">
          <thead>
            <tr>
              <th className="num">#</th>
              <th>Request</th>
              <th className="num">Status</th>
              <th className="num">Size</th>
              <th>Body / error</th>
              <th className="num">Time (recorded → now)</th>
            </tr>
          </thead>
          <tbody>
            {shown.slice(0, MAX_SHOWN).map((r) => (
              <Row key={r.index} r={r} />
            ))}
          </tbody>
        </table>
      )}
      {shown.length > MAX_SHOWN && (
        <p className="muted">
          Showing the first {MAX_SHOWN.toLocaleString()} of {shown.length.toLocaleString()} rows: filter to see the others.
        </p>
      )}
    </div>
  );
}
