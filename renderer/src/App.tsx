/**
 * The app shell: top bar (views + proxy controls), the current view, status bar.
 *
 * State that several views share lives here: the live capture (rows upserted
 * from batched events), the opened session (a HAR shown in place of the live
 * capture), the filter and the selection.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { AppStatus, OpenedSession } from '../../proxy/src/api/contract';
import { api, type ConnectionState } from './api';
import { EMPTY_ROWS, mergeListed, upsertRows, type RowsState } from './lib/rows-store';
import { EMPTY_FILTER, filterRows, type TrafficFilter } from './lib/filters';
import { formatBytes, formatMs, plural } from './lib/format';
import { liveSource, sessionSource, type ExchangeSource } from './features/details/source';
import { ProxyBar } from './features/proxy/ProxyBar';
import { TrafficView } from './features/traffic/TrafficView';
import { WaterfallView } from './features/waterfall/WaterfallView';
import { ConnectionsView } from './features/connections/ConnectionsView';
import { useConnections } from './features/connections/useConnections';
import { LabView } from './features/lab/LabView';
import { SessionsView } from './features/sessions/SessionsView';
import { RulesView } from './features/rules/RulesView';
import { onRuleDraft, type RuleDraft } from './features/rules/draft';
import { useBreakpoints } from './features/breakpoints/useBreakpoints';
import { BreakpointsBadge } from './features/breakpoints/BreakpointsBadge';
import { BreakpointsPanel } from './features/breakpoints/BreakpointsPanel';
import { useToasts } from './ui/Toasts';
import type { Dataset } from './lib/dataset';

export type View = 'traffic' | 'waterfall' | 'connections' | 'lab' | 'sessions' | 'rules';

const VIEWS: Array<{ id: View; label: string }> = [
  { id: 'traffic', label: 'Traffic' },
  { id: 'waterfall', label: 'Waterfall' },
  { id: 'connections', label: 'Connections' },
  { id: 'lab', label: 'Lab' },
  { id: 'sessions', label: 'Sessions' },
  { id: 'rules', label: 'Rules' },
];

export function App() {
  const toast = useToasts();
  const [view, setView] = useState<View>('traffic');
  const [status, setStatus] = useState<AppStatus>();
  const [statusError, setStatusError] = useState<string>();
  const [live, setLive] = useState<RowsState>(EMPTY_ROWS);
  const [dataset, setDataset] = useState<Dataset>({ kind: 'live' });
  const [filter, setFilter] = useState<TrafficFilter>(EMPTY_FILTER);
  const [selectedId, setSelectedId] = useState<string>();
  const [connection, setConnection] = useState<ConnectionState>('connecting');
  const [sessionsVersion, setSessionsVersion] = useState(0);
  const [ruleDraft, setRuleDraft] = useState<RuleDraft>();
  const takeRuleDraft = useCallback(() => setRuleDraft(undefined), []);
  // "Mock this response" in Details: open Rules with the prefilled rule.
  useEffect(
    () =>
      onRuleDraft((d) => {
        setRuleDraft(d);
        setView('rules');
      }),
    [],
  );
  const paused = useBreakpoints();
  const [pausedOpen, setPausedOpen] = useState(false);
  // A new pause opens the queue: a breakpoint is something the user asked to handle now.
  const pausedCount = paused.length;
  useEffect(() => {
    if (pausedCount > 0) setPausedOpen(true);
  }, [pausedCount]);

  const refreshStatus = useCallback(
    () =>
      api.getStatus().then(
        (s) => {
          setStatus(s);
          setStatusError(undefined);
        },
        (err) => setStatusError(String((err as Error).message)),
      ),
    [],
  );

  useEffect(() => {
    void refreshStatus();
    const unsubscribe = api.subscribe((e) => {
      switch (e.type) {
        case 'exchanges':
          setLive((s) => upsertRows(s, e.items));
          break;
        case 'exchanges-cleared':
          setLive(EMPTY_ROWS);
          break;
        case 'proxy-status':
          setStatus((s) => (s ? { ...s, proxy: e.status } : s));
          break;
        case 'sessions-changed':
          setSessionsVersion((v) => v + 1);
          break;
        default:
          break;
      }
    });
    const offConn = api.onConnection((c) => {
      setConnection(c);
      // (Re)connected: reload the capture so nothing missed while away is lost.
      if (c === 'open') {
        api.listExchanges().then(
          (rows) => setLive((s) => mergeListed(s, rows)),
          () => undefined,
        );
      }
    });
    return () => {
      unsubscribe();
      offConn();
    };
  }, [refreshStatus]);

  const rows = dataset.kind === 'live' ? live.rows : dataset.rows;
  const filtered = useMemo(() => filterRows(rows, filter), [rows, filter]);
  // The socket timeline, while a view that draws it is open: fetched again as rows finish.
  const finished = useMemo(() => rows.reduce((n, r) => n + (r.state === 'pending' ? 0 : 1), 0), [rows]);
  const connections = useConnections(dataset, finished, view === 'waterfall' || view === 'connections');
  const source: ExchangeSource = useMemo(() => (dataset.kind === 'live' ? liveSource : sessionSource(dataset.info.id)), [dataset]);

  const openSession = useCallback(
    ({ info, rows, pages }: OpenedSession) => {
      setDataset({ kind: 'session', info, rows, pages });
      setSelectedId(undefined);
      setView('traffic');
      toast.show(`Opened "${info.name}": ${plural(rows.length, 'request')}`, 'ok');
    },
    [toast],
  );
  // A lab run's proxy side: stored as a session once (openLabSession), then shown in Connections.
  const openLabSession = useCallback(
    (runId: string, file: string) => {
      api
        .openLabSession({ runId, file })
        .then((info) => api.openSession({ id: info.id }))
        .then((opened) => {
          openSession(opened);
          setView('connections');
        })
        .catch((err: { message?: string }) => toast.show(`Cannot open the run's proxy side: ${err?.message ?? err}`, 'error'));
    },
    [openSession, toast],
  );
  // Menu actions from the Electron host arrive as window messages (electron/actions.ts):
  // "Lab → New run" and "open this session" after File → Open HAR… / Recent sessions.
  useEffect(() => {
    const onMessage = (e: MessageEvent) => {
      if (e.origin !== window.location.origin) return; // only our own page (the preload posts from it)
      const m = (e.data as { netlensMenu?: { action: string; id?: string } } | null)?.netlensMenu;
      if (m?.action === 'new-lab-run') setView('lab');
      if (m?.action === 'open-session' && m.id) {
        api
          .openSession({ id: m.id })
          .then(openSession)
          .catch((err: { message?: string }) => toast.show(`Cannot open the session: ${err?.message ?? err}`, 'error'));
      }
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [openSession, toast]);

  const backToLive = useCallback(() => {
    setDataset({ kind: 'live' });
    setSelectedId(undefined);
  }, []);

  // DOMContentLoaded and load of the session's first page (HAR pageTimings), drawn as in DevTools.
  const markers = useMemo(() => {
    const page = dataset.kind === 'session' ? dataset.pages[0] : undefined;
    const start = page ? Date.parse(page.startedDateTime) : NaN;
    if (!page || !Number.isFinite(start)) return undefined;
    const out = [];
    const t = page.pageTimings ?? {};
    if (typeof t.onContentLoad === 'number' && t.onContentLoad >= 0)
      out.push({ time: start + t.onContentLoad, color: '#4d90fe', label: `DOMContentLoaded ${formatMs(t.onContentLoad)}` });
    if (typeof t.onLoad === 'number' && t.onLoad >= 0)
      out.push({ time: start + t.onLoad, color: '#e8453c', label: `Load ${formatMs(t.onLoad)}` });
    return out;
  }, [dataset]);

  const transferred = useMemo(() => filtered.reduce((sum, r) => sum + (r.responseSize > 0 ? r.responseSize : 0), 0), [filtered]);
  const errors = useMemo(() => filtered.filter((r) => r.state === 'error').length, [filtered]);

  return (
    <div className="app">
      <header className="topbar">
        <div className="brand">
          <div className="brand-mark" />
          Netlens
        </div>
        <nav className="tabs" role="tablist">
          {VIEWS.map((v) => (
            <button
              key={v.id}
              role="tab"
              aria-selected={view === v.id}
              className={`tab ${view === v.id ? 'active' : ''}`}
              onClick={() => setView(v.id)}
              data-testid={`tab-${v.id}`}
            >
              {v.label}
              {v.id === 'traffic' && rows.length > 0 && <span className="count">{rows.length.toLocaleString()}</span>}
            </button>
          ))}
        </nav>
        <div className="spacer" />
        <BreakpointsBadge count={paused.length} open={pausedOpen} onToggle={() => setPausedOpen((o) => !o)} />
        <ProxyBar status={status} statusError={statusError} onStatus={setStatus} refresh={refreshStatus} />
      </header>
      <main className="main">
        {(view === 'traffic' || view === 'waterfall' || view === 'connections') && dataset.kind === 'session' && (
          <div className="source-banner" data-testid="session-banner">
            <span>
              Viewing session <b>{dataset.info.name}</b> · {plural(dataset.rows.length, 'request')} (
              {dataset.info.source === 'import' ? 'imported HAR' : dataset.info.source})
            </span>
            <div className="spacer" />
            <button className="btn small" onClick={backToLive}>
              Back to live capture
            </button>
          </div>
        )}
        {view === 'traffic' && (
          <TrafficView
            dataset={dataset}
            rows={rows}
            filtered={filtered}
            filter={filter}
            onFilter={setFilter}
            selectedId={selectedId}
            onSelect={setSelectedId}
            source={source}
            status={status}
            onOpenSessions={() => setView('sessions')}
          />
        )}
        {view === 'waterfall' && (
          <WaterfallView
            rows={filtered}
            total={rows.length}
            markers={markers}
            stalls={connections.view?.stallsByExchange}
            selectedId={selectedId}
            onSelect={setSelectedId}
            onShowDetails={() => setView('traffic')}
          />
        )}
        {view === 'connections' && (
          <ConnectionsView
            state={connections}
            rows={rows}
            selectedId={selectedId}
            onSelect={setSelectedId}
            onShowDetails={() => setView('traffic')}
          />
        )}
        {view === 'lab' && <LabView status={status} onOpenLabSession={openLabSession} />}
        {view === 'rules' && <RulesView draft={ruleDraft} onDraftTaken={takeRuleDraft} />}
        {view === 'sessions' && (
          <SessionsView
            version={sessionsVersion}
            onOpen={openSession}
            liveCount={live.rows.length}
            current={dataset.kind === 'session' ? dataset.info.id : undefined}
          />
        )}
        {pausedOpen && <BreakpointsPanel items={paused} onClose={() => setPausedOpen(false)} />}
      </main>
      <footer className="statusbar" data-testid="statusbar">
        <span>
          <b>{filtered.length.toLocaleString()}</b>
          {filtered.length !== rows.length ? ` / ${rows.length.toLocaleString()}` : ''} {rows.length === 1 ? 'request' : 'requests'}
        </span>
        <span>
          <b>{formatBytes(transferred)}</b> transferred
        </span>
        {errors > 0 && <span className="err">{errors} failed</span>}
        <span>{dataset.kind === 'live' ? 'Live capture' : `Session: ${dataset.info.name}`}</span>
        <div className="spacer" />
        <span title="Connection to the Netlens core">
          <span
            className={`dot ${connection === 'open' ? 'on' : connection === 'closed' ? 'bad' : ''}`}
            style={{ display: 'inline-block', marginRight: 5 }}
          />
          {connection === 'open' ? 'connected' : connection === 'closed' ? 'disconnected — retrying' : 'connecting…'}
        </span>
        {status && <span>v{status.version}</span>}
      </footer>
    </div>
  );
}
