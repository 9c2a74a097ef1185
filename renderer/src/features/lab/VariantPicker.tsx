/**
 * The Lab form's "what if" variants: each a name and a rules source, the app's current rules (Rules view) or a
 * rules file imported here. Each adds `<cell>~<name>` next to every ticked proxy cell (docs/lab.md).
 */
import { useEffect, useRef, useState } from 'react';
import { api } from '../../api';
import { nextVariantName, type VariantDraft } from '../../lib/lab-variants';

export function VariantPicker(props: {
  variants: VariantDraft[];
  problems: Map<number, string>;
  noProxyCell: boolean;
  /** The core's refusal when the run was started (e.g. a rule of an imported file is invalid). */
  error?: string;
  onChange: (variants: VariantDraft[]) => void;
}) {
  const { variants, problems, onChange } = props;
  const nextKey = useRef(1);
  /** How many of the app's rules are switched on now: "current rules" with none would run the base cell again. */
  const [current, setCurrent] = useState<number>();
  const refresh = () =>
    api.getRules().then(
      (s) => setCurrent(s.rules.filter((r) => r.enabled !== false).length),
      () => setCurrent(undefined),
    );
  useEffect(() => {
    void refresh();
  }, []);

  const update = (key: number, patch: Partial<VariantDraft>) => onChange(variants.map((v) => (v.key === key ? { ...v, ...patch } : v)));
  const add = () => {
    void refresh();
    onChange([...variants, { key: nextKey.current++, name: nextVariantName(variants), source: 'current' }]);
  };
  const importFile = async (key: number, file: File) => update(key, { source: 'file', fileName: file.name, text: await file.text() });

  return (
    <div data-testid="lab-variants" style={{ marginTop: 10 }}>
      <h3 style={{ display: 'flex', alignItems: 'center', gap: 8 }}>
        Variants{' '}
        <span className="muted" style={{ fontWeight: 'normal', fontSize: 11 }}>
          what if: each proxy cell again, with rules
        </span>
      </h3>
      {variants.map((v, i) => {
        const problem =
          problems.get(v.key) ??
          (v.source === 'current' && current === 0
            ? 'no rule is switched on: add or switch on rules in the Rules view, or import a file'
            : undefined);
        return (
          <div key={v.key} data-testid="lab-variant" data-name={v.name}>
            <div style={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 6, marginBottom: 6 }}>
              <input
                type="text"
                aria-label={`Variant ${i + 1} name`}
                value={v.name}
                onChange={(e) => update(v.key, { name: e.target.value })}
                style={{ width: 130 }}
                className="mono"
                data-testid="lab-variant-name"
              />
              <select
                aria-label={`Variant ${i + 1} rules`}
                value={v.source}
                onChange={(e) => {
                  if (e.target.value === 'current') void refresh();
                  update(v.key, { source: e.target.value as VariantDraft['source'] });
                }}
                data-testid="lab-variant-source"
              >
                <option value="current">current rules{current !== undefined ? ` (${current} on)` : ''}</option>
                <option value="file">imported file</option>
              </select>
              <button
                className="btn"
                title="Remove this variant"
                aria-label={`Remove variant ${v.name}`}
                onClick={() => onChange(variants.filter((x) => x.key !== v.key))}
                data-testid="lab-variant-remove"
              >
                ×
              </button>
              {v.source === 'file' && (
                <div style={{ flexBasis: '100%', display: 'flex', alignItems: 'center', gap: 6 }}>
                  <label className="btn" htmlFor={`lab-variant-file-${v.key}`} data-testid="lab-variant-import">
                    {v.fileName ? 'Change…' : 'Import rules file…'}
                  </label>
                  <input
                    id={`lab-variant-file-${v.key}`}
                    type="file"
                    accept=".json,application/json"
                    style={{ display: 'none' }}
                    onChange={(e) => {
                      const f = e.target.files?.[0];
                      e.target.value = '';
                      if (f) void importFile(v.key, f);
                    }}
                    data-testid="lab-variant-file"
                  />
                  {v.fileName && (
                    <span className="mono muted" data-testid="lab-variant-file-name">
                      {v.fileName}
                    </span>
                  )}
                </div>
              )}
            </div>
            {problem && (
              <div className="warn-text" style={{ margin: '-4px 0 6px', fontSize: 11 }} data-testid="lab-variant-problem">
                {problem}
              </div>
            )}
          </div>
        );
      })}
      {props.noProxyCell && (
        <div className="warn-text" style={{ fontSize: 11, marginBottom: 6 }} data-testid="lab-variant-no-proxy">
          Variants apply to the proxy cells: tick one, or remove the variants.
        </div>
      )}
      {props.error && (
        <div className="note error" style={{ margin: '0 0 8px', whiteSpace: 'pre-wrap' }} data-testid="lab-variant-error">
          {props.error}
        </div>
      )}
      <button className="btn" onClick={add} data-testid="lab-variant-add">
        Add variant
      </button>
    </div>
  );
}
