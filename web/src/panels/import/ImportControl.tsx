// "Import trace…": a button over a hidden file input taking one or more files (a trace, and
// optionally its bpftrace dumps); with a trace open, "Add dump…" attaches an EEVDF dump or a
// CPU-averages dump to it.
import { memo, useRef } from 'react';

interface Props {
  onFiles: (files: File[], attach: boolean) => void;
  /** A trace is open (offer to attach a dump). */
  traceOpen: boolean;
  busy: boolean;
}

export const ImportControl = memo(function ImportControl({ onFiles, traceOpen, busy }: Props) {
  const traces = useRef<HTMLInputElement>(null);
  const dump = useRef<HTMLInputElement>(null);
  const pick = (input: HTMLInputElement, attach: boolean) => {
    const files = [...(input.files ?? [])];
    input.value = '';
    if (files.length) onFiles(files, attach);
  };
  return (
    <span className="import-control">
      <button
        disabled={busy}
        title="Import a trace: tracefs text, trace-cmd report or .dat, perf script, systrace HTML, or a bpftrace dump (select the dumps with their trace to see both). Or drop the files on the page."
        onClick={() => traces.current?.click()}
      >
        Import trace…
      </button>
      <input ref={traces} type="file" multiple hidden data-testid="trace-input" onChange={(e) => pick(e.target, true)} />
      {traceOpen && (
        <>
          <button
            disabled={busy}
            title="Attach a bpftrace dump captured with this trace: the EEVDF-state dump (eevdf-state.txt: real vruntime/deadline lanes, and the shadow's queues seeded from it), the CPU-averages dump (cpu-avg.txt: the shadow's placements asked at the kernel's CPU averages) or the balance-pass dump (balance.txt: each balance pass the kernel ran asked of the model)"
            onClick={() => dump.current?.click()}
          >
            Add dump…
          </button>
          <input ref={dump} type="file" hidden data-testid="eevdf-input" onChange={(e) => pick(e.target, true)} />
        </>
      )}
    </span>
  );
});
