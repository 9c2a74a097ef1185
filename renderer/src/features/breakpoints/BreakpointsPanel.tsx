/**
 * The breakpoint queue: what breakpoint rules paused (oldest first) and, for the selected
 * one, an editor of its URL or status, headers and body, with Continue and Abort. It floats
 * over whatever view is open, so a pause is handled without leaving it.
 */
import { useEffect, useState } from 'react';
import type { PausedBreakpoint } from '../../../../proxy/src/api/contract';
import { api } from '../../api';
import { useToasts } from '../../ui/Toasts';
import { draftOf, editsFrom, hasEdits, pausedLabel, pickSelected, secondsLeft, type BreakpointDraft } from '../../lib/breakpoint-edits';

interface Props {
  items: PausedBreakpoint[];
  onClose(): void;
}

export function BreakpointsPanel({ items, onClose }: Props) {
  const [selected, setSelected] = useState<string>();
  const current = items.find((p) => p.id === pickSelected(items, selected));
  return (
    <aside className="bp-panel" data-testid="breakpoints-panel" aria-label="Paused exchanges">
      <div className="bp-head">
        <b>Paused exchanges</b>
        <span className="bp-muted">
          {items.length === 0 ? 'none: a breakpoint rule pauses matching requests or responses here' : items.length}
        </span>
        <div className="spacer" />
        <button className="btn ghost small" onClick={onClose} aria-label="Close the queue">
          ✕
        </button>
      </div>
      {items.length > 0 && (
        <ul className="bp-list" role="listbox" aria-label="Paused exchanges">
          {items.map((p) => (
            <li
              key={p.id}
              role="option"
              aria-selected={p.id === current?.id}
              className={p.id === current?.id ? 'selected' : ''}
              onClick={() => setSelected(p.id)}
              data-testid="breakpoint-row"
            >
              <span className={`bp-phase ${p.phase}`}>{p.phase === 'request' ? 'REQ' : 'RES'}</span> {pausedLabel(p).slice(4)}
            </li>
          ))}
        </ul>
      )}
      {current && <BreakpointEditor key={current.id} item={current} />}
    </aside>
  );
}

function BreakpointEditor({ item }: { item: PausedBreakpoint }) {
  const toast = useToasts();
  const [draft, setDraft] = useState<BreakpointDraft>(() => draftOf(item));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  const set = (patch: Partial<BreakpointDraft>) => setDraft((d) => ({ ...d, ...patch }));

  const resume = async (abort: boolean) => {
    const made = editsFrom(item, draft);
    if (!abort && 'error' in made) return setError(made.error);
    setBusy(true);
    setError(undefined);
    try {
      if (abort) await api.abortBreakpoint({ id: item.id });
      else {
        const edits = 'edits' in made && hasEdits(made.edits) ? made.edits : undefined;
        await api.continueBreakpoint({ id: item.id, ...(edits ? { edits } : {}) });
      }
    } catch (err) {
      setError((err as Error).message);
      toast.show(`${abort ? 'Abort' : 'Continue'} failed: ${(err as Error).message}`, 'error');
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="bp-editor" data-testid="breakpoint-editor">
      <div className="bp-row">
        {item.phase === 'request' ? (
          <>
            <span className="bp-method">{item.method}</span>
            <input
              className="bp-url"
              value={draft.url}
              onChange={(e) => set({ url: e.target.value })}
              aria-label="URL"
              data-testid="bp-url"
            />
          </>
        ) : (
          <>
            <label className="bp-muted" htmlFor="bp-status">
              Status
            </label>
            <input
              id="bp-status"
              className="bp-status"
              value={draft.status}
              onChange={(e) => set({ status: e.target.value })}
              data-testid="bp-status"
            />
            <span className="bp-muted bp-ellipsis">
              {item.method} {item.url}
            </span>
          </>
        )}
      </div>
      <label className="bp-label" htmlFor="bp-headers">
        {item.phase === 'request' ? 'Request' : 'Response'} headers <span className="bp-muted">(one "Name: value" per line)</span>
      </label>
      <textarea
        id="bp-headers"
        className="bp-text"
        rows={8}
        spellCheck={false}
        value={draft.headersText}
        onChange={(e) => set({ headersText: e.target.value })}
        data-testid="bp-headers"
      />
      <label className="bp-label" htmlFor="bp-body">
        Body {item.bodyCut && <span className="bp-muted">(over 1 MiB or not text: forwarded as it is, not editable)</span>}
      </label>
      <textarea
        id="bp-body"
        className="bp-text"
        rows={6}
        spellCheck={false}
        disabled={item.bodyCut}
        value={draft.body}
        onChange={(e) => set({ body: e.target.value })}
        data-testid="bp-body"
      />
      {error && (
        <div className="bp-error" role="alert">
          {error}
        </div>
      )}
      <div className="bp-row">
        <button className="btn primary" disabled={busy} onClick={() => void resume(false)} data-testid="bp-continue">
          Continue
        </button>
        <button
          className="btn danger"
          disabled={busy}
          onClick={() => void resume(true)}
          data-testid="bp-abort"
          title="The client gets a 502 with X-Netlens-Error"
        >
          Abort
        </button>
        <button className="btn ghost" disabled={busy} onClick={() => setDraft(draftOf(item))}>
          Reset edits
        </button>
        <div className="spacer" />
        <span className="bp-muted" data-testid="bp-countdown">
          continues by itself in {secondsLeft(item, now)} s · rule {item.ruleId}
        </span>
      </div>
    </div>
  );
}
