// The scenario editor: the text with line numbers; errors appear inline at their line and
// column while the rest of the app keeps showing the last good simulation.

import { useMemo, useRef, memo } from 'react';
import type { LocatedError } from '../engine/protocol';

interface Props {
  text: string;
  file: string;
  error: LocatedError | null;
  onText: (t: string) => void;
  onRun: () => void;
}

export const EditorPane = memo(function EditorPane({ text, file, error, onText, onRun }: Props) {
  const area = useRef<HTMLTextAreaElement>(null);
  const gutter = useRef<HTMLDivElement>(null);
  const lines = useMemo(() => text.split('\n').length, [text]);
  const jump = () => {
    if (!error || !area.current || error.line < 1) return;
    const before = text.split('\n').slice(0, error.line - 1).join('\n').length + (error.line > 1 ? 1 : 0);
    const pos = before + Math.max(0, error.column - 1);
    area.current.focus();
    area.current.setSelectionRange(pos, pos + 1);
  };
  return (
    <section className="editor" aria-label="scenario editor">
      <div className="editor-head">
        <span title={file}>{file}</span>
        <button onClick={onRun} title="Run (Ctrl+Enter)">
          Run
        </button>
      </div>
      <div className="editor-body">
        <div className="gutter" ref={gutter} aria-hidden>
          {Array.from({ length: lines }, (_, i) => (
            <div key={i} className={error && error.line === i + 1 ? 'err' : ''}>
              {i + 1}
            </div>
          ))}
        </div>
        <textarea
          ref={area}
          spellCheck={false}
          aria-label="scenario text"
          value={text}
          onChange={(e) => onText(e.target.value)}
          onScroll={(e) => {
            if (gutter.current) gutter.current.scrollTop = (e.target as HTMLTextAreaElement).scrollTop;
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              onRun();
            }
          }}
        />
      </div>
      {error && (
        <div className="error" role="alert" data-testid="scenario-error" onClick={jump}>
          {error.line > 0 ? `${error.file}:${error.line}:${error.column}: ` : ''}
          {error.message}
        </div>
      )}
    </section>
  );
});
