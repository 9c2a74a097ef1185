/** Waterfall of the current capture or session (the Traffic filter applies), with zoom. */
import { useEffect, useMemo, useState } from 'react';
import type { ExchangeSummary } from '../../../../proxy/src/api/contract';
import { formatMs } from '../../lib/format';
import { PHASES, PHASE_COLORS, PHASE_LABELS } from '../../lib/phases';
import { zoomRange, type TimeRange } from '../../lib/time-scale';
import { WaterfallChart, rowExtent, type Marker } from './WaterfallChart';

interface Props {
  rows: ExchangeSummary[];
  total: number;
  markers?: Marker[];
  /** Stall count and time per row id (getConnections): stalled rows get a marker. */
  stalls?: Record<string, { count: number; ms: number }>;
  selectedId?: string;
  onSelect(id: string): void;
  onShowDetails(): void;
}

export function Legend() {
  return (
    <div className="legend">
      {PHASES.map((p) => (
        <span key={p}>
          <span className="swatch" style={{ background: PHASE_COLORS[p] }} />
          {PHASE_LABELS[p]}
        </span>
      ))}
    </div>
  );
}

export function WaterfallView({ rows, total, markers, stalls, selectedId, onSelect, onShowDetails }: Props) {
  const [zoom, setZoom] = useState<TimeRange>();
  const sorted = useMemo(() => [...rows].sort((a, b) => a.startTime - b.startTime), [rows]);
  const bounds = useMemo(() => rowExtent(sorted), [sorted]);
  useEffect(() => setZoom(undefined), [bounds.start]);

  if (rows.length === 0) {
    return (
      <div className="empty" data-testid="waterfall-empty">
        <h2>Nothing to draw yet</h2>
        <p>
          {total > 0
            ? 'The Traffic filter hides every request.'
            : 'Capture some traffic or open a session: every request becomes one row on a shared time axis.'}
        </p>
      </div>
    );
  }
  const range = zoom ?? bounds;
  const center = (range.start + range.end) / 2;
  return (
    <>
      <div className="toolbar">
        <button className="btn small" onClick={() => setZoom(zoomRange(range, center, 0.5, bounds))} data-testid="zoom-in">
          Zoom in
        </button>
        <button
          className="btn small"
          disabled={!zoom}
          onClick={() => {
            const z = zoomRange(range, center, 2, bounds);
            setZoom(z.end - z.start >= bounds.end - bounds.start - 1e-6 ? undefined : z);
          }}
        >
          Zoom out
        </button>
        <button className="btn small" disabled={!zoom} onClick={() => setZoom(undefined)} data-testid="zoom-reset">
          Reset
        </button>
        <span className="muted" data-testid="waterfall-range">
          {zoom
            ? `${formatMs(range.start - bounds.start)} – ${formatMs(range.end - bounds.start)} of ${formatMs(bounds.end - bounds.start)}`
            : `whole range: ${formatMs(bounds.end - bounds.start)}`}
        </span>
        <span className="muted">· drag across the timeline to zoom, Ctrl+wheel to zoom around the pointer</span>
        <div className="spacer" />
        <Legend />
        {markers?.map((m) => (
          <span key={m.label} className="muted" style={{ fontSize: 11, marginLeft: 6 }}>
            <span className="swatch" style={{ background: m.color, width: 3 }} />
            {m.label}
          </span>
        ))}
      </div>
      <WaterfallChart
        rows={sorted}
        stalls={stalls}
        selectedId={selectedId}
        onSelect={onSelect}
        zoom={zoom}
        onZoom={setZoom}
        bounds={bounds}
        markers={markers}
      />
      {selectedId && (
        <div className="toolbar" style={{ borderTop: '1px solid var(--border)' }}>
          <span className="muted">Selected request:</span>
          <button className="btn small" onClick={onShowDetails}>
            Show details in Traffic
          </button>
        </div>
      )}
    </>
  );
}
