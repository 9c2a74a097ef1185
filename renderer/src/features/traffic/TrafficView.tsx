/** Traffic: filter bar, the request list, and the Details of the selected request. */
import { useCallback, useMemo, useState } from 'react';
import type { AppStatus, ExchangeSummary } from '../../../../proxy/src/api/contract';
import type { Dataset } from '../../lib/dataset';
import { api } from '../../api';
import { isFilterActive, type TrafficFilter } from '../../lib/filters';
import { plural } from '../../lib/format';
import { useToasts } from '../../ui/Toasts';
import { DetailsPane } from '../details/DetailsPane';
import type { ExchangeSource } from '../details/source';
import { FilterBar } from './FilterBar';
import { TrafficTable } from './TrafficTable';
import { RowMenu, type RowMenuAt } from './RowMenu';
import { downloadText } from '../sessions/download';
import { NameDialog } from '../../ui/NameDialog';

interface Props {
  dataset: Dataset;
  rows: ExchangeSummary[];
  filtered: ExchangeSummary[];
  filter: TrafficFilter;
  onFilter(f: TrafficFilter): void;
  selectedId?: string;
  onSelect(id: string | undefined): void;
  source: ExchangeSource;
  status?: AppStatus;
  onOpenSessions(): void;
}

function EmptyLive({ status, onOpenSessions }: { status?: AppStatus; onOpenSessions(): void }) {
  const p = status?.proxy;
  return (
    <div className="empty" data-testid="traffic-empty">
      <h2>No requests yet</h2>
      {p?.running ? (
        <>
          <p>
            The proxy listens on <code>{p.address?.url}</code>.{' '}
            {status?.features.display === false ? (
              // No display (a server, SSH): Launch browser cannot show a window here, so do not offer it as the way in.
              <>This machine has no display: point a browser on your desktop at it (trust the CA), or any client, e.g.</>
            ) : (
              <>
                Press <b>Launch browser</b> for a Chrome wired to it, or point any client at it, e.g.
              </>
            )}
          </p>
          <p>
            <code>
              curl -x {p.address?.url} {p.ca ? `--cacert "${p.ca.certPath}" ` : ''}https://example.com/
            </code>
          </p>
          <p>Requests appear here as they happen.</p>
        </>
      ) : (
        <p>
          {p?.error ? `The proxy is not running: ${p.error.message}` : 'The proxy is off.'} Start it from the top bar to capture traffic.
        </p>
      )}
      <p>
        Or open a saved session or a HAR file from another tool in{' '}
        <button className="btn small" onClick={onOpenSessions}>
          Sessions
        </button>
      </p>
    </div>
  );
}

export function TrafficView({ dataset, rows, filtered, filter, onFilter, selectedId, onSelect, source, status, onOpenSessions }: Props) {
  const toast = useToasts();
  const [saving, setSaving] = useState(false);
  const rowsById = useMemo(() => new Map(rows.map((r) => [r.id, r])), [rows]);
  const selected = selectedId ? (filtered.find((r) => r.id === selectedId) ?? rows.find((r) => r.id === selectedId)) : undefined;

  const [naming, setNaming] = useState(false);
  const [menu, setMenu] = useState<RowMenuAt>();
  const closeMenu = useCallback(() => setMenu(undefined), []);
  const openMenu = useCallback((row: ExchangeSummary, x: number, y: number) => setMenu({ row, x, y }), []);
  const save = async (name: string) => {
    setNaming(false);
    setSaving(true);
    try {
      const info = await api.saveSession({ name });
      toast.show(`Saved "${info.name}" (${plural(info.entryCount, 'request')})`, 'ok');
    } catch (err) {
      toast.error(err, 'Could not save the session');
    } finally {
      setSaving(false);
    }
  };
  const exportHar = async () => {
    try {
      const har = await api.exportHar(dataset.kind === 'session' ? { id: dataset.info.id } : {});
      downloadText(har.fileName, har.text, 'application/json');
    } catch (err) {
      toast.error(err, 'Could not export HAR');
    }
  };

  return (
    <>
      <FilterBar filter={filter} onChange={onFilter} rows={rows}>
        {dataset.kind === 'live' && (
          <>
            <button
              className="icon-btn"
              title="Clear the live capture"
              onClick={() =>
                api.clearExchanges().then(
                  () => onSelect(undefined),
                  (e) => toast.error(e),
                )
              }
              data-testid="clear"
            >
              ⊘ Clear
            </button>
            <button
              className="icon-btn"
              title="Save the live capture as a session"
              disabled={saving || rows.length === 0}
              onClick={() => setNaming(true)}
              data-testid="save-session"
            >
              ⤓ Save
            </button>
          </>
        )}
        <button className="icon-btn" title="Export as HAR 1.2" disabled={rows.length === 0} onClick={exportHar} data-testid="export-har">
          ⇩ HAR
        </button>
        <span className="sep" />
      </FilterBar>
      <div className="split">
        {rows.length === 0 ? (
          dataset.kind === 'live' ? (
            <EmptyLive status={status} onOpenSessions={onOpenSessions} />
          ) : (
            <div className="empty">
              <h2>This session has no requests</h2>
            </div>
          )
        ) : filtered.length === 0 && isFilterActive(filter) ? (
          <div className="empty" data-testid="traffic-filtered-empty">
            <h2>No request matches the filter</h2>
            <p>{rows.length === 1 ? 'The only request is hidden' : `${plural(rows.length, 'request')} are hidden`} by the filter.</p>
          </div>
        ) : (
          <TrafficTable rows={filtered} selectedId={selectedId} onSelect={onSelect} compact={Boolean(selected)} onRowMenu={openMenu} />
        )}
        {selected && (
          <DetailsPane
            key={`${source.key}:${selected.id}`}
            row={selected}
            source={source}
            onClose={() => onSelect(undefined)}
            rowsById={rowsById}
            onSelect={onSelect}
          />
        )}
      </div>
      {menu && <RowMenu at={menu} source={source} onClose={closeMenu} />}
      {naming && (
        <NameDialog
          title="Save the live capture as a session"
          initial={`Capture ${new Date().toLocaleString()}`}
          confirmLabel="Save"
          onConfirm={save}
          onCancel={() => setNaming(false)}
        />
      )}
    </>
  );
}
