/**
 * Rules: what the capture proxy changes (docs/rules.md). The list in order (first match
 * wins), enabled toggles, move up/down, hit counts (re-read every second while shown),
 * add/edit/delete, import and export of a rules file. Every change sends the whole list
 * to setRules: the proxy applies it at once and the core keeps it in the data directory.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Rule, RulesState } from '../../../../proxy/src/api/contract';
import { api, errorMessage } from '../../api';
import { actionSummary, deleteRule, emptyRule, matchSummary, moveRule, putRule, toggleRule } from '../../lib/rules-model';
import { useToasts } from '../../ui/Toasts';
import { downloadText } from '../sessions/download';
import { RuleEditor } from './RuleEditor';
import type { RuleDraft } from './draft';

const HITS_REFRESH_MS = 1000;

interface Editing {
  rule: Rule;
  /** The id the rule had before this edit; absent for a new rule. */
  was?: string;
  note?: string;
}

export function RulesView({ draft, onDraftTaken }: { draft?: RuleDraft; onDraftTaken(): void }) {
  const toast = useToasts();
  const [state, setState] = useState<RulesState>();
  const [error, setError] = useState<string>();
  const [editing, setEditing] = useState<Editing>();
  const fileRef = useRef<HTMLInputElement>(null);
  // Bumped by every change sent: a poll that started before it must not put the old list back.
  const generation = useRef(0);

  const load = useCallback(() => {
    const gen = generation.current;
    return api.getRules().then(
      (s) => gen === generation.current && (setState(s), setError(undefined)),
      (e) => setError(errorMessage(e)),
    );
  }, []);

  // Hit counts move with traffic: re-read while this view is shown and the window visible.
  useEffect(() => {
    void load();
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void load();
    }, HITS_REFRESH_MS);
    return () => clearInterval(timer);
  }, [load]);

  useEffect(() => {
    if (!draft) return;
    setEditing({ rule: draft.rule, note: draft.note });
    onDraftTaken();
  }, [draft, onDraftTaken]);

  const rules = state?.rules ?? [];

  /** Sends the list; resolves with the core's error message, or undefined when applied. */
  const apply = async (next: Rule[], optimistic = false): Promise<string | undefined> => {
    const gen = ++generation.current;
    // A toggle or a move shows at once; the core's answer (or a reload on refusal) settles it.
    if (optimistic) setState((s) => s && { ...s, rules: next });
    try {
      const s = await api.setRules({ rules: next });
      if (gen === generation.current) setState(s);
      return undefined;
    } catch (err) {
      if (optimistic) void load();
      return errorMessage(err);
    }
  };

  const applyOrToast = async (next: Rule[], what: string) => {
    const err = await apply(next, true);
    if (err) toast.show(`Could not ${what}: ${err}`, 'error');
  };

  const saveEdit = async (rule: Rule): Promise<string | undefined> => {
    if (!editing) return undefined;
    const err = await apply(putRule(rules, rule, editing.was));
    if (!err) setEditing(undefined);
    return err;
  };

  const importFile = async (file: File) => {
    try {
      const s = await api.importRules({ fileName: file.name, text: await file.text() });
      setState(s);
      toast.show(`Imported ${s.rules.length} rule${s.rules.length === 1 ? '' : 's'} from ${file.name}`, 'ok');
    } catch (err) {
      toast.error(err, `Could not import ${file.name}`);
    }
  };

  const exportFile = async () => {
    try {
      const f = await api.exportRules();
      downloadText(f.fileName, f.text, 'application/json');
    } catch (err) {
      toast.error(err, 'Could not export');
    }
  };

  return (
    <div className="page" data-testid="rules-view">
      <div style={{ display: 'flex', alignItems: 'center', gap: 8, marginBottom: 12 }}>
        <h2 style={{ margin: 0 }}>Rules</h2>
        <span className="muted">Tried in order; the first rule that matches wins. Applied to the capture proxy at once.</span>
        <div className="spacer" />
        <button className="btn" onClick={() => fileRef.current?.click()} data-testid="rules-import">
          Import…
        </button>
        <button className="btn" onClick={() => void exportFile()} disabled={!rules.length} data-testid="rules-export">
          Export
        </button>
        <button className="btn primary" onClick={() => setEditing({ rule: emptyRule(rules) })} data-testid="rule-add">
          Add rule
        </button>
        <input
          ref={fileRef}
          type="file"
          accept=".json,application/json"
          style={{ display: 'none' }}
          onChange={(e) => {
            const f = e.target.files?.[0];
            e.target.value = '';
            if (f) void importFile(f);
          }}
          data-testid="rules-import-input"
        />
      </div>
      {error && (
        <div className="note error" style={{ margin: '0 0 10px' }}>
          Could not read the rules: {error}
        </div>
      )}
      {state?.loadError && (
        <div className="note error" style={{ margin: '0 0 10px', whiteSpace: 'pre-wrap' }} data-testid="rules-load-error">
          The saved rules could not be loaded, so none are in force: {state.loadError.message}
        </div>
      )}
      {editing && (
        <RuleEditor
          key={`${editing.was ?? 'new'}:${editing.rule.id}`}
          initial={editing.rule}
          isNew={editing.was === undefined}
          note={editing.note}
          onSave={saveEdit}
          onCancel={() => setEditing(undefined)}
        />
      )}
      {!state ? (
        <div className="empty">
          <div className="spinner" />
        </div>
      ) : rules.length === 0 ? (
        <div className="empty" style={{ minHeight: 160 }} data-testid="rules-empty">
          <h2>No rules</h2>
          <p>
            Add a rule to mock, rewrite, delay, throttle or break requests — or pick a request in Traffic and use &quot;Mock this
            response&quot;.
          </p>
        </div>
      ) : (
        <table className="data rules-table" data-testid="rules-table">
          <thead>
            <tr>
              <th>On</th>
              <th>Rule</th>
              <th>Match</th>
              <th>Actions</th>
              <th className="num">Hits</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {rules.map((r, i) => (
              <tr key={r.id} data-testid="rule-row" data-rule-id={r.id} className={r.enabled === false ? 'rule-off' : undefined}>
                <td>
                  <input
                    type="checkbox"
                    checked={r.enabled !== false}
                    onChange={() => void applyOrToast(toggleRule(rules, r.id), 'change the rule')}
                    aria-label={`Enable ${r.name ?? r.id}`}
                    data-testid="rule-enabled"
                  />
                </td>
                <td>
                  <b>{r.name ?? r.id}</b>
                  {r.name && <span className="muted mono"> {r.id}</span>}
                </td>
                <td className="mono">{matchSummary(r)}</td>
                <td>{r.actions.map(actionSummary).join(', ')}</td>
                <td className="num" data-testid="rule-hits">
                  {(state.hits[r.id] ?? 0).toLocaleString()}
                </td>
                <td style={{ textAlign: 'right' }}>
                  <button
                    className="btn small ghost"
                    disabled={i === 0}
                    onClick={() => void applyOrToast(moveRule(rules, i, -1), 'move the rule')}
                    title="Move up"
                    data-testid="rule-up"
                  >
                    ↑
                  </button>
                  <button
                    className="btn small ghost"
                    disabled={i === rules.length - 1}
                    onClick={() => void applyOrToast(moveRule(rules, i, 1), 'move the rule')}
                    title="Move down"
                    data-testid="rule-down"
                  >
                    ↓
                  </button>
                  <button className="btn small" onClick={() => setEditing({ rule: r, was: r.id })} data-testid="rule-edit">
                    Edit
                  </button>{' '}
                  <button
                    className="btn small danger"
                    onClick={() =>
                      window.confirm(`Delete the rule "${r.name ?? r.id}"?`) &&
                      void applyOrToast(deleteRule(rules, r.id), 'delete the rule')
                    }
                    data-testid="rule-delete"
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {state?.file && (
        <div className="muted" style={{ marginTop: 10 }}>
          Kept in {state.file}
        </div>
      )}
    </div>
  );
}
