// The app shell's view: the header, the page's messages, then the simulated view or the replay
// of an imported trace, and the keyboard help. Everything it shows comes from the shell's
// stores (shell.ts); everything it does is a shell action.

import { useStore } from '../state/store';
import { Header } from '../panels/Header';
import { HelpOverlay } from '../panels/HelpOverlay';
import { ExportMenu } from '../panels/ExportMenu';
import { ImportControl } from '../panels/import/ImportControl';
import { ImportProgressBar } from '../panels/import/ImportProgressBar';
import { Banners } from './Banners';
import { ErrorBoundary } from './ErrorBoundary';
import { ReplayView } from './ReplayView';
import type { Shell } from './shell';
import { SimView } from './SimView';
import { SharePrompt } from './SharePrompt';

/** The simulated run's variants as Perfetto traces, for the export menu (none in the replay view). */
function simPerfetto(shell: Shell, sim: { run: number | null; loaded: { key: string }[] }, replaying: boolean) {
  const run = sim.run;
  if (replaying || run === null || sim.loaded.length === 0) return undefined;
  return { variants: sim.loaded.map((v) => v.key), bytes: (variant: string) => shell.client.perfetto(run, variant) };
}

/** The view shown (simulated or replay), for the export menu. */
const viewRoot = () => document.querySelector<HTMLElement>('[data-export-root]');

export function App({ shell }: { shell: Shell }) {
  const { view: a, loader, traces } = shell;
  const session = useStore(shell.session, (s) => s);
  const imports = useStore(shell.imports, (s) => s);
  const lessonsOpen = useStore(shell.lessons.store, (s) => s.open);
  return (
    <div className="app">
      <Header
        sim={session.sim}
        panels={session.panels}
        mode={session.mode}
        onMode={a.setMode}
        onTogglePanel={a.togglePanel}
        onOpenBundled={loader.openBundled}
        onOpenText={loader.openText}
        onVariants={loader.setVariants}
        onShare={imports.trace ? shell.replayShare.shareUrl : a.shareUrl}
        onCancel={loader.cancel}
        guideOpen={session.guide}
        onGuide={a.toggleGuide}
        lessonsOpen={lessonsOpen}
        onLessons={shell.lessons.actions.toggle}
      >
        <ImportControl onFiles={traces.pick} traceOpen={imports.trace !== null} busy={imports.progress !== null} />
        <ExportMenu
          target={viewRoot}
          name={imports.trace ? imports.trace.file : session.sim.ref.kind === 'bundled' ? session.sim.ref.name : 'schedlab-view'}
          perfetto={simPerfetto(shell, session.sim, imports.trace !== null)}
        />
      </Header>
      {imports.progress && <ImportProgressBar file={imports.progress.file} progress={imports.progress.progress} onCancel={traces.cancel} />}
      <SharePrompt share={shell.replayShare} />
      <Banners
        pageError={session.pageError}
        importError={imports.error}
        notice={session.notice}
        onDismissPageError={a.dismissPageError}
        onDismissImportError={traces.dismissError}
        onDismissNotice={a.dismissNotice}
      />
      {imports.trace ? (
        <ErrorBoundary name="trace replay">
          <ReplayView replay={shell.replay} ab={shell.ab} alignment={imports.alignment} onClose={traces.close} onCancel={traces.cancel} />
        </ErrorBoundary>
      ) : (
        <SimView shell={shell} session={session} />
      )}
      {session.panels.has('help') && <HelpOverlay onClose={a.closeHelp} />}
    </div>
  );
}
