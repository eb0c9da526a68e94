// The simulated view: the editor, the playback bar over the timeline (one block per variant),
// the metrics, and beside them the cgroup tree, the inspector, the guide and the lessons. It
// renders the viewport store (at most once per frame) and the session; the shell does the rest.

import { useMemo } from 'react';
import { highlightIds, stepScenario } from '../lessons/step_view';
import { lessonAt } from '../lessons/controller';
import type { FactSource } from '../lessons/check';
import { CgroupTree } from '../panels/CgroupTree';
import { DeboosterGuide } from '../panels/DeboosterGuide';
import { EditorPane } from '../panels/EditorPane';
import { Inspector } from '../panels/Inspector';
import { LessonPanel } from '../panels/LessonPanel';
import { MetricsPanel } from '../panels/MetricsPanel';
import { PlaybackBar } from '../panels/PlaybackBar';
import { useStore } from '../state/store';
import type { Session } from '../state/types';
import { Timeline } from '../timeline/Timeline';
import { ErrorBoundary } from './ErrorBoundary';
import { SPEEDS } from './playback';
import type { Shell } from './shell';

export function SimView({ shell, session }: { shell: Shell; session: Session }) {
  const { sim, selection, collapsed, panels, mode } = session;
  const { view: a, playback } = shell;
  const vp = useStore(shell.viewport, (v) => v);
  const lessons = useStore(shell.lessons.store, (l) => l);
  const windows = vp.windows.data;
  const variants = useMemo(() => sim.loaded.map((v) => ({ key: v.key, label: v.key, data: windows?.[v.key] ?? null })), [sim.loaded, windows]);
  const order = useMemo(() => sim.loaded.map((v) => v.key), [sim.loaded]);
  const facts = useMemo<FactSource>(() => {
    const { client } = shell;
    const run = sim.run ?? 0;
    return {
      cursor: (v, t) => client.cursor(run, v, t),
      window: (v, t0, t1) => client.window(run, v, t0, t1, Math.max(1, (t1 - t0) / 1000), [0]),
      summary: (v) => sim.loaded.find((x) => x.key === v)?.summary,
    };
  }, [shell, sim.run, sim.loaded]);
  const highlight = useMemo(() => {
    const { lesson, step } = lessonAt(lessons);
    const shown = lesson && step && sim.ref.kind === 'bundled' && sim.ref.name === stepScenario(lesson, step)?.id;
    return lessons.open && shown && step && sim.meta ? highlightIds(sim.meta, step) : undefined;
  }, [lessons, sim.meta, sim.ref]);
  const meta = sim.meta;

  return (
    <div className="main" data-export-root>
      {panels.has('editor') && <EditorPane text={session.editorText} onText={a.setEditorText} onRun={shell.loader.runEditor} error={sim.error} file={sim.file} />}
      <div className="center">
        {meta ? (
          <>
            <PlaybackBar view={vp.view} cursor={vp.cursor} playing={vp.playing} speed={vp.speed} speeds={SPEEDS} onToggle={playback.toggle} onStep={playback.step} onScrub={a.scrub} onSpeed={playback.setSpeed} />
            {vp.windows.error && (
              <div className="error" role="alert" data-testid="window-error">
                The timeline&apos;s window could not be read: {vp.windows.error}
              </div>
            )}
            <div className="timeline-wrap" ref={(el) => { if (el) shell.plotWidth.current = el.clientWidth; }}>
              <Timeline
                meta={meta}
                variants={variants}
                view={vp.view}
                cursor={vp.cursor}
                selection={selection}
                mode={mode}
                onView={a.setView}
                onCursor={a.setCursor}
                onSelect={a.select}
                collapsed={collapsed}
                onToggleGroup={a.toggleGroup}
                highlight={highlight}
              />
            </div>
            {panels.has('metrics') && (
              <ErrorBoundary name="metrics panel">
                <MetricsPanel client={shell.client} run={sim.run} meta={meta} loaded={sim.loaded} />
              </ErrorBoundary>
            )}
          </>
        ) : (
          <div className="empty">{session.engineDown ? 'The engine is not running: reload the page to start it again.' : sim.error ? 'Fix the scenario to see its timeline.' : 'Loading the engine…'}</div>
        )}
      </div>
      {panels.has('cgroups') && meta && (
        <ErrorBoundary name="cgroup tree">
          <CgroupTree meta={meta} data={vp.cgroup.data} error={vp.cgroup.error} cursor={vp.cursor} collapsed={collapsed} onToggleGroup={a.toggleGroup} />
        </ErrorBoundary>
      )}
      {panels.has('inspector') && meta && (
        <ErrorBoundary name="inspector">
          <Inspector meta={meta} cursor={vp.cursor} selection={selection} states={vp.cursorStates} order={order} error={vp.cursorError} onSelect={a.select} />
        </ErrorBoundary>
      )}
      {session.guide && (
        <ErrorBoundary name="guide">
          <DeboosterGuide sim={sim} onOpen={shell.loader.openClaim} onClose={a.closeGuide} />
        </ErrorBoundary>
      )}
      {lessons.open && (
        <ErrorBoundary name="lessons">
          <LessonPanel lessons={shell.lessons} sim={sim} facts={facts} />
        </ErrorBoundary>
      )}
    </div>
  );
}
