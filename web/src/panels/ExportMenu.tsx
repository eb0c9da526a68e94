// The header's export menu: the current view (simulated or replay) as a PNG or a standalone
// SVG, made in the browser from what is on screen (snapshot.ts); in the simulated view, each
// variant's run as a Perfetto trace, downloaded or opened in the Perfetto UI (perfetto_open.ts).
import { useRef, useState } from 'react';
import { errorMessage } from '../base/errors';
import { openInPerfetto } from './perfetto_open';
import { download, snapshotPng, snapshotSvg } from './snapshot';

interface Props {
  /** The element of the view to picture. */
  target: () => HTMLElement | null;
  /** The file name without its extension. */
  name: string;
  /** The simulated run's variants and how to get one's Perfetto trace (absent in the replay view). */
  perfetto?: { variants: string[]; bytes: (variant: string) => Promise<ArrayBuffer> };
}

export function ExportMenu({ target, name, perfetto }: Props) {
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
  const traceName = (variant: string) => `${base}${perfetto && perfetto.variants.length > 1 ? `.${variant}` : ''}.pftrace`;
  const savePerfetto = (variant: string) => {
    if (menu.current) menu.current.open = false;
    setError(null);
    perfetto?.bytes(variant).then(
      (buf) => download(new Blob([buf], { type: 'application/octet-stream' }), traceName(variant)),
      (e: unknown) => setError(`the Perfetto trace could not be made: ${errorMessage(e)}`),
    );
  };
  const openPerfetto = (variant: string) => {
    if (menu.current) menu.current.open = false;
    setError(null);
    if (!perfetto) return;
    openInPerfetto(perfetto.bytes(variant), `${name} (${variant})`, traceName(variant)).catch((e: unknown) =>
      setError(`could not open in Perfetto: ${errorMessage(e)}`),
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
        {perfetto?.variants.map((v) => (
          <span key={v} className="export-perfetto">
            <button onClick={() => savePerfetto(v)} data-testid="export-perfetto" data-variant={v}>
              Perfetto trace{perfetto.variants.length > 1 ? ` (${v})` : ''}
            </button>
            <button onClick={() => openPerfetto(v)} data-testid="open-perfetto" data-variant={v}>
              Open in Perfetto
            </button>
          </span>
        ))}
        {perfetto && <small>The run with its sched events, vruntime, deadline, lag and V, picks and placements. Open in Perfetto hands it to ui.perfetto.dev in your browser; nothing is uploaded.</small>}
      </div>
      {error && (
        <span className="error" role="alert">
          {error}
        </span>
      )}
    </details>
  );
}
