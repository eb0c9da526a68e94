// The header: scenario picker, open file, variants, view mode, share, panel toggles, and the
// progress of a running load (with cancel).

import { useEffect, useRef, useState, memo, type ReactNode } from 'react';
import type { VariantSpec } from '../engine/protocol';
import type { LaneMode, PanelId, SimState } from '../state/types';
import { errorMessage } from '../base/errors';
import { GALLERY } from '../state/gallery';
import { PRESETS, parseOverrides } from '../state/variants';

interface Props {
  sim: SimState;
  panels: ReadonlySet<PanelId>;
  mode: LaneMode;
  onMode: (m: LaneMode) => void;
  onTogglePanel: (p: PanelId) => void;
  onOpenBundled: (id: string) => void;
  onOpenText: (file: string, text: string) => void;
  onVariants: (v: VariantSpec[]) => void;
  onShare: () => Promise<string>;
  onCancel: () => void;
  guideOpen: boolean;
  onGuide: () => void;
  /** More controls after "Open file…" (the trace import). */
  children?: ReactNode;
  lessonsOpen?: boolean;
  onLessons?: () => void;
}

export const Header = memo(function Header(p: Props) {
  const fileInput = useRef<HTMLInputElement>(null);
  const variantMenu = useRef<HTMLDetailsElement>(null);
  // The variants menu closes on a click anywhere else, so it never covers the timeline.
  useEffect(() => {
    const close = (e: MouseEvent) => {
      const d = variantMenu.current;
      if (d?.open && !d.contains(e.target as Node)) d.open = false;
    };
    document.addEventListener('mousedown', close);
    return () => document.removeEventListener('mousedown', close);
  }, []);
  const [custom, setCustom] = useState('');
  const [customError, setCustomError] = useState<string | null>(null);
  const [shared, setShared] = useState<string | null>(null);
  /** A file that could not be read, or a link that could not be made. */
  const [fileError, setFileError] = useState<string | null>(null);
  const keys = new Set(p.sim.variants.map((v) => v.key));
  const toggleVariant = (key: string) => {
    const preset = PRESETS.find((x) => x.key === key);
    if (!preset) return;
    const next = keys.has(key) ? p.sim.variants.filter((v) => v.key !== key) : [...p.sim.variants, { key, overrides: preset.overrides }];
    if (next.length > 0 && next.length <= 4) p.onVariants(next);
  };
  const addCustom = () => {
    const o = parseOverrides(custom);
    if (typeof o === 'string') return setCustomError(o);
    if (o.length === 0 || p.sim.variants.length >= 4) return;
    setCustomError(null);
    p.onVariants([...p.sim.variants, { key: o.map(([k, v]) => `${k}=${v}`).join(','), overrides: o }]);
    setCustom('');
  };
  const current = p.sim.ref.kind === 'bundled' ? p.sim.ref.name : '';
  return (
    <header className="header">
      <h1 title="Linux 6.18.44 fair scheduler (EEVDF), simulated">schedlab</h1>
      <label>
        scenario{' '}
        <select aria-label="scenario" value={current} onChange={(e) => p.onOpenBundled(e.target.value)}>
          {current === '' && <option value="">(opened file)</option>}
          {GALLERY.map((g) => (
            <option key={g.id} value={g.id} title={g.description}>
              {g.id}
            </option>
          ))}
        </select>
      </label>
      <button onClick={() => fileInput.current?.click()}>Open file…</button>
      <input
        ref={fileInput}
        type="file"
        accept=".toml,.json,text/plain"
        hidden
        data-testid="file-input"
        onChange={(e) => {
          const f = e.target.files?.[0];
          if (f) f.text().then((t) => p.onOpenText(f.name, t), (err: unknown) => setFileError(`${f.name} could not be read: ${errorMessage(err)}`));
          e.target.value = '';
        }}
      />
      {p.children}
      <details className="variants" ref={variantMenu}>
        <summary>variants ({p.sim.variants.length})</summary>
        <div className="variant-menu">
          {PRESETS.map((v) => {
            const on = keys.has(v.key);
            return (
              <label key={v.key} className={on ? 'variant-option on' : 'variant-option'} title={`${v.doc}\nSource: ${v.source}`} data-variant={v.key}>
                <input type="checkbox" checked={on} onChange={() => toggleVariant(v.key)} aria-describedby={`variant-desc-${v.key}`} />
                <span className="variant-text">
                  <span className="variant-name">{v.key}</span>
                  <span className="variant-short" id={`variant-desc-${v.key}`} data-testid="variant-short">
                    {v.short}
                    <span className="variant-source" data-testid="variant-source">
                      {' '}
                      Source: {v.source}
                    </span>
                  </span>
                </span>
              </label>
            );
          })}
          {p.sim.variants
            .filter((v) => !PRESETS.some((x) => x.key === v.key))
            .map((v) => (
              <label key={v.key}>
                <input type="checkbox" checked onChange={() => p.onVariants(p.sim.variants.filter((x) => x.key !== v.key))} /> {v.key}
              </label>
            ))}
          <div>
            <input aria-label="custom variant" placeholder="NAME=VALUE, …" value={custom} onChange={(e) => setCustom(e.target.value)} onKeyDown={(e) => e.key === 'Enter' && addCustom()} />
            <button onClick={addCustom}>add</button>
            {customError && <div className="error">{customError}</div>}
          </div>
          <small>Up to 4 variants run side by side on one time axis.</small>
        </div>
      </details>
      <label>
        lanes{' '}
        <select aria-label="lane mode" value={p.mode} onChange={(e) => p.onMode(e.target.value === 'absolute' ? 'absolute' : 'relative')}>
          <option value="relative">relative to V</option>
          <option value="absolute">absolute</option>
        </select>
      </label>
      {(['editor', 'inspector', 'metrics', 'cgroups'] as PanelId[]).map((id) => (
        <button key={id} aria-pressed={p.panels.has(id)} className={p.panels.has(id) ? 'on' : ''} onClick={() => p.onTogglePanel(id)}>
          {id}
        </button>
      ))}
      <button
        data-testid="share"
        onClick={() => {
          p.onShare().then(
            (url) => {
              setShared(url);
              navigator.clipboard?.writeText(url).catch(() => undefined);
            },
            (err: unknown) => setFileError(`The share link could not be made: ${errorMessage(err)}`),
          );
        }}
      >
        Share
      </button>
      <button aria-pressed={p.guideOpen} className={p.guideOpen ? 'on' : ''} title="The vCPU-debooster thread, claim by claim" onClick={p.onGuide}>
        guide
      </button>
      {p.onLessons && (
        <button aria-pressed={!!p.lessonsOpen} className={p.lessonsOpen ? 'on' : ''} title="Guided lessons (L)" onClick={p.onLessons}>
          lessons
        </button>
      )}
      <button aria-label="keyboard help" onClick={() => p.onTogglePanel('help')}>
        ?
      </button>
      {p.sim.progress !== null && (
        <span className="progress" role="progressbar" aria-valuenow={Math.round(p.sim.progress * 100)}>
          <progress value={p.sim.progress} max={1} /> simulating… <button onClick={p.onCancel}>cancel</button>
        </span>
      )}
      {fileError && (
        <div className="error" role="alert">
          {fileError} <button onClick={() => setFileError(null)}>×</button>
        </div>
      )}
      {shared && (
        <div className="share-box">
          <input readOnly aria-label="share link" value={shared} onFocus={(e) => e.target.select()} /> ({shared.length} chars, copied)
          <button onClick={() => setShared(null)}>×</button>
        </div>
      )}
    </header>
  );
});
