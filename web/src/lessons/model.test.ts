// The lesson loader: every bundled lesson parses, names scenarios of the gallery, variants the
// UI offers, entities its scenario declares and times inside the step's range; the parser
// rejects malformed lessons with errors that say where; times follow the engine's grammar.
import { describe, expect, it } from 'vitest';
import { GALLERY, findScenario } from '../state/gallery';
import { LESSONS, LESSON_ERRORS } from './data';
import { COUNT_KINDS, lessonTime, parseLesson } from './model';
import { stepScenario, stepVariants, stepWindow, tryVariant } from './step_view';
import { viewOfStep } from './controller';

describe('bundled lessons', () => {
  it('all parse', () => {
    expect(LESSON_ERRORS).toEqual([]);
    expect(LESSONS.length).toBeGreaterThanOrEqual(12);
    expect(new Set(LESSONS.map((l) => l.id)).size).toBe(LESSONS.length);
  });

  it('name bundled scenarios, known variants, declared entities and times inside the range', () => {
    const problems: string[] = [];
    for (const l of LESSONS) {
      if (!findScenario(l.scenario)) problems.push(`${l.id}: no bundled scenario ${l.scenario}`);
      l.steps.forEach((s, i) => {
        const where = `${l.id} step ${i + 1}`;
        const g = stepScenario(l, s);
        if (!g) return problems.push(`${where}: no bundled scenario ${s.scenario}`);
        const v = stepVariants(s);
        if (typeof v === 'string') problems.push(`${where}: ${v}`);
        else if (v.length + (s.try ? 1 : 0) > 4) problems.push(`${where}: more than 4 variants with the knob`);
        if (s.try) for (const x of s.try.values) if (!tryVariant(s, x)) problems.push(`${where}: knob ${s.try.knob}=${x}`);
        // Entities: a task's `name = "…"` or a cgroup's `path = "…"` in the scenario text.
        for (const h of s.highlight) {
          const decl = h.startsWith('/') ? `path = "${h}"` : `name = "${h}"`;
          if (!g.text.includes(decl)) problems.push(`${where}: ${h} is not declared in ${g.id}`);
        }
        const w = stepWindow(s, null);
        if (!(w.window[0] <= w.cursor && w.cursor <= w.window[1])) problems.push(`${where}: cursor outside the range`);
        if (!viewOfStep(l, i)) problems.push(`${where}: no view`);
        const ranged = [s.expect, s.try?.expect].flatMap((e) => (e ? [...e.migrations, ...e.placements] : []));
        for (const c of ranged) {
          if (c.range) {
            const [a, b] = c.range.map((t) => lessonTime(t) as number);
            if (a < w.window[0] || b > w.window[1]) problems.push(`${where}: migration/placement range outside the step's range`);
          }
        }
        for (const c of [...s.expect.counts, ...(s.try?.expect?.counts ?? [])]) {
          if (!(c.kind in COUNT_KINDS)) problems.push(`${where}: count kind ${c.kind}`);
          if (c.range) {
            const [a, b] = c.range.map((t) => lessonTime(t) as number);
            if (a < w.window[0] || b > w.window[1]) problems.push(`${where}: count range outside the step's range`);
          }
        }
      });
    }
    expect(problems).toEqual([]);
  });

  it('every step is a share-link view of a bundled scenario with the lesson attached', () => {
    const l = LESSONS.find((x) => x.id === 'lca-penalty-debate')!;
    const v = viewOfStep(l, 2)!;
    expect(v.scenario).toEqual({ kind: 'bundled', name: 'yield/prateek-topology-2', hash: findScenario('yield/prateek-topology-2')!.hash });
    expect(v.variants.map((x) => x.key)).toEqual(['baseline', 'debooster-v1', 'debooster-v2']);
    expect(v.lesson).toEqual({ id: 'lca-penalty-debate', step: 2 });
    expect(v.window).toEqual([0, 60e6]);
    expect(v.cursor).toBe(30e6);
    const knob = tryVariant(l.steps[4], 'lag_transfer')!;
    expect(knob).toEqual({ key: 'yield_to=lag_transfer', overrides: [['yield_to', 'lag_transfer']] });
    expect(GALLERY.some((g) => g.id.startsWith('lessons/'))).toBe(true);
  });
});

describe('lessonTime', () => {
  it('reads a number and a unit, exactly, as the engine does', () => {
    expect(lessonTime('12ms')).toBe(12_000_000);
    expect(lessonTime('1.5ms')).toBe(1_500_000);
    expect(lessonTime('4.035ms')).toBe(4_035_000);
    expect(lessonTime('300us')).toBe(300_000);
    expect(lessonTime('300µs')).toBe(300_000);
    expect(lessonTime('2s')).toBe(2e9);
    expect(lessonTime('0.05ms')).toBe(50_000);
    for (const bad of ['12', 'ms', ' 12ms', '1.ms', '.5ms', '1.2.3ms', 'forever', '12 ms', '12min', '1.5ns']) expect(lessonTime(bad), bad).toBeNull();
  });
});

describe('parseLesson', () => {
  const step = { title: 't', text: ['p'], range: ['0ms', '10ms'], at: '5ms', question: 'q', expect: { picked: 'A' } };
  const lesson = (s: object) => ({ id: 'x', title: 'T', summary: 'S', scenario: 'gallery/equal-hogs', steps: [s] });
  const err = (o: unknown) => {
    const r = parseLesson('lessons/x.json', o);
    if (r.ok) throw new Error('parsed');
    return r.error;
  };

  it('accepts a minimal lesson with defaults', () => {
    const r = parseLesson('x', lesson(step));
    expect(r.ok && r.lesson.steps[0]).toMatchObject({ cpu: 0, variants: [], highlight: [], expect: { picked: 'A', eligible: [], counts: [] } });
  });

  it('reads the SMP facts', () => {
    const e = {
      on_cpu: [{ task: 'A', cpu: 1, at: '2ms' }],
      cpu_time: [{ task: 'A', cpu: 0, min_pct: 1, max_pct: 2 }, { task: 'B', min_pct: 3, max_pct: 4 }],
      migrations: [{ task: 'A', class: 'periodic', range: ['1ms', '2ms'], min: 1, max: 1 }],
      placements: [{ rule: 'target_busy', affine: 'idle', cpu: 1, min: 0, max: 9 }],
    };
    const r = parseLesson('x', lesson({ ...step, expect: e }));
    expect(r.ok && r.lesson.steps[0].expect).toMatchObject(e);
  });

  it('says what and where', () => {
    expect(err(lesson({ ...step, titel: 'x' }))).toBe('lessons/x.json.steps[0]: unknown field "titel"');
    expect(err(lesson({ ...step, at: '5 ms' }))).toBe('lessons/x.json.steps[0].at: "5 ms" is not a time (a number and a unit: ns, us, µs, ms, s)');
    expect(err(lesson({ ...step, range: ['10ms', '5ms'] }))).toBe('lessons/x.json.steps[0].range: the start must be before the end');
    expect(err(lesson({ ...step, at: '20ms' }))).toBe('lessons/x.json.steps[0].at: the cursor lies outside the range');
    expect(err(lesson({ ...step, expect: { reason: 'luck' } }))).toBe('lessons/x.json.steps[0].expect.reason: unknown pick reason "luck"');
    expect(err(lesson({ ...step, expect: { counts: [{ kind: 'tick', min: 0, max: 1 }] } }))).toBe('lessons/x.json.steps[0].expect.counts[0].kind: "tick" is not a countable event kind');
    expect(err(lesson({ ...step, try: { knob: 'hz', values: [], look: 'l' } }))).toBe('lessons/x.json.steps[0].try.values: give at least one value');
    const smp = (e: object) => err(lesson({ ...step, expect: e }));
    expect(smp({ on_cpu: [{ task: 'A' }] })).toBe('lessons/x.json.steps[0].expect.on_cpu[0].cpu: expected a non-negative integer');
    expect(smp({ on_cpu: [{ task: '/g', cpu: 0 }] })).toBe('lessons/x.json.steps[0].expect.on_cpu[0].task: name a task, not a cgroup ("/g")');
    expect(smp({ on_cpu: [{ task: 'A', cpu: 0, at: 'soon' }] })).toBe('lessons/x.json.steps[0].expect.on_cpu[0].at: "soon" is not a time (a number and a unit: ns, us, µs, ms, s)');
    expect(smp({ cpu_time: [{ task: 'A', min_pct: 9, max_pct: 1 }] })).toBe('lessons/x.json.steps[0].expect.cpu_time[0]: min_pct is above max_pct');
    expect(smp({ cpu_time: [{ task: 'A', min: 0, max: 1 }] })).toBe('lessons/x.json.steps[0].expect.cpu_time[0]: unknown field "min"');
    expect(smp({ migrations: [{ class: 'sideways', min: 0, max: 1 }] })).toBe(
      'lessons/x.json.steps[0].expect.migrations[0].class: unknown migration class "sideways" (wake, periodic, newidle, nohz, active, affinity, exec)',
    );
    expect(smp({ migrations: [{ task: 'A', min: 1 }] })).toBe('lessons/x.json.steps[0].expect.migrations[0]: min and max are required');
    expect(smp({ placements: [{ rule: 'anywhere', min: 0, max: 1 }] })).toMatch(/^lessons\/x\.json\.steps\[0\]\.expect\.placements\[0\]\.rule: unknown placement rule "anywhere" \(pinned, target_idle, /);
    expect(smp({ placements: [{ affine: 'maybe', min: 0, max: 1 }] })).toBe('lessons/x.json.steps[0].expect.placements[0].affine: unknown wake_affine part "maybe" (none, idle, weight, prev)');
    expect(smp({ placements: [{ min: 0, max: 1, range: ['2ms', '1ms'] }] })).toBe('lessons/x.json.steps[0].expect.placements[0].range: the start must be before the end');
    expect(err({ ...lesson(step), steps: [] })).toBe('lessons/x.json.steps: expected a non-empty list');
    expect(err({ ...lesson(step), id: 'Has Space' })).toBe('lessons/x.json.id: lowercase letters, digits and dashes only');
  });
});
