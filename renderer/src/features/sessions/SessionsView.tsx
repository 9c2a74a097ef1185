/**
 * Sessions: saved captures and imported HAR files. Import by file picker or
 * drag-and-drop; open (shows it in Traffic and Waterfall), rename, export, delete;
 * Serve (a replay proxy answering from it) and Resend (its requests again, diffed).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { OpenedSession, SessionInfo } from '../../../../proxy/src/api/contract';
import { api, errorMessage } from '../../api';
import { formatBytes, plural } from '../../lib/format';
import { useToasts } from '../../ui/Toasts';
import { downloadText } from './download';
import { NameDialog } from '../../ui/NameDialog';
import { ServeForm, ServePanel } from './ServePanel';
import { ResendPanel } from './ResendPanel';
import { useReplay } from './useReplay';

interface Props {
  version: number;
  liveCount: number;
  current?: string;
  onOpen(session: OpenedSession): void;
}

export function SessionsView({ version, liveCount, current, onOpen }: Props) {
  const toast = useToasts();
  const [sessions, setSessions] = useState<SessionInfo[]>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState<string>();
  const [over, setOver] = useState(false);
  const [renaming, setRenaming] = useState<{ id: string; name: string }>();
  const fileRef = useRef<HTMLInputElement>(null);
  const replay = useReplay(toast);
  const served = replay.serve?.running ? replay.serve.session : undefined;

  const load = useCallback(
    () =>
      api.listSessions().then(
        (s) => (setSessions(s), setError(undefined)),
        (e) => setError(errorMessage(e)),
      ),
    [],
  );
  useEffect(() => {
    void load();
  }, [load, version]);

  const open = async (info: SessionInfo) => {
    setBusy(`Opening "${info.name}"…`);
    try {
      onOpen(await api.openSession({ id: info.id }));
    } catch (err) {
      toast.error(err, `Could not open "${info.name}"`);
    } finally {
      setBusy(undefined);
    }
  };

  const importFiles = async (fileList: FileList | File[]) => {
    // Copy first: the input's live FileList empties when the input is reset.
    const files = Array.from(fileList);
    for (const file of files) {
      setBusy(`Importing ${file.name}…`);
      try {
        const info = await api.importHar({ fileName: file.name, text: await file.text() });
        await load();
        // Names are unique: a second "page" is stored as "page (2)"; say which name it got.
        toast.show(`Imported ${file.name} as "${info.name}": ${plural(info.entryCount, 'request')}`, 'ok');
        if (files.length === 1) await open(info);
      } catch (err) {
        toast.error(err, `Could not import ${file.name}`);
      } finally {
        setBusy(undefined);
      }
    }
  };

  const [naming, setNaming] = useState(false);
  const saveLive = async (name: string) => {
    setNaming(false);
    try {
      const info = await api.saveSession({ name });
      toast.show(`Saved "${info.name}"`, 'ok');
      await load();
    } catch (err) {
      toast.error(err, 'Could not save the live capture');
    }
  };

  const rename = async () => {
    if (!renaming) return;
    try {
      await api.saveSession({ id: renaming.id, name: renaming.name });
      setRenaming(undefined);
      await load();
    } catch (err) {
      toast.error(err, 'Could not rename');
    }
  };

  const remove = async (info: SessionInfo) => {
    if (!window.confirm(`Delete the session "${info.name}"? This cannot be undone.`)) return;
    try {
      await api.deleteSession({ id: info.id });
      await load();
    } catch (err) {
      toast.error(err, 'Could not delete');
    }
  };

  const exportOne = async (info: SessionInfo) => {
    try {
      const har = await api.exportHar({ id: info.id });
      downloadText(har.fileName, har.text, 'application/json');
    } catch (err) {
      toast.error(err, 'Could not export');
    }
  };

  return (
    <div
      className="page"
      data-testid="sessions-view"
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        if (e.dataTransfer.files.length) void importFiles(e.dataTransfer.files);
      }}
    >
      <div style={{ display: 'flex', alignItems: 'center', gap: 8, marginBottom: 12 }}>
        <h2 style={{ margin: 0 }}>Sessions</h2>
        <div className="spacer" />
        <button
          className="btn"
          onClick={() => setNaming(true)}
          disabled={liveCount === 0}
          title={liveCount === 0 ? 'The live capture is empty' : undefined}
          data-testid="save-live"
        >
          Save live capture ({liveCount.toLocaleString()})
        </button>
        <button className="btn primary" onClick={() => fileRef.current?.click()} data-testid="import-har">
          Import HAR…
        </button>
        <input
          ref={fileRef}
          type="file"
          accept=".har,application/json"
          multiple
          style={{ display: 'none' }}
          onChange={(e) => {
            if (e.target.files?.length) void importFiles(e.target.files);
            e.target.value = '';
          }}
          data-testid="import-input"
        />
      </div>
      {busy && (
        <div className="note info" style={{ margin: '0 0 10px', display: 'flex', gap: 8, alignItems: 'center' }}>
          <div className="spinner" style={{ width: 12, height: 12 }} /> {busy}
        </div>
      )}
      {error && (
        <div className="note error" style={{ margin: '0 0 10px' }}>
          Could not list sessions: {error}
        </div>
      )}
      <div className={`dropzone ${over ? 'over' : ''}`} style={{ marginBottom: 14 }} data-testid="dropzone">
        Drop HAR files here (from Chrome, Firefox, Safari, Charles, Netlens…) to open them
      </div>
      {replay.serveForm && !served && (
        <ServeForm
          key={replay.serveForm.id}
          name={replay.serveForm.name}
          busy={replay.starting}
          onStart={(o) => void replay.startServe(replay.serveForm!, o)}
          onCancel={() => replay.askServe(undefined)}
        />
      )}
      {replay.serve?.session && (replay.serve.running || replay.servePanel) && (
        <ServePanel status={replay.serve} stopping={replay.stopping} onStop={() => void replay.stopServe()} onDismiss={replay.hideServe} />
      )}
      {replay.resending && (
        <div className="note info" style={{ margin: '0 0 10px', display: 'flex', gap: 8, alignItems: 'center' }} data-testid="resend-busy">
          <div className="spinner" style={{ width: 12, height: 12 }} /> Resending the requests of "
          {sessions?.find((s) => s.id === replay.resending)?.name}"…
        </div>
      )}
      {replay.resend && <ResendPanel report={replay.resend} onClose={replay.closeResend} />}
      {naming && (
        <NameDialog
          title="Save the live capture as a session"
          initial={`Capture ${new Date().toLocaleString()}`}
          confirmLabel="Save"
          onConfirm={saveLive}
          onCancel={() => setNaming(false)}
        />
      )}
      {!sessions ? (
        <div className="empty">
          <div className="spinner" />
        </div>
      ) : sessions.length === 0 ? (
        <div className="empty" data-testid="sessions-empty" style={{ minHeight: 200 }}>
          <h2>No sessions yet</h2>
          <p>Save the live capture, or import a HAR file: it opens in Traffic and Waterfall like live traffic.</p>
        </div>
      ) : (
        <table className="data" data-testid="sessions-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Source</th>
              <th className="num">Requests</th>
              <th className="num">Size</th>
              <th>Created</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {sessions.map((s) => (
              <tr key={s.id} data-testid="session-row" style={s.id === current ? { background: 'var(--selected)' } : undefined}>
                <td>
                  {renaming?.id === s.id ? (
                    <form onSubmit={(e) => (e.preventDefault(), void rename())} style={{ display: 'flex', gap: 4 }}>
                      <input
                        className="inline-edit"
                        autoFocus
                        type="text"
                        value={renaming.name}
                        onChange={(e) => setRenaming({ ...renaming, name: e.target.value })}
                        onKeyDown={(e) => e.key === 'Escape' && setRenaming(undefined)}
                      />
                      <button className="btn small primary" type="submit">
                        Save
                      </button>
                    </form>
                  ) : (
                    <a href="#" onClick={(e) => (e.preventDefault(), void open(s))}>
                      {s.name}
                    </a>
                  )}
                </td>
                <td className="muted">{s.source === 'import' ? 'imported HAR' : s.source}</td>
                <td className="num">{s.entryCount.toLocaleString()}</td>
                <td className="num">{formatBytes(s.sizeBytes)}</td>
                <td className="muted">{new Date(s.createdAt).toLocaleString()}</td>
                <td style={{ textAlign: 'right' }}>
                  <button className="btn small" onClick={() => open(s)} data-testid="session-open">
                    Open
                  </button>{' '}
                  {served?.id === s.id ? (
                    <button
                      className="btn small"
                      onClick={() => void replay.stopServe()}
                      disabled={replay.stopping}
                      data-testid="session-serve-stop"
                    >
                      Stop serving
                    </button>
                  ) : (
                    <button
                      className="btn small"
                      onClick={() => replay.askServe(s)}
                      disabled={Boolean(served)}
                      title={
                        served
                          ? `One replay server at a time: stop serving "${served.name}" first`
                          : 'A replay proxy that answers from this session'
                      }
                      data-testid="session-serve"
                    >
                      Serve
                    </button>
                  )}{' '}
                  <button
                    className="btn small"
                    onClick={() => void replay.startResend(s)}
                    disabled={Boolean(replay.resending)}
                    title="Send this session's requests again and compare status, size, body and time"
                    data-testid="session-resend"
                  >
                    {replay.resending === s.id ? 'Resending…' : 'Resend'}
                  </button>{' '}
                  <button className="btn small ghost" onClick={() => setRenaming({ id: s.id, name: s.name })}>
                    Rename
                  </button>{' '}
                  <button className="btn small ghost" onClick={() => exportOne(s)}>
                    Export HAR
                  </button>{' '}
                  <button className="btn small ghost" onClick={() => remove(s)}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
