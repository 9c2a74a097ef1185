/**
 * Sessions → Serve: the form (port, what unmatched requests get), then the
 * replay server's address and live counts (pushed as `replay-server` events),
 * with Stop. After a stop it keeps the final counts.
 */
import { useState } from 'react';
import type { ReplayServerStatus } from '../../../../proxy/src/api/contract';
import { plural } from '../../lib/format';

interface Props {
  status: ReplayServerStatus;
  stopping: boolean;
  onStop(): void;
  onDismiss(): void;
}

const POLICY: Record<ReplayServerStatus['extra'], string> = {
  forward: 'go to the network',
  '404': 'are answered 404',
  kill: 'have their connection closed',
};

export function ServePanel({ status: s, stopping, onStop, onDismiss }: Props) {
  const unmatched = s.unmatched.forward + s.unmatched['404'] + s.unmatched.kill;
  return (
    <div className="card" data-testid="serve-panel">
      <div style={{ display: 'flex', alignItems: 'center', gap: 8, marginBottom: 6 }}>
        <b>
          {s.running ? 'Serving' : 'Served'} "{s.session?.name}"
        </b>
        {s.running && s.address && (
          <>
            <span className="muted">on</span>
            <code className="mono" data-testid="serve-address" style={{ userSelect: 'all' }}>
              {s.address.url}
            </code>
            <button
              className="btn small ghost"
              onClick={() => void navigator.clipboard?.writeText(s.address!.url)}
              title="Copy the address"
            >
              Copy
            </button>
          </>
        )}
        {!s.running && <span className="muted">(stopped)</span>}
        <div className="spacer" />
        {s.running ? (
          <button className="btn small" onClick={onStop} disabled={stopping} data-testid="serve-stop">
            {stopping ? 'Stopping…' : 'Stop'}
          </button>
        ) : (
          <button className="btn small ghost" onClick={onDismiss} data-testid="serve-dismiss">
            Close
          </button>
        )}
      </div>
      <div style={{ display: 'flex', gap: 16, flexWrap: 'wrap' }} data-testid="serve-counts">
        <span>
          <b data-testid="serve-served">{s.served.toLocaleString()}</b> served from the recording
          {s.reused ? ` (${s.reused.toLocaleString()} repeated)` : ''}
        </span>
        <span>
          <b data-testid="serve-unmatched" className={unmatched ? 'warn-text' : undefined}>
            {unmatched.toLocaleString()}
          </b>{' '}
          unmatched ({s.extra === 'forward' ? 'forwarded' : s.extra === '404' ? 'answered 404' : 'killed'})
        </span>
        <span className="muted">
          {s.unused.toLocaleString()} of {plural(s.recorded, 'recorded response')} not served yet
        </span>
      </div>
      {s.running && (
        <p className="muted" style={{ margin: '6px 0 0' }}>
          Point a browser or <code className="mono">curl -x {s.address?.url}</code> at this address (HTTPS needs the Netlens CA, as for the
          proxy). Requests not in the recording {POLICY[s.extra]}. One replay server runs at a time: stop this one to serve another session.
        </p>
      )}
      {s.unmatchedRequests.length > 0 && (
        <details style={{ marginTop: 6 }}>
          <summary className="muted">
            Unmatched requests{unmatched > s.unmatchedRequests.length ? ` (first ${s.unmatchedRequests.length})` : ''}
          </summary>
          <ul className="mono" style={{ margin: '4px 0 0', paddingLeft: 18 }} data-testid="serve-unmatched-list">
            {s.unmatchedRequests.map((u, i) => (
              <li key={i} style={{ wordBreak: 'break-all' }}>
                {u.method} {u.url}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

interface FormProps {
  name: string;
  busy: boolean;
  onStart(options: { port: number; extra: ReplayServerStatus['extra'] }): void;
  onCancel(): void;
}

/** Before Serve starts: which port (empty = any free port) and what unmatched requests get. */
export function ServeForm({ name, busy, onStart, onCancel }: FormProps) {
  const [port, setPort] = useState('');
  const [extra, setExtra] = useState<ReplayServerStatus['extra']>('forward');
  const n = port.trim() === '' ? 0 : Number(port);
  const valid = Number.isInteger(n) && n >= 0 && n <= 65535;
  return (
    <form
      className="card"
      data-testid="serve-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (valid) onStart({ port: n, extra });
      }}
    >
      <b>Serve "{name}"</b>
      <span className="muted">
        {' '}
        — a replay proxy that answers from the recording, beside the capture proxy. One replay server runs at a time.
      </span>
      <div className="form-row">
        <label htmlFor="serve-port">Port</label>
        <input
          id="serve-port"
          type="text"
          inputMode="numeric"
          placeholder="any free port"
          value={port}
          onChange={(e) => setPort(e.target.value)}
          data-testid="serve-port"
        />
        {!valid && <span className="err">a whole number 0–65535, or empty</span>}
      </div>
      <div className="form-row">
        <label htmlFor="serve-extra">Not recorded</label>
        <select
          id="serve-extra"
          value={extra}
          onChange={(e) => setExtra(e.target.value as ReplayServerStatus['extra'])}
          data-testid="serve-extra"
        >
          <option value="forward">forward to the network</option>
          <option value="404">answer 404 (offline)</option>
          <option value="kill">close the connection</option>
        </select>
      </div>
      <div style={{ display: 'flex', gap: 6 }}>
        <button className="btn primary small" type="submit" disabled={!valid || busy} data-testid="serve-start">
          {busy ? 'Starting…' : 'Start serving'}
        </button>
        <button className="btn small ghost" type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
