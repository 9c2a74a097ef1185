/**
 * A value the core may have cut (sessions: a HAR can hold a 95 MiB header). Cut
 * values say so, with their whole size, in a scroll box of a few lines, and can
 * be saved whole as a file: the page never holds the whole value as one string
 * or puts it in the DOM.
 */
import { useState } from 'react';
import type { FieldCut, SessionField } from '../../../../proxy/src/api/contract';
import { errorMessage } from '../../api';
import { formatBinaryBytes } from '../../lib/format';
import { downloadBlob } from '../sessions/download';
import { useToasts } from '../../ui/Toasts';

export type SaveField = (field: SessionField, onProgress: (done: number, total: number) => void) => Promise<Blob>;

function fileName(label: string): string {
  return `${
    label
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'value'
  }.txt`;
}

interface Props {
  /** What is shown of the value ('' when the caller shows it, e.g. a body). */
  text: string;
  cut?: FieldCut;
  field: SessionField;
  label: string;
  save?: SaveField;
  /** Words before the sizes (default "…", the value's continuation). */
  lead?: string;
}

export function CutValue({ text, cut, field, label, save, lead = '…' }: Props) {
  const toast = useToasts();
  const [progress, setProgress] = useState<number>();
  if (!cut) return <>{text}</>;
  const saveWhole = async () => {
    if (!save || progress !== undefined) return;
    setProgress(0);
    try {
      const blob = await save(field, (done, total) => setProgress(total > 0 ? done / total : 1));
      downloadBlob(fileName(label), blob);
      toast.show(`Saved the whole ${label} (${formatBinaryBytes(blob.size)})`, 'ok');
    } catch (err) {
      toast.show(`Could not save the ${label}: ${errorMessage(err)}`, 'error');
    } finally {
      setProgress(undefined);
    }
  };
  return (
    <span className="cut-value" data-testid="cut-value">
      {text && <span className="cut-text">{text}</span>}
      <span className="cut-note" data-testid="cut-note">
        {lead} {formatBinaryBytes(cut.fullBytes)}, shown first {formatBinaryBytes(cut.shownBytes)}
        {save && (
          <button
            className="btn small"
            onClick={saveWhole}
            disabled={progress !== undefined}
            title={`Save the whole ${label}`}
            data-testid="cut-save"
          >
            {progress === undefined ? 'Save full value' : `Saving… ${Math.floor(progress * 100)}%`}
          </button>
        )}
      </span>
    </span>
  );
}
