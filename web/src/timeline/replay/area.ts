// An area of the replay view (Shift+drag): a time range and the CPU lanes or thread tracks it
// covers. The replay controller asks the engine for its figures (import::metrics).

export interface Area {
  /** Times relative to the trace's origin (ns). */
  t0: number;
  t1: number;
  /** CPUs whose lanes it covers (empty: every CPU, when it was drawn over thread tracks). */
  cpus: number[];
  /** Tasks whose thread tracks it covers (empty: every task, when drawn over CPU lanes). */
  tasks: number[];
  /** Still being dragged. */
  live: boolean;
}
