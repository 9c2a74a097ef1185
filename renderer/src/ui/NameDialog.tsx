/**
 * A small modal asking for a name. `window.prompt` would be simpler, but
 * Electron does not implement it, and the same renderer runs there.
 */
import { useEffect, useRef, useState } from 'react';

interface Props {
  title: string;
  initial: string;
  confirmLabel: string;
  onConfirm(name: string): void;
  onCancel(): void;
}

export function NameDialog({ title, initial, confirmLabel, onConfirm, onCancel }: Props) {
  const [name, setName] = useState(initial);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.select(), []);
  return (
    <div className="modal-backdrop" onMouseDown={onCancel}>
      <form
        className="modal"
        role="dialog"
        aria-label={title}
        data-testid="name-dialog"
        onMouseDown={(e) => e.stopPropagation()}
        onSubmit={(e) => {
          e.preventDefault();
          if (name.trim()) onConfirm(name.trim());
        }}
      >
        <h3>{title}</h3>
        <input
          ref={input}
          type="text"
          value={name}
          onChange={(e) => setName(e.target.value)}
          onKeyDown={(e) => e.key === 'Escape' && onCancel()}
          style={{ width: '100%' }}
          autoFocus
          data-testid="name-input"
        />
        <div className="form-row" style={{ justifyContent: 'flex-end', marginTop: 12 }}>
          <button type="button" className="btn" onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" className="btn primary" disabled={!name.trim()} data-testid="name-confirm">
            {confirmLabel}
          </button>
        </div>
      </form>
    </div>
  );
}
