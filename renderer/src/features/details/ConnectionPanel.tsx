/**
 * Details → Connection: the connections this request used (client and upstream leg),
 * the requests before and after it on each, its writes and reads next to theirs, and
 * its stalls with the explanation.
 */
import { useEffect, useMemo, useState } from 'react';
import type { ConnectionsView, ExchangeSummary } from '../../../../proxy/src/api/contract';
import { errorMessage } from '../../api';
import { connectionsExtent, focusView, neighboursOf, orderLanes, stallLabel } from '../../lib/connections';
import { displayName } from '../../lib/format';
import { LaneChart } from '../connections/LaneChart';
import { StallList } from '../connections/StallList';
import type { ExchangeSource } from './source';

interface Props {
  row: ExchangeSummary;
  source: ExchangeSource;
  rowsById: ReadonlyMap<string, ExchangeSummary>;
  onSelect?(id: string): void;
}

function RowLink({ id, rowsById, onSelect }: { id: string; rowsById: ReadonlyMap<string, ExchangeSummary>; onSelect?(id: string): void }) {
  const r = rowsById.get(id);
  return (
    <button className="link" onClick={() => onSelect?.(id)} data-testid="neighbour-link">
      {r ? `${r.method} ${displayName(r.url)}` : id}
    </button>
  );
}

export function ConnectionPanel({ row, source, rowsById, onSelect }: Props) {
  const [view, setView] = useState<ConnectionsView>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let live = true;
    setError(undefined);
    source.connections(row.id).then(
      (v) => live && setView(v),
      (err) => live && setError(errorMessage(err)),
    );
    return () => {
      live = false;
    };
  }, [row.id, row.state, source]);

  const lanes = useMemo(() => (view ? orderLanes(view.connections) : []), [view]);
  const near = useMemo(() => neighboursOf(lanes, row.id), [lanes, row.id]);
  // The chart shows this request and its neighbours only: a keep-alive connection can carry hundreds.
  const focus = useMemo(() => {
    if (!view) return undefined;
    const ids = new Set([row.id, ...near.flatMap((n) => [n.previous, n.next]).filter((x): x is string => !!x)]);
    const v = focusView(view, ids);
    return { view: v, range: connectionsExtent(v, rowsById) };
  }, [view, near, row.id, rowsById]);

  if (row.state === 'pending')
    return <div className="note info">The request is still in flight: its connection is shown once it finishes.</div>;
  if (error) return <div className="note error">Could not load the connection: {error}</div>;
  if (!view || !focus) {
    return (
      <div className="empty">
        <div className="spinner" />
      </div>
    );
  }
  if (lanes.length === 0) {
    return (
      <div className="note info" data-testid="connection-none">
        {view.note ??
          'No socket events were recorded for this request (HTTP/2 sessions write from C++, where the timeline cannot see them).'}
      </div>
    );
  }
  const mine = view.stalls.filter((s) => s.exchangeId === row.id);
  const mineMs = mine.reduce((n, s) => n + s.ms, 0);
  return (
    <div data-testid="connection-panel">
      <div className="kv" style={{ paddingTop: 8 }}>
        {near.map(({ lane, index, previous, next }) => (
          <div key={lane.id} style={{ display: 'contents' }}>
            <span className="k plain">
              {lane.leg === 'client' ? 'Client leg' : 'Upstream leg'} <b>{lane.id}</b>
            </span>
            <span className="v" data-testid="connection-leg">
              {index >= 0 ? `request ${index + 1} of ${lane.exchanges.length} on it` : `${lane.exchanges.length} requests on it`}
              {previous && (
                <>
                  {' · after '}
                  <RowLink id={previous} rowsById={rowsById} onSelect={onSelect} />
                </>
              )}
              {next && (
                <>
                  {' · before '}
                  <RowLink id={next} rowsById={rowsById} onSelect={onSelect} />
                </>
              )}
            </span>
          </div>
        ))}
        <span className="k plain">Stalls</span>
        <span className="v" data-testid="connection-stalls">
          {mine.length ? <b className="err">{stallLabel({ count: mine.length, ms: mineMs })}</b> : 'none detected'}
        </span>
      </div>
      {focus.range && (
        <div className="cx-mini">
          <LaneChart
            view={focus.view}
            lanes={lanes.map((l) => focus.view.connections.find((c) => c.id === l.id)!)}
            rowsById={rowsById}
            range={focus.range}
            origin={focus.range.start}
            nameWidth={150}
            selectedId={row.id}
            onSelect={onSelect}
            testid="connection-chart"
          />
        </div>
      )}
      {mine.length > 0 && (
        <StallList stalls={mine} rowsById={rowsById} origin={focus.range?.start ?? 0} timeOrigin={view.timeOrigin} onSelectRow={onSelect} />
      )}
    </div>
  );
}
