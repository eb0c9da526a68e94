// A guided comparison for the vCPU-debooster review thread: one section per claim, with who
// made it, what schedlab measured, a button that opens the scenario with the right variants
// side by side, and, while that scenario is open, the same figures computed live from the
// loaded variants' summaries. A drawer beside the timeline; Esc or × closes it.

import { useEffect } from 'react';
import type { SimState } from '../state/types';
import { GUIDE, liveRows, type GuideClaim } from '../state/guide';

interface Props {
  sim: SimState;
  onOpen: (c: GuideClaim) => void;
  onClose: () => void;
}

function LiveTable({ claim, sim }: { claim: GuideClaim; sim: SimState }) {
  const open = sim.ref.kind === 'bundled' && sim.ref.name === claim.scenario && sim.meta?.name === claim.scenario;
  if (!open) return <p className="guide-hint">Open it to compute these figures live in your browser.</p>;
  if (sim.progress !== null || sim.loaded.length === 0) return <p className="guide-hint">simulating…</p>;
  const rows = liveRows(claim, sim.loaded);
  return (
    <table className="guide-live" data-testid={`guide-live-${claim.id}`}>
      <thead>
        <tr>
          <th>variant</th>
          {claim.columns.map((c) => (
            <th key={c}>{c}</th>
          ))}
          <th>expected</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.key}>
            <td>{r.key}</td>
            {r.cells.map((c, i) => (
              <td key={i}>{c}</td>
            ))}
            <td className="muted">{r.expected}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function DeboosterGuide({ sim, onOpen, onClose }: Props) {
  useEffect(() => {
    const key = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onClose();
    };
    window.addEventListener('keydown', key);
    return () => window.removeEventListener('keydown', key);
  }, [onClose]);
  return (
    <aside className="guide" role="dialog" aria-label="debooster guide" data-testid="guide">
      <div className="guide-head">
        <h2>The vCPU-debooster thread, measured</h2>
        <button aria-label="close guide" onClick={onClose}>
          ×
        </button>
      </div>
      <p className="guide-intro">
        Claims from the review of Wanpeng Li’s yield_to debooster and the yield proposals around it. Each figure
        below comes from <code>schedlab compare</code> (deterministic); “Open in schedlab” runs the same
        scenario and variants here, and the table recomputes them from the runs.
      </p>
      {GUIDE.map((c, i) => (
        <section key={c.id} className="guide-claim" data-testid={`guide-${c.id}`}>
          <h3>
            {String.fromCharCode(97 + i)}. {c.title}
          </h3>
          <p className="guide-who">{c.who}</p>
          <p>
            <b>Claim.</b> {c.claim}
          </p>
          <p>
            <b>Measured.</b> {c.answer}
          </p>
          <div className="guide-open">
            <button onClick={() => onOpen(c)}>Open in schedlab</button>{' '}
            <small className="muted">
              {c.scenario}: {c.variants.join(', ')}
            </small>
          </div>
          <LiveTable claim={c} sim={sim} />
        </section>
      ))}
    </aside>
  );
}
