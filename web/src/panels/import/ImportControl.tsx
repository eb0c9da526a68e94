// "Import trace…": a button over a hidden file input taking one or more files (a trace, and
// optionally its bpftrace EEVDF dump); with a trace open, "Add EEVDF dump…" attaches a dump.
import { memo, useRef } from 'react';

interface Props {
  onFiles: (files: File[], attach: boolean) => void;
  /** A trace is open (offer to attach an EEVDF dump). */
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
        title="Import a trace: tracefs text, trace-cmd report or .dat, perf script, systrace HTML, or a bpftrace EEVDF dump (select the dump with its trace to see both). Or drop the files on the page."
        onClick={() => traces.current?.click()}
      >
        Import trace…
      </button>
      <input ref={traces} type="file" multiple hidden data-testid="trace-input" onChange={(e) => pick(e.target, true)} />
      {traceOpen && (
        <>
          <button disabled={busy} title="Attach the bpftrace EEVDF-state dump captured with this trace: real vruntime/deadline lanes" onClick={() => dump.current?.click()}>
            Add EEVDF dump…
          </button>
          <input ref={dump} type="file" hidden data-testid="eevdf-input" onChange={(e) => pick(e.target, true)} />
        </>
      )}
    </span>
  );
});
