// The lessons drawer: the list of lessons, or one step — its text, the entities highlighted
// in the timeline, a question (answer on request), a knob to try with "Back to the lesson",
// the step's stated facts checked live against the runs, Prev/Next and a link to the step.

import { useCallback, useEffect, useRef, useState } from 'react';
import { encodeState, shareUrl } from '../base/share';
import type { ScenarioMeta } from '../engine/protocol';
import type { SimState } from '../state/types';
import { checkExpect, type FactResult, type FactSource } from '../lessons/check';
import { LESSONS } from '../lessons/data';
import { lessonTime } from '../lessons/model';
import { stepScenario, stepVariants, tryVariant } from '../lessons/step_view';
import { useLessonController, type LessonController, type Lessons } from '../lessons/controller';
import { useQuery } from '../state/use_query';
import { errorMessage } from '../base/errors';

interface Props {
  lessons: Lessons;
  sim: SimState;
  facts: FactSource;
}

const NO_CHECKS = Promise.resolve(null);

/** Whether the loaded runs are the step's (its scenario, and its variants first). */
function showsStep(ctl: LessonController, sim: SimState, meta: ScenarioMeta | null): boolean {
  const { lesson, step } = ctl;
  if (!lesson || !step || !meta || sim.progress !== null) return false;
  const g = stepScenario(lesson, step);
  const want = stepVariants(step);
  if (!g || typeof want === 'string' || sim.ref.kind !== 'bundled' || sim.ref.name !== g.id) return false;
  const keys = sim.loaded.map((v) => v.key);
  return want.every((v, i) => keys[i] === v.key);
}

function Checks({ title, results, testid }: { title: string; results: FactResult[] | null; testid: string }) {
  if (results === null) return <p className="muted">checking…</p>;
  const ok = results.every((r) => r.ok);
  return (
    <div className="lesson-checks" data-testid={testid} data-ok={String(ok)}>
      <h4>{title}</h4>
      <ul>
        {results.map((r, i) => (
          <li key={i} data-testid="lesson-check" data-ok={String(r.ok)} className={r.ok ? 'ok' : 'bad'}>
            <span aria-hidden>{r.ok ? '✓' : '✗'}</span> {r.label}
            {!r.ok && <span className="muted"> (found: {r.detail})</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}

export function LessonPanel({ lessons, sim, facts }: Props) {
  const ctl = useLessonController(lessons);
  const { lesson, step, pos } = ctl;
  const meta = sim.meta;
  const [value, setValue] = useState('');
  const [link, setLink] = useState<{ url: string } | { error: string } | null>(null);
  const posKey = pos ? `${pos.id}/${pos.step}/${ctl.tried ?? ''}` : '';
  const ready = showsStep(ctl, sim, meta);

  // A new step (or the list) starts at the top of the drawer, not where the last one was scrolled.
  const drawer = useRef<HTMLElement | null>(null);
  useEffect(() => {
    setLink(null);
    setValue(step?.try?.values[0] ?? '');
    if (drawer.current) drawer.current.scrollTop = 0;
  }, [pos?.id, pos?.step, step]);

  // Check the step's facts (and the knob's, while it is tried) against the loaded runs.
  const check = useCallback((): Promise<{ main: FactResult[]; tried: FactResult[] | null } | null> => {
    const base = step && stepVariants(step);
    if (!step || !meta || !base || typeof base === 'string') return NO_CHECKS;
    const defaults = {
      variant: base[0].key,
      at: lessonTime(step.at) ?? 0,
      cpu: step.cpu,
      range: [lessonTime(step.range[0]) ?? 0, lessonTime(step.range[1]) ?? 0] as [number, number],
    };
    const tv = ctl.tried !== null ? tryVariant(step, ctl.tried) : null;
    const loadedTry = tv && sim.loaded.some((v) => v.key === tv.key);
    return Promise.all([
      checkExpect(step.expect, defaults, meta, facts),
      step.try?.expect && loadedTry && ctl.tried === step.try.values[0] ? checkExpect(step.try.expect, { ...defaults, variant: tv.key }, meta, facts) : null,
    ]).then(([main, tried]) => ({ main, tried }));
  }, [step, meta, ctl.tried, sim.loaded, facts]);
  const checkKey = ready ? `${sim.run}|${posKey}|${sim.loaded.map((v) => v.key).join(',')}` : null;
  const checks = useQuery(checkKey, check);

  if (!ctl.open) return null;
  return (
    <aside ref={drawer} className="lesson" role="dialog" aria-label="lessons" data-testid="lesson-panel" data-lesson={pos?.id ?? ''} data-step={pos ? pos.step : ''}>
      <div className="guide-head">
        <h2>{lesson ? lesson.title : 'Lessons'}</h2>
        <button aria-label="close lessons" onClick={ctl.close}>
          ×
        </button>
      </div>
      {!lesson || !step || !pos ? (
        <>
          <p className="guide-intro">
            Guided walks through the Linux 6.18.44 fair scheduler, each on a scenario you can change. Every fact a step states is
            checked against the simulation, here and in the test suite. Keys: <kbd>L</kbd> opens and closes this drawer,{' '}
            <kbd>,</kbd> and <kbd>.</kbd> go to the previous and next step.
          </p>
          <ol className="lesson-list">
            {LESSONS.map((l) => (
              <li key={l.id}>
                <button className="linklike" data-testid={`lesson-${l.id}`} onClick={() => ctl.goto(l.id, 0)}>
                  {l.title}
                </button>
                <div className="muted">
                  {l.summary} ({l.steps.length} steps)
                </div>
              </li>
            ))}
          </ol>
        </>
      ) : (
        <>
          <nav className="lesson-nav">
            <button onClick={ctl.list}>← all lessons</button>
            <span data-testid="lesson-progress">
              step {pos.step + 1} of {lesson.steps.length}
            </span>
            <button aria-label="previous step" title="previous step (,)" disabled={pos.step === 0} onClick={ctl.prev}>
              ‹ Prev
            </button>
            <button aria-label="next step" title="next step (.)" disabled={pos.step + 1 >= lesson.steps.length} onClick={ctl.next}>
              Next ›
            </button>
            <button data-testid="lesson-reset" title="Back to this step's view and variants" onClick={ctl.back}>
              ↺ reset
            </button>
          </nav>
          <h3 data-testid="lesson-step-title">{step.title}</h3>
          {step.text.map((p, i) => (
            <p key={i}>{p}</p>
          ))}
          {step.highlight.length > 0 && (
            <p className="lesson-look">
              Highlighted in the timeline:{' '}
              {step.highlight.map((h) => (
                <span key={h} className="chip">
                  {h}
                </span>
              ))}
              {step.cpu > 0 && <span className="muted"> · the inspector's CPU {step.cpu}</span>}
            </p>
          )}
          <div className="lesson-question">
            <strong>Question.</strong> {step.question}
            {step.answer && (
              <details>
                <summary>Answer</summary>
                {step.answer}
              </details>
            )}
          </div>
          {step.try && (
            <div className="lesson-try" data-testid="lesson-try">
              <strong>Try it:</strong> <code>{step.try.knob}</code> ={' '}
              {step.try.values.length > 1 ? (
                <select aria-label="knob value" value={value} onChange={(e) => setValue(e.target.value)}>
                  {step.try.values.map((v) => (
                    <option key={v}>{v}</option>
                  ))}
                </select>
              ) : (
                <code>{step.try.values[0]}</code>
              )}{' '}
              <button data-testid="lesson-try-run" onClick={() => ctl.tryValue(value || step.try!.values[0])}>
                Run it beside the lesson
              </button>
              <div className="muted">{step.try.look}</div>
              {ctl.tried !== null && (
                <div>
                  Running with <code>{step.try.knob}={ctl.tried}</code> as a second block.{' '}
                  <button data-testid="lesson-back" onClick={ctl.back}>
                    Back to the lesson
                  </button>
                </div>
              )}
            </div>
          )}
          {checks.error && ready ? (
            <p className="error" role="alert" data-testid="lesson-check-error">
              The step's facts could not be checked: {checks.error}
            </p>
          ) : ready && checks.data && checks.dataKey === checkKey ? (
            <>
              <Checks title="What this step states, checked in this run" results={checks.data.main} testid="lesson-checks" />
              {checks.data.tried && <Checks title={`With ${step.try?.knob}=${ctl.tried}`} results={checks.data.tried} testid="lesson-try-checks" />}
            </>
          ) : !ready ? (
            <p className="guide-hint">
              The view has moved away from this step. <button onClick={ctl.back}>Back to the lesson</button>
            </p>
          ) : (
            <p className="muted">checking…</p>
          )}
          <div className="lesson-link">
            <button
              data-testid="lesson-copy-link"
              onClick={() => {
                const v = ctl.stepView();
                if (!v) return;
                encodeState(v).then(
                  (frag) => {
                    const url = shareUrl(window.location.href.split('#')[0], frag);
                    setLink({ url });
                    navigator.clipboard?.writeText(url).catch(() => undefined);
                  },
                  (e: unknown) => setLink({ error: errorMessage(e) }),
                );
              }}
            >
              Copy a link to this step
            </button>
            {link && 'url' in link && <input readOnly aria-label="step link" data-testid="lesson-link" value={link.url} onFocus={(e) => e.target.select()} />}
            {link && 'error' in link && <p className="error">The link could not be made: {link.error}</p>}
          </div>
        </>
      )}
    </aside>
  );
}
