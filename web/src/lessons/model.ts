// Lessons as data: the shape of `lessons/*.json` (the same files the engine's lesson test
// checks, wasm-engine/engine/src/lesson/mod.rs) and a strict parser: unknown fields, wrong
// types and malformed times are errors naming the lesson, the step and the field. The fields
// each fact may have, and the names of migration classes, placement rules and wake_affine()
// parts, are the engine's (LESSON_FACT_FIELDS and the code tables of the generated contract).

import { AFFINE_PATH_NAMES, BUDDY_SOURCES, EVENT_KIND_NAMES, LESSON_FACT_FIELDS as FIELDS, MARKER_KINDS, MIGRATE_CLASS_NAMES, PICK_REASONS, PLACE_PATH_NAMES } from '../engine/protocol';

export interface MetricExpect {
  variant?: string;
  task?: string;
  field: string;
  min: number;
  max: number;
}

export interface CountExpect {
  variant?: string;
  kind: string;
  task?: string;
  val?: number;
  min: number;
  max: number;
  range?: [string, string];
}

/** A task on a CPU at an instant (task_cpu(): running, queued or asleep there). */
export interface OnCpuExpect {
  variant?: string;
  at?: string;
  task: string;
  cpu: number;
}

/** A task's whole-run CPU time on one CPU (or on all) as a percentage of the run. */
export interface CpuTimeExpect {
  variant?: string;
  task: string;
  cpu?: number;
  min_pct: number;
  max_pct: number;
}

/** Migrations (migrate markers) in a range, by task and class. */
export interface MigrationsExpect {
  variant?: string;
  task?: string;
  class?: string;
  range?: [string, string];
  min: number;
  max: number;
}

/** Wakeup placements (select_rq markers) in a range, by task, rule, wake_affine()'s part and CPU. */
export interface PlacementsExpect {
  variant?: string;
  task?: string;
  rule?: string;
  affine?: string;
  cpu?: number;
  range?: [string, string];
  min: number;
  max: number;
}

export interface Expect {
  variant?: string;
  at?: string;
  cpu?: number;
  level?: string;
  picked?: string;
  reason?: string;
  buddy?: string;
  eligible: string[];
  not_eligible: string[];
  delayed: string[];
  sleeping: string[];
  metrics: MetricExpect[];
  counts: CountExpect[];
  on_cpu: OnCpuExpect[];
  cpu_time: CpuTimeExpect[];
  migrations: MigrationsExpect[];
  placements: PlacementsExpect[];
}

export interface TryKnob {
  knob: string;
  values: string[];
  look: string;
  expect?: Expect;
}

export interface Step {
  title: string;
  scenario?: string;
  text: string[];
  highlight: string[];
  range: [string, string];
  at: string;
  cpu: number;
  variants: string[];
  question: string;
  answer?: string;
  try?: TryKnob;
  expect: Expect;
}

export interface Lesson {
  id: string;
  title: string;
  summary: string;
  scenario: string;
  steps: Step[];
}

/** Event kinds a count may name (the timeline's marker kinds), with their log codes. */
export const COUNT_KINDS: Readonly<Record<string, number>> = Object.fromEntries(MARKER_KINDS.map((k) => [EVENT_KIND_NAMES[k], k]));

const PICK_REASON_NAMES: readonly string[] = PICK_REASONS;
/** Migration classes, placement rules and wake_affine() parts a fact may name (the engine's names). */
export const MIGRATION_CLASSES: readonly string[] = MIGRATE_CLASS_NAMES;
export const PLACEMENT_RULES: readonly string[] = PLACE_PATH_NAMES;
export const AFFINE_PARTS: readonly string[] = AFFINE_PATH_NAMES;
const BUDDY_SOURCE_NAMES: readonly string[] = BUDDY_SOURCES;

/** A lesson time ("12ms", "1.5ms", "300us"): a number and a unit, in ns; null if malformed.
 * Same grammar as the engine's `lesson_time`. */
export function lessonTime(text: string): number | null {
  const m = /^(\d+)(?:\.(\d+))?(ns|us|µs|ms|s)$/.exec(text);
  if (!m) return null;
  const scale = { ns: 1, us: 1e3, 'µs': 1e3, ms: 1e6, s: 1e9 }[m[3]] as number;
  const frac = m[2] ?? '';
  // Exact decimal arithmetic down to whole ns, as the engine does.
  const digits = Math.round(Math.log10(scale));
  if (frac.length > digits && /[1-9]/.test(frac.slice(digits))) return null;
  const fracNs = frac === '' ? 0 : Number(frac.slice(0, digits).padEnd(digits, '0'));
  return Number(m[1]) * scale + fracNs;
}

type Obj = Record<string, unknown>;

class Fail extends Error {}

/** Field readers that report where a value is wrong. */
function reader(where: string, o: unknown, allowed: readonly string[]) {
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new Fail(`${where}: expected an object`);
  const obj = o as Obj;
  for (const k of Object.keys(obj)) if (!allowed.includes(k)) throw new Fail(`${where}: unknown field "${k}"`);
  const at = (k: string) => `${where}.${k}`;
  const r = {
    str(k: string): string {
      const v = obj[k];
      if (typeof v !== 'string' || v.trim() === '') throw new Fail(`${at(k)}: expected a non-empty string`);
      return v;
    },
    optStr(k: string): string | undefined {
      return obj[k] === undefined ? undefined : r.str(k);
    },
    num(k: string): number {
      const v = obj[k];
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new Fail(`${at(k)}: expected a number`);
      return v;
    },
    optInt(k: string): number | undefined {
      if (obj[k] === undefined) return undefined;
      const v = r.num(k);
      if (!Number.isSafeInteger(v) || v < 0) throw new Fail(`${at(k)}: expected a non-negative integer`);
      return v;
    },
    optAnyInt(k: string): number | undefined {
      if (obj[k] === undefined) return undefined;
      const v = r.num(k);
      if (!Number.isSafeInteger(v)) throw new Fail(`${at(k)}: expected an integer`);
      return v;
    },
    strs(k: string): string[] {
      const v = obj[k] ?? [];
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' && x !== '')) throw new Fail(`${at(k)}: expected a list of strings`);
      return v as string[];
    },
    time(k: string): string {
      const v = r.str(k);
      if (lessonTime(v) === null) throw new Fail(`${at(k)}: "${v}" is not a time (a number and a unit: ns, us, µs, ms, s)`);
      return v;
    },
    range(k: string): [string, string] {
      const v = obj[k];
      if (!Array.isArray(v) || v.length !== 2) throw new Fail(`${at(k)}: expected [start, end]`);
      const [a, b] = v.map((x, i) => {
        if (typeof x !== 'string' || lessonTime(x) === null) throw new Fail(`${at(k)}[${i}]: expected a time such as "12ms"`);
        return x;
      });
      if (!((lessonTime(a) as number) < (lessonTime(b) as number))) throw new Fail(`${at(k)}: the start must be before the end`);
      return [a, b];
    },
    raw(k: string): unknown {
      return obj[k];
    },
  };
  return r;
}

function parseExpect(where: string, o: unknown): Expect {
  const r = reader(where, o, FIELDS.expect);
  const reason = r.optStr('reason');
  if (reason !== undefined && !PICK_REASON_NAMES.includes(reason)) throw new Fail(`${where}.reason: unknown pick reason "${reason}"`);
  const buddy = r.optStr('buddy');
  if (buddy !== undefined && !BUDDY_SOURCE_NAMES.includes(buddy)) throw new Fail(`${where}.buddy: unknown buddy source "${buddy}"`);
  const list = (k: string) => {
    const v = r.raw(k) ?? [];
    if (!Array.isArray(v)) throw new Fail(`${where}.${k}: expected a list`);
    return v as unknown[];
  };
  const metrics = list('metrics').map((m, i) => {
    const w = `${where}.metrics[${i}]`;
    const mr = reader(w, m, FIELDS.metrics);
    const x: MetricExpect = { field: mr.str('field'), min: mr.num('min'), max: mr.num('max') };
    const [variant, task] = [mr.optStr('variant'), mr.optStr('task')];
    if (variant !== undefined) x.variant = variant;
    if (task !== undefined) x.task = task;
    if (x.min > x.max) throw new Fail(`${w}: min is above max`);
    return x;
  });
  const counts = list('counts').map((c, i) => {
    const w = `${where}.counts[${i}]`;
    const cr = reader(w, c, FIELDS.counts);
    const kind = cr.str('kind');
    if (!(kind in COUNT_KINDS)) throw new Fail(`${w}.kind: "${kind}" is not a countable event kind`);
    const x: CountExpect = { kind, min: cr.optInt('min') ?? 0, max: cr.optInt('max') ?? 0 };
    if (cr.raw('min') === undefined || cr.raw('max') === undefined) throw new Fail(`${w}: min and max are required`);
    const [variant, task, val] = [cr.optStr('variant'), cr.optStr('task'), cr.optAnyInt('val')];
    if (variant !== undefined) x.variant = variant;
    if (task !== undefined) x.task = task;
    if (val !== undefined) x.val = val;
    if (cr.raw('range') !== undefined) x.range = cr.range('range');
    return x;
  });
  const onCpu = list('on_cpu').map((c, i) => {
    const w = `${where}.on_cpu[${i}]`;
    const cr = reader(w, c, FIELDS.on_cpu);
    const cpu = cr.optInt('cpu');
    if (cpu === undefined) throw new Fail(`${w}.cpu: expected a non-negative integer`);
    const x: OnCpuExpect = { task: task(w, cr), cpu };
    const variant = cr.optStr('variant');
    if (variant !== undefined) x.variant = variant;
    if (cr.raw('at') !== undefined) x.at = cr.time('at');
    return x;
  });
  const cpuTime = list('cpu_time').map((c, i) => {
    const w = `${where}.cpu_time[${i}]`;
    const cr = reader(w, c, FIELDS.cpu_time);
    const x: CpuTimeExpect = { task: task(w, cr), min_pct: cr.num('min_pct'), max_pct: cr.num('max_pct') };
    const [variant, cpu] = [cr.optStr('variant'), cr.optInt('cpu')];
    if (variant !== undefined) x.variant = variant;
    if (cpu !== undefined) x.cpu = cpu;
    if (x.min_pct > x.max_pct) throw new Fail(`${w}: min_pct is above max_pct`);
    return x;
  });
  const bounds = (w: string, cr: ReturnType<typeof reader>) => {
    const [min, max] = [cr.optInt('min'), cr.optInt('max')];
    if (min === undefined || max === undefined) throw new Fail(`${w}: min and max are required`);
    return { min, max };
  };
  const named = (w: string, k: string, v: string | undefined, names: readonly string[], what: string) => {
    if (v !== undefined && !names.includes(v)) throw new Fail(`${w}.${k}: unknown ${what} "${v}" (${names.join(', ')})`);
    return v;
  };
  const migrations = list('migrations').map((c, i) => {
    const w = `${where}.migrations[${i}]`;
    const cr = reader(w, c, FIELDS.migrations);
    const x: MigrationsExpect = bounds(w, cr);
    const [variant, t, cls] = [cr.optStr('variant'), cr.optStr('task'), named(w, 'class', cr.optStr('class'), MIGRATION_CLASSES, 'migration class')];
    if (variant !== undefined) x.variant = variant;
    if (t !== undefined) x.task = t;
    if (cls !== undefined) x.class = cls;
    if (cr.raw('range') !== undefined) x.range = cr.range('range');
    return x;
  });
  const placements = list('placements').map((c, i) => {
    const w = `${where}.placements[${i}]`;
    const cr = reader(w, c, FIELDS.placements);
    const x: PlacementsExpect = bounds(w, cr);
    const [variant, t, cpu] = [cr.optStr('variant'), cr.optStr('task'), cr.optInt('cpu')];
    const rule = named(w, 'rule', cr.optStr('rule'), PLACEMENT_RULES, 'placement rule');
    const affine = named(w, 'affine', cr.optStr('affine'), AFFINE_PARTS, 'wake_affine part');
    if (variant !== undefined) x.variant = variant;
    if (t !== undefined) x.task = t;
    if (rule !== undefined) x.rule = rule;
    if (affine !== undefined) x.affine = affine;
    if (cpu !== undefined) x.cpu = cpu;
    if (cr.raw('range') !== undefined) x.range = cr.range('range');
    return x;
  });
  const e: Expect = {
    eligible: r.strs('eligible'),
    not_eligible: r.strs('not_eligible'),
    delayed: r.strs('delayed'),
    sleeping: r.strs('sleeping'),
    metrics,
    counts,
    on_cpu: onCpu,
    cpu_time: cpuTime,
    migrations,
    placements,
  };
  for (const k of ['variant', 'level', 'picked'] as const) {
    const v = r.optStr(k);
    if (v !== undefined) e[k] = v;
  }
  if (reason !== undefined) e.reason = reason;
  if (buddy !== undefined) e.buddy = buddy;
  if (r.raw('at') !== undefined) e.at = r.time('at');
  const cpu = r.optInt('cpu');
  if (cpu !== undefined) e.cpu = cpu;
  return e;
}

/** A fact's task: a task name, not a cgroup path. */
function task(w: string, cr: ReturnType<typeof reader>): string {
  const t = cr.str('task');
  if (t.startsWith('/')) throw new Fail(`${w}.task: name a task, not a cgroup ("${t}")`);
  return t;
}

function parseStep(where: string, o: unknown): Step {
  const r = reader(where, o, ['title', 'scenario', 'text', 'highlight', 'range', 'at', 'cpu', 'variants', 'question', 'answer', 'try', 'expect']);
  const text = r.strs('text');
  if (text.length === 0) throw new Fail(`${where}.text: give at least one paragraph`);
  const step: Step = {
    title: r.str('title'),
    text,
    highlight: r.strs('highlight'),
    range: r.range('range'),
    at: r.time('at'),
    cpu: r.optInt('cpu') ?? 0,
    variants: r.strs('variants'),
    question: r.str('question'),
    expect: parseExpect(`${where}.expect`, r.raw('expect')),
  };
  const at = lessonTime(step.at) as number;
  if (at < (lessonTime(step.range[0]) as number) || at > (lessonTime(step.range[1]) as number)) throw new Fail(`${where}.at: the cursor lies outside the range`);
  const scenario = r.optStr('scenario');
  if (scenario !== undefined) step.scenario = scenario;
  const answer = r.optStr('answer');
  if (answer !== undefined) step.answer = answer;
  if (r.raw('try') !== undefined) {
    const w = `${where}.try`;
    const tr = reader(w, r.raw('try'), ['knob', 'values', 'look', 'expect']);
    const t: TryKnob = { knob: tr.str('knob'), values: tr.strs('values'), look: tr.str('look') };
    if (t.values.length === 0) throw new Fail(`${w}.values: give at least one value`);
    if (tr.raw('expect') !== undefined) t.expect = parseExpect(`${w}.expect`, tr.raw('expect'));
    step.try = t;
  }
  return step;
}

/** Parses one lesson; `file` names it in errors. */
export function parseLesson(file: string, o: unknown): { ok: true; lesson: Lesson } | { ok: false; error: string } {
  try {
    const r = reader(file, o, ['id', 'title', 'summary', 'scenario', 'steps']);
    const steps = r.raw('steps');
    if (!Array.isArray(steps) || steps.length === 0) throw new Fail(`${file}.steps: expected a non-empty list`);
    const lesson: Lesson = {
      id: r.str('id'),
      title: r.str('title'),
      summary: r.str('summary'),
      scenario: r.str('scenario'),
      steps: steps.map((s, i) => parseStep(`${file}.steps[${i}]`, s)),
    };
    if (!/^[a-z0-9][a-z0-9-]{0,63}$/.test(lesson.id)) throw new Fail(`${file}.id: lowercase letters, digits and dashes only`);
    return { ok: true, lesson };
  } catch (e) {
    if (e instanceof Fail) return { ok: false, error: e.message };
    throw e;
  }
}
