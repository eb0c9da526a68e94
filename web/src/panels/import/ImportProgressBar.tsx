// The progress of a trace import (or of the shadow re-simulation's read), with Cancel. Escape
// cancels too.
import { memo, useEffect } from 'react';
import type { ImportProgress } from '../../engine/protocol';
import { progressFraction, progressText } from '../../state/trace_import';

interface Props {
  file: string;
  progress: ImportProgress;
  onCancel: () => void;
}

export const ImportProgressBar = memo(function ImportProgressBar({ file, progress, onCancel }: Props) {
  useEffect(() => {
    const key = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onCancel();
    };
    window.addEventListener('keydown', key);
    return () => window.removeEventListener('keydown', key);
  }, [onCancel]);
  const f = progressFraction(progress);
  return (
    <div className="import-progress" data-testid="import-progress" data-phase={progress.phase}>
      <span className="import-file">{file}</span>
      <progress
        value={f}
        max={1}
        role="progressbar"
        aria-label={`importing ${file}`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(f * 100)}
      />
      <span className="muted" data-testid="import-progress-text">
        {progressText(progress)}
      </span>
      <button onClick={onCancel} data-testid="import-cancel">
        Cancel
      </button>
    </div>
  );
});
