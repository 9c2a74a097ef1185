/**
 * Add or edit one rule: a form for the common fields (method, host, path; mock, response
 * headers, delay, fault, throttle) and a JSON tab for everything else. Saving hands the rule
 * to the view, which sends the whole list to setRules; the core's validation error comes
 * back here and is shown inline, naming the rule and the field.
 */
import { useState } from 'react';
import type { Rule } from '../../../../proxy/src/api/contract';
import { formFromRule, ruleFromForm, type RuleForm } from '../../lib/rules-model';

interface Props {
  initial: Rule;
  isNew: boolean;
  note?: string;
  /** Resolves with an error message to show, or undefined when saved. */
  onSave(rule: Rule): Promise<string | undefined>;
  onCancel(): void;
}

const FAULTS = ['close', 'reset', 'timeout', 'trickle', 'truncate'] as const;
const PROFILES = ['slow-4g', 'fast-4g', '3g', 'lighthouse-mobile-slow-4g', 'lighthouse-mobile-3g', '1.6mbps'];

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="form-row">
      <label>{label}</label>
      {children}
    </div>
  );
}

export function RuleEditor({ initial, isNew, note, onSave, onCancel }: Props) {
  const [mode, setMode] = useState<'form' | 'json'>('form');
  const [base, setBase] = useState<Rule>(initial);
  const [form, setForm] = useState<RuleForm>(() => formFromRule(initial));
  const [json, setJson] = useState('');
  const [error, setError] = useState<string>();
  const [saving, setSaving] = useState(false);

  const patch = <K extends keyof RuleForm>(key: K, value: Partial<RuleForm[K]> | RuleForm[K]) =>
    setForm((f) => ({ ...f, [key]: typeof value === 'object' && value !== null ? { ...(f[key] as object), ...value } : value }));

  /** The rule as it stands in the current tab (JSON: parsed, or an error). */
  const current = (): Rule | string => {
    if (mode === 'form') return ruleFromForm(form, base);
    try {
      const r = JSON.parse(json) as Rule;
      if (!r || typeof r !== 'object' || Array.isArray(r)) return 'The JSON must be one rule object: { "id", "match", "actions" }.';
      return r;
    } catch (err) {
      return `Not JSON: ${(err as Error).message}`;
    }
  };

  const switchTo = (next: 'form' | 'json') => {
    if (next === mode) return;
    const r = current();
    if (typeof r === 'string') return setError(r);
    setError(undefined);
    setBase(r);
    if (next === 'json') setJson(JSON.stringify(r, null, 2));
    else setForm(formFromRule(r));
    setMode(next);
  };

  const save = async () => {
    const r = current();
    if (typeof r === 'string') return setError(r);
    setSaving(true);
    setError(await onSave(r));
    setSaving(false);
  };

  return (
    <div className="card rule-editor" data-testid="rule-editor">
      <div style={{ display: 'flex', alignItems: 'center', gap: 8, marginBottom: 6 }}>
        <h3 style={{ margin: 0 }}>{isNew ? 'New rule' : `Edit rule ${initial.id}`}</h3>
        <div className="spacer" />
        <div className="chips">
          <button className={`chip ${mode === 'form' ? 'on' : ''}`} onClick={() => switchTo('form')} data-testid="rule-mode-form">
            Form
          </button>
          <button className={`chip ${mode === 'json' ? 'on' : ''}`} onClick={() => switchTo('json')} data-testid="rule-mode-json">
            JSON
          </button>
        </div>
      </div>
      {note && (
        <div className="note info" style={{ margin: '4px 0' }}>
          {note}
        </div>
      )}
      {mode === 'form' ? (
        <div className="rule-form">
          <div className="rule-form-col">
            <Field label="Id">
              <input type="text" value={form.id} onChange={(e) => patch('id', e.target.value)} data-testid="rule-id" />
            </Field>
            <Field label="Name">
              <input type="text" value={form.name} onChange={(e) => patch('name', e.target.value)} data-testid="rule-name" />
            </Field>
            <Field label="Enabled">
              <input type="checkbox" checked={form.enabled} onChange={(e) => patch('enabled', e.target.checked)} />
            </Field>
            <h4>Match (empty = any)</h4>
            <Field label="Method">
              <input
                type="text"
                placeholder="GET"
                value={form.method}
                onChange={(e) => patch('method', e.target.value)}
                data-testid="rule-method"
              />
            </Field>
            <Field label="Host">
              <input
                type="text"
                placeholder="api.example.com or *.example.com"
                value={form.host}
                onChange={(e) => patch('host', e.target.value)}
                data-testid="rule-host"
              />
            </Field>
            <Field label="Path">
              <input
                type="text"
                placeholder="/api/* (query not included)"
                value={form.path}
                onChange={(e) => patch('path', e.target.value)}
                data-testid="rule-path"
              />
            </Field>
            <h4>
              <label>
                <input
                  type="checkbox"
                  checked={form.delay.on}
                  onChange={(e) => patch('delay', { on: e.target.checked })}
                  data-testid="rule-delay-on"
                />{' '}
                Delay
              </label>
            </h4>
            {form.delay.on && (
              <Field label="ms before">
                <input
                  type="number"
                  min={0}
                  value={form.delay.ms}
                  onChange={(e) => patch('delay', { ms: e.target.value })}
                  style={{ width: 80 }}
                  data-testid="rule-delay-ms"
                />
                <select value={form.delay.before} onChange={(e) => patch('delay', { before: e.target.value as 'request' | 'response' })}>
                  <option value="request">the request goes up</option>
                  <option value="response">the response comes back</option>
                </select>
              </Field>
            )}
            <h4>
              <label>
                <input
                  type="checkbox"
                  checked={form.fault.on}
                  onChange={(e) => patch('fault', { on: e.target.checked })}
                  data-testid="rule-fault-on"
                />{' '}
                Fault
              </label>
            </h4>
            {form.fault.on && (
              <Field label="Type">
                <select
                  value={form.fault.fault}
                  onChange={(e) => patch('fault', { fault: e.target.value as RuleForm['fault']['fault'] })}
                  data-testid="rule-fault"
                >
                  {FAULTS.map((f) => (
                    <option key={f}>{f}</option>
                  ))}
                </select>
              </Field>
            )}
            <h4>
              <label>
                <input
                  type="checkbox"
                  checked={form.throttle.on}
                  onChange={(e) => patch('throttle', { on: e.target.checked })}
                  data-testid="rule-throttle-on"
                />{' '}
                Throttle
              </label>
            </h4>
            {form.throttle.on && (
              <Field label="Profile">
                <select
                  value={form.throttle.profile}
                  onChange={(e) => patch('throttle', { profile: e.target.value })}
                  data-testid="rule-throttle"
                >
                  {PROFILES.map((p) => (
                    <option key={p}>{p}</option>
                  ))}
                </select>
              </Field>
            )}
          </div>
          <div className="rule-form-col">
            <h4>
              <label>
                <input
                  type="checkbox"
                  checked={form.mock.on}
                  onChange={(e) => patch('mock', { on: e.target.checked })}
                  data-testid="rule-mock-on"
                />{' '}
                Mock — answer without the network
              </label>
            </h4>
            {form.mock.on && (
              <>
                <Field label="Status">
                  <input
                    type="number"
                    value={form.mock.status}
                    onChange={(e) => patch('mock', { status: e.target.value })}
                    style={{ width: 80 }}
                    data-testid="rule-mock-status"
                  />
                </Field>
                <div className="form-field">
                  <label>Headers (one "Name: value" a line)</label>
                  <textarea
                    rows={3}
                    className="mono"
                    value={form.mock.headers}
                    onChange={(e) => patch('mock', { headers: e.target.value })}
                    data-testid="rule-mock-headers"
                  />
                </div>
                <div className="form-field">
                  <label>Body</label>
                  <textarea
                    rows={6}
                    className="mono"
                    value={form.mock.body}
                    onChange={(e) => patch('mock', { body: e.target.value })}
                    data-testid="rule-mock-body"
                  />
                </div>
              </>
            )}
            <h4>
              <label>
                <input
                  type="checkbox"
                  checked={form.headers.on}
                  onChange={(e) => patch('headers', { on: e.target.checked })}
                  data-testid="rule-headers-on"
                />{' '}
                Rewrite response headers
              </label>
            </h4>
            {form.headers.on && (
              <>
                <div className="form-field">
                  <label>Set (one "Name: value" a line)</label>
                  <textarea
                    rows={3}
                    className="mono"
                    value={form.headers.set}
                    onChange={(e) => patch('headers', { set: e.target.value })}
                    data-testid="rule-headers-set"
                  />
                </div>
                <Field label="Remove">
                  <input
                    type="text"
                    placeholder="ETag, Cache-Control"
                    value={form.headers.remove}
                    onChange={(e) => patch('headers', { remove: e.target.value })}
                    style={{ flex: 1 }}
                  />
                </Field>
              </>
            )}
            <div className="muted" style={{ marginTop: 10 }}>
              Request rewrites, body edits, query and header conditions: the JSON tab (docs/rules.md).
            </div>
          </div>
        </div>
      ) : (
        <div className="form-field">
          <textarea
            rows={18}
            className="mono"
            spellCheck={false}
            value={json}
            onChange={(e) => setJson(e.target.value)}
            data-testid="rule-json"
          />
        </div>
      )}
      {error && (
        <pre className="note error rule-error" data-testid="rule-error">
          {error}
        </pre>
      )}
      <div style={{ display: 'flex', gap: 8, justifyContent: 'flex-end', marginTop: 8 }}>
        <button className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button className="btn primary" disabled={saving} onClick={() => void save()} data-testid="rule-save">
          {isNew ? 'Add rule' : 'Save rule'}
        </button>
      </div>
    </div>
  );
}
