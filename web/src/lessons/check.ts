// Checking a step's stated facts in the browser, against the runs the worker holds: the pick
// at the step's cursor (the same latest task-level pick the inspector explains, with its
// levels), each task's latest state (its CPU too), the run's summary (CPU time per CPU), and
// the markers of a time range (counts, migrations by class, placements by rule).
// The engine's lesson test checks the same facts natively (wasm-engine/engine/src/lesson).
// Evaluation is pure; `FactSource` is how the facts are fetched.

import { EVENT_KIND_NAMES, SwitchReasonWords, YieldToReasonWords, type CursorState, type Pick, type ScenarioMeta, type Summary, type WindowData } from '../engine/protocol';
import { AFFINE_PARTS, COUNT_KINDS, lessonTime, MIGRATION_CLASSES, PLACEMENT_RULES, type Expect } from './model';
import { entityId } from './step_view';

/** Where the facts come from (the app passes the engine client's answers). */
export interface FactSource {
  cursor(variant: string, t: number): Promise<CursorState>;
  /** Markers of `[t0, t1)`. */
  window(variant: string, t0: number, t1: number): Promise<WindowData>;
  summary(variant: string): Summary | undefined;
}

/** One stated fact and whether it holds. */
export interface FactResult {
  label: string;
  ok: boolean;
  /** What was found, when it differs. */
  detail: string;
}

export interface FactDefaults {
  variant: string;
  at: number;
  cpu: number;
  range: [number, number];
}

/** The queue a pick was made on, as a cgroup path ("/" for the root cfs_rq). */
export function levelPath(level: string): string {
  const m = /^the cfs_rq of (.+)$/.exec(level);
  return m ? m[1] : '/';
}

/** A pick's node name as a lesson names it ("[/a]" → "/a"). */
export function lessonName(name: string): string {
  const m = /^\[(\/.*)\]$/.exec(name);
  return m ? m[1] : name;
}

/** The pick of the decision on `level` (default: the task level). */
export function pickAt(pick: Pick | null, level?: string): Pick | null {
  if (!pick) return null;
  if (level === undefined) return pick;
  return (pick.levels ?? [pick]).find((l) => levelPath(l.level) === level) ?? null;
}

/** A summary field: a task's, or a dotted path from the top. */
export function metricValue(summary: unknown, task: string | undefined, field: string): number | undefined {
  let base: unknown = summary;
  if (task !== undefined) {
    const tasks = (summary as { tasks?: { name: string }[] } | undefined)?.tasks;
    base = tasks?.find((t) => t.name === task);
  }
  const v = field.split('.').reduce<unknown>((o, k) => (typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[k] : undefined), base);
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** Markers of `kind` (with the entity and value if given) in `[t0, t1)`. */
export function countMarkers(w: WindowData, kind: number, id: number | null, val: number | undefined, t0: number, t1: number): number {
  const m = w.markers;
  let n = 0;
  for (let i = 0; i < m.t.length; i++) {
    if (m.kind[i] !== kind || m.t[i] < t0 || m.t[i] >= t1) continue;
    if (id !== null && m.task[i] !== id) continue;
    if (val !== undefined && m.val[i] !== val) continue;
    n++;
  }
  return n;
}

/** Markers of `kind` in `[t0, t1)` that pass `keep` (given the marker's row). */
export function countRows(w: WindowData, kind: number, t0: number, t1: number, keep: (i: number) => boolean): number {
  const m = w.markers;
  let n = 0;
  for (let i = 0; i < m.t.length; i++) if (m.kind[i] === kind && m.t[i] >= t0 && m.t[i] < t1 && keep(i)) n++;
  return n;
}

/** A select_rq marker's `val` unpacked (the engine's `PlacementRow`): the rule (bits 0-7) and
 * wake_affine()'s part (bits 8-15), by name. The value crosses as a float of a signed 64-bit
 * integer, exact here (its magnitude is below 2^53), so its low 32 bits are read arithmetically. */
export function placementOf(val: number): { rule: string; affine: string } {
  const low = ((val % 2 ** 32) + 2 ** 32) % 2 ** 32;
  return { rule: PLACEMENT_RULES[low & 0xff] ?? '?', affine: AFFINE_PARTS[(low >> 8) & 0xff] ?? '?' };
}

/** A task's whole-run CPU time on `cpu` (all CPUs if undefined) as a percentage of the run,
 * from the summary, as the engine's `cpu_time_pct` reads it. */
export function cpuTimePct(summary: Summary | undefined, task: string, cpu: number | undefined): number | undefined {
  const t = summary?.tasks.find((x) => x.name === task);
  if (!summary || !t || !(summary.duration_ns > 0)) return undefined;
  const ns = cpu === undefined ? t.cpu_time_ns : t.cpu_time_ns_by_cpu[cpu];
  return ns === undefined ? undefined : (100 * ns) / summary.duration_ns;
}

/** A marker value in words: a switch's reason, a yield's outcome, a yield_to's outcome and reason. */
export function valueWords(kind: string, val: number): string {
  if (kind === 'switch') return `reason ${SwitchReasonWords[val] ?? val}`;
  if (kind === 'wakeup') return val === 0x10 ? 'WF_SYNC' : val === 0 ? 'no wake flags' : `wake flags ${val}`;
  if (kind === 'yield') return val === 1 ? 'reaching schedule()' : 'throttled (returned at once)';
  if (kind === 'yield_to') return `${val & 1 ? 'yielded' : 'not yielded'}, ${YieldToReasonWords[val >> 1] ?? val >> 1}`;
  return `value ${val}`;
}

/** The select_rq event kind's code (placements are markers, not countable kinds). */
const SELECT_RQ = EVENT_KIND_NAMES.indexOf('select_rq');

/** wake_affine()'s part of a placement in words (`AffinePath`). */
const AFFINE_WORDS: Record<string, string> = {
  none: 'no wake_affine() choice',
  idle: 'wake_affine_idle() chose',
  weight: 'wake_affine_weight() chose',
  prev: 'wake_affine() kept the previous CPU',
};

/** A migration class in words (`MigrateClass`). */
const CLASS_WORDS: Record<string, string> = {
  wake: 'at wakeup',
  periodic: 'by periodic balancing',
  newidle: 'by newidle balancing',
  nohz: 'by nohz idle balancing',
  active: 'by active balancing',
  affinity: 'by an affinity change',
  exec: 'at exec',
};

const fmt = (ns: number) => (ns >= 1e6 ? `${+(ns / 1e6).toFixed(3)} ms` : ns >= 1e3 ? `${+(ns / 1e3).toFixed(3)} µs` : `${ns} ns`);
const REASON_WORDS: Record<string, string> = {
  only_entity: 'the only entity queued',
  buddy: 'the next buddy',
  protected: 'protected (RUN_TO_PARITY)',
  earliest_eligible_deadline: 'the earliest eligible deadline',
  curr_earlier_deadline: 'running with an earlier deadline',
  delayed_dequeued: 'a delayed dequeue',
};

/** Checks `e` and returns one result per stated fact, in the order they are stated. */
export async function checkExpect(e: Expect, d: FactDefaults, meta: ScenarioMeta, src: FactSource): Promise<FactResult[]> {
  const out: FactResult[] = [];
  const variant = e.variant ?? d.variant;
  const at = e.at !== undefined ? (lessonTime(e.at) ?? d.at) : d.at;
  const cpu = e.cpu ?? d.cpu;
  const where = `${variant}, ${fmt(at)}, CPU ${cpu}${e.level !== undefined ? `, on the ${e.level === '/' ? 'root cfs_rq' : `cfs_rq of ${e.level}`}` : ''}`;
  const wantsPick = e.picked !== undefined || e.reason !== undefined || e.buddy !== undefined || e.eligible.length > 0 || e.not_eligible.length > 0;
  if (wantsPick || e.delayed.length > 0 || e.sleeping.length > 0) {
    const st = await src.cursor(variant, at);
    const p = pickAt(st.cpus.find((c) => c.cpu === cpu)?.pick ?? null, e.level);
    const none = p === null ? 'no such pick' : '';
    if (e.picked !== undefined) {
      const got = p ? lessonName(p.name) : none;
      out.push({ label: `${e.picked} is picked (${where})`, ok: got === e.picked, detail: got });
    }
    if (e.reason !== undefined) {
      const got = p?.reason ?? none;
      out.push({ label: `…as ${REASON_WORDS[e.reason] ?? e.reason}`, ok: got === e.reason, detail: got });
    }
    if (e.buddy !== undefined) {
      const got = p?.buddy_src ?? none;
      const by: Record<string, string> = {
        yield_to: 'a yield_to()',
        wakeup: 'a wakeup (NEXT_BUDDY)',
        sleep: 'a sleep inside the group (dequeue_entities)',
        sustained: 'the sustained yield_to proposal',
      };
      out.push({ label: e.buddy === 'none' ? 'no next buddy was set' : `the next buddy was set by ${by[e.buddy] ?? e.buddy}`, ok: got === e.buddy, detail: got });
    }
    for (const [names, want] of [
      [e.eligible, true],
      [e.not_eligible, false],
    ] as const) {
      for (const n of names) {
        const c = p?.candidates.find((x) => lessonName(x.name) === n);
        const got = c === undefined ? 'not a candidate' : c.eligible ? 'eligible' : 'not eligible';
        out.push({ label: `${n} is ${want ? '' : 'not '}eligible`, ok: c !== undefined && c.eligible === want, detail: got });
      }
    }
    for (const [names, delayed] of [
      [e.delayed, true],
      [e.sleeping, false],
    ] as const) {
      for (const n of names) {
        const s = st.tasks.find((x) => x.name === n);
        const got = !s ? 'no state yet' : !s.on_rq ? 'not queued' : s.delayed ? 'asleep but queued (delayed)' : 'queued';
        const ok = !!s && (delayed ? s.on_rq && s.delayed : !s.on_rq);
        out.push({ label: delayed ? `${n} is asleep but still queued (delayed dequeue)` : `${n} is not queued`, ok, detail: got });
      }
    }
  }
  for (const m of e.metrics) {
    const v = m.variant ?? variant;
    const got = metricValue(src.summary(v), m.task, m.field);
    const range = m.min === m.max ? `${m.min}` : `${m.min}–${m.max}`;
    out.push({ label: `${m.task ? `${m.task}: ` : ''}${m.field} = ${range} (${v})`, ok: got !== undefined && got >= m.min && got <= m.max, detail: got === undefined ? 'missing' : String(got) });
  }
  for (const c of e.counts) {
    const v = c.variant ?? variant;
    const [t0, t1] = c.range ? [lessonTime(c.range[0]) ?? 0, lessonTime(c.range[1]) ?? 0] : d.range;
    const id = c.task === undefined ? null : entityId(meta, c.task);
    if (c.task !== undefined && id === null) {
      out.push({ label: `${c.kind} events of ${c.task}`, ok: false, detail: `${c.task} is no task or cgroup of the scenario` });
      continue;
    }
    const w = await src.window(v, t0, t1);
    const n = countMarkers(w, COUNT_KINDS[c.kind], id, c.val, t0, t1);
    const span = c.min === c.max ? `${c.min}` : `${c.min}–${c.max}`;
    const what = `${c.kind} events${c.task ? ` of ${c.task}` : ''}${c.val !== undefined ? ` (${valueWords(c.kind, c.val)})` : ''}`;
    out.push({ label: `${what}: ${span} in [${fmt(t0)}, ${fmt(t1)}) (${v})`, ok: n >= c.min && n <= c.max, detail: String(n) });
  }
  for (const c of e.on_cpu) {
    const v = c.variant ?? variant;
    const t = c.at !== undefined ? (lessonTime(c.at) ?? at) : at;
    const s = (await src.cursor(v, t)).tasks.find((x) => x.name === c.task);
    out.push({ label: `${c.task} is on CPU ${c.cpu} (${v}, ${fmt(t)})`, ok: !!s && s.cpu === c.cpu, detail: s ? `on CPU ${s.cpu}` : 'no state yet' });
  }
  for (const c of e.cpu_time) {
    const v = c.variant ?? variant;
    const got = cpuTimePct(src.summary(v), c.task, c.cpu);
    const span = c.min_pct === c.max_pct ? `${c.min_pct}` : `${c.min_pct}–${c.max_pct}`;
    const on = c.cpu === undefined ? 'on all CPUs together' : `on CPU ${c.cpu}`;
    out.push({ label: `${c.task} ran ${span} % of a CPU ${on} over the run (${v})`, ok: got !== undefined && got >= c.min_pct && got <= c.max_pct, detail: got === undefined ? 'missing' : `${+got.toFixed(2)} %` });
  }
  const ranged = async (v: string, task: string | undefined, range: [string, string] | undefined) => {
    const [t0, t1] = range ? [lessonTime(range[0]) ?? 0, lessonTime(range[1]) ?? 0] : d.range;
    const id = task === undefined ? null : entityId(meta, task);
    return { t0, t1, id, w: task !== undefined && id === null ? null : await src.window(v, t0, t1) };
  };
  for (const c of e.migrations) {
    const v = c.variant ?? variant;
    const { t0, t1, id, w } = await ranged(v, c.task, c.range);
    const what = `migrations${c.task ? ` of ${c.task}` : ''}${c.class ? ` ${CLASS_WORDS[c.class] ?? c.class}` : ''}`;
    const span = c.min === c.max ? `${c.min}` : `${c.min}–${c.max}`;
    const label = `${what}: ${span} in [${fmt(t0)}, ${fmt(t1)}) (${v})`;
    if (!w) {
      out.push({ label, ok: false, detail: `${c.task} is no task of the scenario` });
      continue;
    }
    const cls = c.class === undefined ? -1 : MIGRATION_CLASSES.indexOf(c.class);
    const m = w.markers;
    const n = countRows(w, COUNT_KINDS.migrate, t0, t1, (i) => (id === null || m.task[i] === id) && (cls < 0 || m.arg[i] === cls));
    out.push({ label, ok: n >= c.min && n <= c.max, detail: String(n) });
  }
  for (const c of e.placements) {
    const v = c.variant ?? variant;
    const { t0, t1, id, w } = await ranged(v, c.task, c.range);
    const by = [c.rule !== undefined ? `rule ${c.rule}` : '', c.affine !== undefined ? (AFFINE_WORDS[c.affine] ?? c.affine) : ''].filter((x) => x).join(', ');
    const what = `placements${c.task ? ` of ${c.task}` : ''}${c.cpu !== undefined ? ` onto CPU ${c.cpu}` : ''}${by ? ` (${by})` : ''}`;
    const span = c.min === c.max ? `${c.min}` : `${c.min}–${c.max}`;
    const label = `${what}: ${span} in [${fmt(t0)}, ${fmt(t1)}) (${v})`;
    if (!w) {
      out.push({ label, ok: false, detail: `${c.task} is no task of the scenario` });
      continue;
    }
    const m = w.markers;
    const keep = (i: number) => {
      if ((id !== null && m.task[i] !== id) || (c.cpu !== undefined && m.cpu[i] !== c.cpu)) return false;
      const p = placementOf(m.val[i]);
      return (c.rule === undefined || p.rule === c.rule) && (c.affine === undefined || p.affine === c.affine);
    };
    const n = countRows(w, SELECT_RQ, t0, t1, keep);
    out.push({ label, ok: n >= c.min && n <= c.max, detail: String(n) });
  }
  return out;
}
