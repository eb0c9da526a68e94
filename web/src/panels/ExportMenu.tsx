// The header's export menu: the current view (simulated or replay) as a PNG or a standalone
// SVG, made in the browser from what is on screen (snapshot.ts).
import { useRef, useState } from 'react';
import { errorMessage } from '../base/errors';
import { download, snapshotPng, snapshotSvg } from './snapshot';

interface Props {
  /** The element of the view to picture. */
  target: () => HTMLElement | null;
  /** The file name without its extension. */
  name: string;
}

export function ExportMenu({ target, name }: Props) {
  const menu = useRef<HTMLDetailsElement>(null);
  const [error, setError] = useState<string | null>(null);
  const base = name.replace(/[^\w.-]+/g, '-') || 'schedlab-view';
  const save = (kind: 'png' | 'svg') => {
    if (menu.current) menu.current.open = false;
    const el = target();
    if (!el) return setError('there is no view to save');
    setError(null);
    const snap = snapshotSvg(el);
    if (kind === 'svg') return download(snap.svg, `${base}.svg`, 'image/svg+xml');
    snapshotPng(snap).then(
      (png) => download(png, `${base}.png`),
      (e: unknown) => setError(`the PNG could not be made: ${errorMessage(e)}`),
    );
  };
  return (
    <details className="export-menu" ref={menu} data-testid="export-menu">
      <summary>export</summary>
      <div className="export-list">
        <button onClick={() => save('png')} data-testid="export-png">
          View as PNG
        </button>
        <button onClick={() => save('svg')} data-testid="export-svg">
          View as SVG
        </button>
        <small>What is on screen now, lanes and tables, drawn in your browser.</small>
      </div>
      {error && (
        <span className="error" role="alert">
          {error}
        </span>
      )}
    </details>
  );
}
