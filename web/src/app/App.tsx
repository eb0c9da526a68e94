// The app shell: scenario, variants, view window, cursor, selection and panels; it wires the
// engine client to the timeline and the panels and keeps the URL-shareable state.

import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { EngineClient } from '../engine/client';
import type { CursorState, VariantSpec, WindowData } from '../engine/protocol';
import { decodeState, encodeState, shareUrl, type ScenarioRef, type ViewState } from '../base/share';
import { Timeline } from '../timeline/Timeline';
import { entityLanes, laneIds } from '../timeline/lanes';
import { DEFAULT_SCENARIO, findScenario, GALLERY } from '../state/gallery';
import { PRESETS } from '../state/variants';
import { guideVariants, type GuideClaim } from '../state/guide';
import { useSimulation } from './useSimulation';
import { installTestHook } from './test_hook';
import { Header } from '../panels/Header';
import { EditorPane } from '../panels/EditorPane';
import { Inspector } from '../panels/Inspector';
import { MetricsPanel } from '../panels/MetricsPanel';
import { HelpOverlay } from '../panels/HelpOverlay';
import { DeboosterGuide } from '../panels/DeboosterGuide';
import { LessonPanel } from '../panels/LessonPanel';
import { useLessons } from '../lessons/useLessons';
import { highlightIds, stepScenario } from '../lessons/step_view';
import type { FactSource } from '../lessons/check';
import { CgroupTree } from '../panels/CgroupTree';
import { PlaybackBar } from '../panels/PlaybackBar';
import { ErrorBoundary } from './ErrorBoundary';
import type { PanelId, ViewWindow } from '../state/types';
import { isScenarioFile } from '../state/trace_import';
import { ImportControl } from '../panels/import/ImportControl';
import { ImportProgressBar } from '../panels/import/ImportProgressBar';
import { useTraceImport } from './useTraceImport';
import { ReplayView } from './ReplayView';

const client = new EngineClient();
const BASELINE: VariantSpec = { key: PRESETS[0].key, overrides: PRESETS[0].overrides };

/** A first view of about ten ticks: enough to see several slices and switches. */
function defaultWindow(duration: number, tick: number): ViewWindow {
  return { t0: 0, t1: Math.min(duration, 10 * tick) };
}

export function App() {
  const entry = findScenario(DEFAULT_SCENARIO) ?? GALLERY[0];
  const { sim, load, cancel } = useSimulation(client, {
    ref: { kind: 'bundled', name: entry.id, hash: entry.hash },
    file: entry.file,
    text: entry.text,
    variants: [BASELINE],
    run: null,
    meta: null,
    loaded: [],
    error: null,
    progress: null,
  });
  const [view, setView] = useState<ViewWindow>({ t0: 0, t1: 1 });
  const [cursor, setCursor] = useState(0);
  const [selection, setSelection] = useState<number | null>(null);
  /** Task groups whose lanes are collapsed in the timeline. */
  const [collapsed, setCollapsed] = useState<ReadonlySet<number>>(new Set());
  const [panels, setPanels] = useState<Set<PanelId>>(new Set(['editor', 'inspector', 'metrics']));
  const [mode, setMode] = useState<'relative' | 'absolute'>('relative');
  const [notice, setNotice] = useState<string | null>(null);
  const [guide, setGuide] = useState(false);
  const [windows, setWindows] = useState<Record<string, WindowData>>({});
  const [cursorStates, setCursorStates] = useState<Record<string, CursorState>>({});
  const [editorText, setEditorText] = useState(entry.text);
  const timelineWidth = useRef(1200);
  const pendingView = useRef<ViewState | null>(null);
  const traces = useTraceImport(client);

  const togglePanel = useCallback((p: PanelId) => {
    setPanels((s) => {
      const n = new Set(s);
      if (n.has(p)) n.delete(p);
      else n.add(p);
      return n;
    });
  }, []);

  const toggleGroup = useCallback((tg: number) => {
    setCollapsed((s) => {
      const n = new Set(s);
      if (n.has(tg)) n.delete(tg);
      else n.add(tg);
      return n;
    });
  }, []);

  // Loading: every change of scenario or variants reloads all variants.
  const open = useCallback(
    async (ref: ScenarioRef, file: string, text: string, variants: VariantSpec[], restore?: ViewState) => {
      setEditorText(text);
      pendingView.current = restore ?? null;
      const ok = await load(ref, file, text, variants);
      if (!ok) pendingView.current = null;
    },
    [load],
  );

  /** Applies a view's window, cursor, selection, panels and mode (the scenario is loaded). */
  const applyView = useCallback((r: ViewState, duration: number) => {
    setView({ t0: r.window[0], t1: Math.min(r.window[1], duration) });
    setCursor(r.cursor);
    setSelection(r.selection);
    setPanels(new Set(r.panels.filter((p): p is PanelId => ['editor', 'inspector', 'metrics', 'help'].includes(p))));
    if (r.mode) setMode(r.mode);
  }, []);

  // After a successful load: apply a restored view or the default one.
  useEffect(() => {
    if (!sim.meta) return;
    const r = pendingView.current;
    pendingView.current = null;
    setCollapsed(new Set());
    if (r) {
      applyView(r, sim.meta.duration_ns);
    } else {
      const w = defaultWindow(sim.meta.duration_ns, sim.meta.tick_ns);
      setView(w);
      setCursor(w.t0 + (w.t1 - w.t0) / 4);
      setSelection(null);
    }
  }, [sim.meta, sim.loaded, applyView]);

  // Lessons: a step's view is applied at once when its scenario and variants are loaded,
  // else loaded first.
  const showView = useCallback(
    (v: ViewState) => {
      const same =
        sim.meta && sim.progress === null && v.scenario.kind === 'bundled' && sim.ref.kind === 'bundled' && sim.ref.name === v.scenario.name &&
        JSON.stringify(sim.variants) === JSON.stringify(v.variants);
      if (same && sim.meta) return applyView(v, sim.meta.duration_ns);
      const g = v.scenario.kind === 'bundled' ? findScenario(v.scenario.name) : undefined;
      if (g) open({ kind: 'bundled', name: g.id, hash: g.hash }, g.file, g.text, v.variants, v);
    },
    [sim.meta, sim.progress, sim.ref, sim.variants, applyView, open],
  );
  const lessons = useLessons(showView, setNotice);

  // Initial load: the URL fragment if any, else the default scenario.
  useEffect(() => {
    const frag = window.location.hash.replace(/^#/, '');
    (async () => {
      if (frag) {
        const d = await decodeState(frag);
        if (!d.ok) {
          setNotice(`This link could not be opened: ${d.error}`);
        } else {
          const st = d.state;
          if (st.scenario.kind === 'bundled') {
            const g = findScenario(st.scenario.name);
            if (g) {
              if (g.hash !== st.scenario.hash) setNotice(`The bundled scenario ${g.id} changed since this link was made; showing the current version.`);
              await open({ kind: 'bundled', name: g.id, hash: g.hash }, g.file, g.text, st.variants, st);
              if (st.lesson) lessons.restore(st.lesson);
              return;
            }
            setNotice(`This link names a bundled scenario that does not exist here: ${st.scenario.name}`);
          } else {
            await open(st.scenario, 'shared.toml', st.scenario.text, st.variants, st);
            return;
          }
        }
      }
      await open({ kind: 'bundled', name: entry.id, hash: entry.hash }, entry.file, entry.text, [BASELINE]);
    })();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // Window data for every variant, over-fetched by half a window on each side. A pan or a
  // small zoom that stays inside what was fetched, at about the same resolution, reuses it.
  const fetched = useRef<{ t0: number; t1: number; bucket: number; key: string } | null>(null);
  useEffect(() => {
    const run = sim.run;
    if (!sim.meta || run === null || sim.loaded.length === 0) return;
    const w = view.t1 - view.t0;
    const bucketWanted = Math.max(1, w / Math.max(100, timelineWidth.current));
    // Task ids and group nodes (GROUP_NODE | tg) of the lanes shown.
    const tasks = laneIds(entityLanes(sim.meta, selection, collapsed));
    const key = `${run}#${tasks.join(',')}`;
    const f = fetched.current;
    if (f && f.key === key && view.t0 >= f.t0 && view.t1 <= f.t1 && bucketWanted >= f.bucket / 1.5 && bucketWanted <= f.bucket * 1.5) return;
    const t0 = Math.max(0, view.t0 - w / 2);
    const t1 = Math.min(sim.meta.duration_ns, view.t1 + w / 2);
    let stale = false;
    Promise.all(sim.loaded.map((v) => client.window(run, v.key, t0, t1, bucketWanted, tasks))).then((ds) => {
      if (stale) return;
      fetched.current = { t0, t1, bucket: bucketWanted, key };
      setWindows(Object.fromEntries(ds.map((d) => [d.variant, d])));
    });
    return () => {
      stale = true;
    };
  }, [sim.run, sim.meta, sim.loaded, view, selection, collapsed]);

  // The runqueue and the last pick at the cursor, per variant.
  useEffect(() => {
    const run = sim.run;
    if (!sim.meta || run === null || sim.loaded.length === 0) return;
    let stale = false;
    Promise.all(sim.loaded.map((v) => client.cursor(run, v.key, cursor).then((s) => [v.key, s] as const))).then((rs) => {
      if (!stale) setCursorStates(Object.fromEntries(rs));
    });
    return () => {
      stale = true;
    };
  }, [sim.run, sim.meta, sim.loaded, cursor]);

  const viewState = useCallback(
    (): ViewState => ({
      scenario: sim.ref,
      variants: sim.variants,
      window: [view.t0, view.t1],
      cursor,
      selection,
      // The cgroup tree is not a share-link panel (see PanelId): it is left out of links.
      panels: [...panels].filter((p) => p !== 'cgroups'),
      mode,
      ...(lessons.open && lessons.pos ? { lesson: lessons.pos } : {}),
    }),
    [sim.ref, sim.variants, view, cursor, selection, panels, mode, lessons.open, lessons.pos],
  );

  const makeShareUrl = useCallback(async () => {
    const frag = await encodeState(viewState());
    return shareUrl(window.location.href.split('#')[0], frag);
  }, [viewState]);

  const importFiles = traces.importFiles;
  useEffect(() => installTestHook({ client, getState: viewState, shareUrl: makeShareUrl, importFiles }), [viewState, makeShareUrl, importFiles]);

  const onView = useCallback((t0: number, t1: number) => setView({ t0, t1 }), []);
  const timelineVariants = useMemo(
    () => sim.loaded.map((v) => ({ key: v.key, label: v.key, data: windows[v.key] ?? null })),
    [sim.loaded, windows],
  );

  const openBundled = useCallback(
    (id: string) => {
      const g = findScenario(id);
      if (g) open({ kind: 'bundled', name: g.id, hash: g.hash }, g.file, g.text, sim.variants);
    },
    [open, sim.variants],
  );
  const openText = useCallback((file: string, text: string) => open({ kind: 'inline', text }, file, text, sim.variants), [open, sim.variants]);
  const setVariants = useCallback((variants: VariantSpec[]) => open(sim.ref, sim.file, sim.text, variants), [open, sim.ref, sim.file, sim.text]);
  const editorRef = useRef(editorText);
  editorRef.current = editorText;
  const runEditor = useCallback(() => {
    const text = editorRef.current;
    const bundled = sim.ref.kind === 'bundled' && text === sim.text;
    open(bundled ? sim.ref : { kind: 'inline', text }, sim.file, text, sim.variants);
  }, [open, sim.ref, sim.text, sim.file, sim.variants]);
  const closeHelp = useCallback(() => togglePanel('help'), [togglePanel]);
  const toggleGuide = useCallback(() => setGuide((g) => !g), []);
  const closeGuide = useCallback(() => setGuide(false), []);
  const openClaim = useCallback(
    (c: GuideClaim) => {
      const g = findScenario(c.scenario);
      if (g) open({ kind: 'bundled', name: g.id, hash: g.hash }, g.file, g.text, guideVariants(c));
      else setNotice(`The guide names a bundled scenario that does not exist here: ${c.scenario}`);
    },
    [open],
  );

  // Drag and drop anywhere on the page: a scenario file opens in the editor; anything else is
  // imported as a trace (with its EEVDF dump, if dropped together).
  useEffect(() => {
    const over = (e: DragEvent) => e.preventDefault();
    const drop = (e: DragEvent) => {
      e.preventDefault();
      const files = [...(e.dataTransfer?.files ?? [])];
      const f = files[0];
      if (f && files.every((x) => isScenarioFile(x.name))) f.text().then((t) => openText(f.name, t));
      else if (files.length) importFiles(files, true);
    };
    window.addEventListener('dragover', over);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragover', over);
      window.removeEventListener('drop', drop);
    };
  });

  // `?` toggles the keyboard help.
  useEffect(() => {
    const key = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable)) return;
      if (e.key === '?') togglePanel('help');
      if (e.key === 'Escape') setPanels((s) => (s.has('help') ? new Set([...s].filter((p) => p !== 'help')) : s));
    };
    window.addEventListener('keydown', key);
    return () => window.removeEventListener('keydown', key);
  }, [togglePanel]);

  const focused = sim.loaded[0]?.key;
  const facts = useMemo<FactSource>(
    () => ({
      cursor: (v, t) => client.cursor(sim.run ?? 0, v, t),
      window: (v, t0, t1) => client.window(sim.run ?? 0, v, t0, t1, Math.max(1, (t1 - t0) / 1000), [0]),
      summary: (v) => sim.loaded.find((x) => x.key === v)?.summary,
    }),
    [sim.run, sim.loaded],
  );
  const lessonScenario = lessons.lesson && lessons.step ? stepScenario(lessons.lesson, lessons.step)?.id : undefined;
  const highlight = useMemo(
    () => (lessons.open && lessons.step && sim.meta && sim.ref.kind === 'bundled' && sim.ref.name === lessonScenario ? highlightIds(sim.meta, lessons.step) : undefined),
    [lessons.open, lessons.step, sim.meta, sim.ref, lessonScenario],
  );
  return (
    <div className="app">
      <Header
        sim={sim}
        panels={panels}
        mode={mode}
        onMode={setMode}
        onTogglePanel={togglePanel}
        onOpenBundled={openBundled}
        onOpenText={openText}
        onVariants={setVariants}
        onShare={makeShareUrl}
        onCancel={cancel}
        guideOpen={guide}
        onGuide={toggleGuide}
        lessonsOpen={lessons.open}
        onLessons={lessons.toggle}
      >
        <ImportControl onFiles={importFiles} traceOpen={traces.trace !== null} busy={traces.progress !== null} />
      </Header>
      {traces.progress && <ImportProgressBar file={traces.progress.file} progress={traces.progress.progress} onCancel={traces.cancel} />}
      {traces.error && (
        <div className="notice" role="alert" data-testid="import-error">
          Import failed: {traces.error} <button onClick={traces.dismissError}>dismiss</button>
        </div>
      )}
      {notice && (
        <div className="notice" role="status">
          {notice} <button onClick={() => setNotice(null)}>dismiss</button>
        </div>
      )}
      {traces.trace ? (
        <ErrorBoundary name="trace replay">
          <ReplayView client={client} trace={traces.trace} alignment={traces.alignment} onClose={traces.close} />
        </ErrorBoundary>
      ) : (
      <div className="main">
        {panels.has('editor') && (
          <EditorPane text={editorText} onText={setEditorText} onRun={runEditor} error={sim.error} file={sim.file} />
        )}
        <div className="center">
          {sim.meta ? (
            <>
              <PlaybackBar meta={sim.meta} view={view} cursor={cursor} windows={windows} focused={focused} onCursor={setCursor} onView={onView} />
              <div className="timeline-wrap" ref={(el) => { if (el) timelineWidth.current = el.clientWidth; }}>
                <Timeline
                  meta={sim.meta}
                  variants={timelineVariants}
                  view={view}
                  cursor={cursor}
                  selection={selection}
                  mode={mode}
                  onView={onView}
                  onCursor={setCursor}
                  onSelect={setSelection}
                  collapsed={collapsed}
                  onToggleGroup={toggleGroup}
                  highlight={highlight}
                />
              </div>
              {panels.has('metrics') && (
                <ErrorBoundary name="metrics panel">
                  <MetricsPanel client={client} run={sim.run} meta={sim.meta} loaded={sim.loaded} />
                </ErrorBoundary>
              )}
            </>
          ) : (
            <div className="empty">{sim.error ? 'Fix the scenario to see its timeline.' : 'Loading the engine…'}</div>
          )}
        </div>
        {panels.has('cgroups') && sim.meta && (
          <ErrorBoundary name="cgroup tree">
            <CgroupTree client={client} run={sim.run} meta={sim.meta} variant={focused} cursor={cursor} collapsed={collapsed} onToggleGroup={toggleGroup} />
          </ErrorBoundary>
        )}
        {panels.has('inspector') && sim.meta && (
          <ErrorBoundary name="inspector">
            <Inspector meta={sim.meta} cursor={cursor} selection={selection} states={cursorStates} order={sim.loaded.map((v) => v.key)} onSelect={setSelection} />
          </ErrorBoundary>
        )}
        {guide && (
          <ErrorBoundary name="guide">
            <DeboosterGuide sim={sim} onOpen={openClaim} onClose={closeGuide} />
          </ErrorBoundary>
        )}
        {lessons.open && (
          <ErrorBoundary name="lessons">
            <LessonPanel ctl={lessons} sim={sim} facts={facts} />
          </ErrorBoundary>
        )}
      </div>
      )}
      {panels.has('help') && <HelpOverlay onClose={closeHelp} />}
    </div>
  );
}
