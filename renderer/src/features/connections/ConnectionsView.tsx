/**
 * The Connections view: every connection the proxy owned (client and upstream legs)
 * as a lane on one time axis, writes and reads as ticks, exchanges as phase-coloured
 * bars, stalls highlighted and listed with their explanation.
 */
import { useEffect, useMemo, useState } from 'react';
import type { ExchangeSummary, StallInfo } from '../../../../proxy/src/api/contract';
import { connectionsExtent, orderLanes, stallLabel } from '../../lib/connections';
import { formatMs, plural } from '../../lib/format';
import { zoomRange, type TimeRange } from '../../lib/time-scale';
import { Legend } from '../waterfall/WaterfallView';
import { LaneChart } from './LaneChart';
import { H2_NOTE, READ_COLOR, WRITE_COLOR } from './LaneRow';
import { StallList } from './StallList';
import type { ConnectionsState } from './useConnections';

interface Props {
  state: ConnectionsState;
  rows: ExchangeSummary[];
  selectedId?: string;
  onSelect(id: string): void;
  onShowDetails(): void;
}

export function ConnectionsView({ state, rows, selectedId, onSelect, onShowDetails }: Props) {
  const { view, error } = state;
  const rowsById = useMemo(() => new Map(rows.map((r) => [r.id, r])), [rows]);
  const lanes = useMemo(() => (view ? orderLanes(view.connections) : []), [view]);
  const bounds = useMemo(() => (view ? connectionsExtent(view, rowsById) : undefined), [view, rowsById]);
  const [zoom, setZoom] = useState<TimeRange>();
  const [stall, setStall] = useState<StallInfo>();
  useEffect(() => setZoom(undefined), [bounds?.start]);

  if (error) return <div className="note error">Could not load the connections: {error}</div>;
  if (!view) {
    return (
      <div className="empty">
        <div className="spinner" />
      </div>
    );
  }
  if (!bounds || lanes.length === 0) {
    return (
      <div className="empty" data-testid="connections-empty">
        <h2>No connections to draw</h2>
        <p>{view.note ?? 'Send traffic through the proxy: every connection it opens becomes a lane with its writes and reads.'}</p>
      </div>
    );
  }
  const range = zoom ?? bounds;
  const center = (range.start + range.end) / 2;
  const zoomOut = () => {
    const z = zoomRange(range, center, 2, bounds);
    setZoom(z.end - z.start >= bounds.end - bounds.start - 1e-6 ? undefined : z);
  };
  const { totals } = view;
  return (
    <div className="cx-view" data-testid="connections-view">
      <div className="toolbar">
        <span data-testid="connections-summary">
          {plural(totals.connections, 'connection')} · {totals.events.toLocaleString()} socket events
          {totals.stalls > 0 ? (
            <b className="err"> · {stallLabel({ count: totals.stalls, ms: totals.stallMs })}</b>
          ) : (
            <span className="muted"> · no stalls</span>
          )}
        </span>
        <button className="btn small" onClick={() => setZoom(zoomRange(range, center, 0.5, bounds))} data-testid="cx-zoom-in">
          Zoom in
        </button>
        <button className="btn small" disabled={!zoom} onClick={zoomOut}>
          Zoom out
        </button>
        <button className="btn small" disabled={!zoom} onClick={() => setZoom(undefined)}>
          Reset
        </button>
        <span className="muted">
          {zoom
            ? `${formatMs(range.start - bounds.start)} – ${formatMs(range.end - bounds.start)}`
            : `whole range: ${formatMs(bounds.end - bounds.start)}`}
        </span>
        <div className="spacer" />
        <span className="legend">
          <span>
            <span className="swatch" style={{ background: WRITE_COLOR, width: 2 }} />
            write (above)
          </span>
          <span>
            <span className="swatch" style={{ background: READ_COLOR, width: 2 }} />
            read (below)
          </span>
          <span>
            <span className="swatch cx-stall-swatch" />
            stall
          </span>
          {view.connections.some((c) => c.framing === 'h2') && (
            <span data-testid="legend-h2" title={H2_NOTE}>
              <span className="cx-h2-badge">HTTP/2 frames</span> lane: frames handed to / from nghttp2, not socket writes
            </span>
          )}
        </span>
        <Legend />
      </div>
      {(totals.eventsShown < totals.events || view.connectionsOmitted > 0 || view.recorderDropped > 0) && (
        <div className="note" data-testid="connections-cut">
          Showing {totals.eventsShown.toLocaleString()} of {totals.events.toLocaleString()} socket events
          {view.connectionsOmitted > 0 &&
            ` and ${(totals.connections - view.connectionsOmitted).toLocaleString()} of ${totals.connections.toLocaleString()} connections`}
          {view.recorderDropped > 0 && `; the recorder dropped ${view.recorderDropped.toLocaleString()} more at its memory cap`}. Stalls are
          counted on every event.
        </div>
      )}
      <LaneChart
        view={view}
        lanes={lanes}
        rowsById={rowsById}
        range={range}
        origin={bounds.start}
        selectedId={selectedId}
        selectedStall={stall}
        onSelect={onSelect}
        onSelectStall={setStall}
      />
      <div className="cx-foot">
        {selectedId && (
          <div className="toolbar">
            <span className="muted">Selected request:</span>
            <button className="btn small" onClick={onShowDetails} data-testid="cx-show-details">
              Show details in Traffic
            </button>
          </div>
        )}
        {view.stalls.length > 0 && (
          <StallList
            stalls={view.stalls}
            rowsById={rowsById}
            origin={bounds.start}
            timeOrigin={view.timeOrigin}
            selected={stall}
            onSelect={setStall}
            onSelectRow={onSelect}
          />
        )}
      </div>
    </div>
  );
}
