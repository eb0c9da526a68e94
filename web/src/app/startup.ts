// The first load: the view a link's fragment names (its scenario, variants, window, cursor,
// panels and lesson step), else the default scenario; a replay link (`r1.`) opens the default
// scenario underneath, then its traces and view (replay_share.ts).

import { decodeState } from '../base/share';
import { isReplayFragment } from '../base/share_replay';
import type { ReplayShareActions } from './replay_share';
import type { VariantSpec } from '../engine/protocol';
import type { Lessons } from '../lessons/controller';
import { DEFAULT_SCENARIO, findScenario, GALLERY } from '../state/gallery';
import { PRESETS } from '../state/variants';
import type { Loader } from './loading';
import type { ViewActions } from './view_actions';

export const BASELINE: VariantSpec = { key: PRESETS[0].key, overrides: PRESETS[0].overrides };
export const DEFAULT_ENTRY = findScenario(DEFAULT_SCENARIO) ?? GALLERY[0];

export async function openFromUrl(fragment: string, loader: Loader, view: ViewActions, lessons: Lessons, replayShare?: ReplayShareActions): Promise<void> {
  if (fragment && replayShare && isReplayFragment(fragment)) {
    const e = DEFAULT_ENTRY;
    await loader.open({ kind: 'bundled', name: e.id, hash: e.hash }, e.file, e.text, [BASELINE]);
    return replayShare.open(fragment);
  }
  if (fragment) {
    const d = await decodeState(fragment);
    if (!d.ok) {
      view.notify(`This link could not be opened: ${d.error}`);
    } else if (d.state.scenario.kind === 'inline') {
      await loader.open(d.state.scenario, 'shared.toml', d.state.scenario.text, d.state.variants, d.state);
      return;
    } else {
      const st = d.state;
      const g = findScenario(d.state.scenario.name);
      if (g) {
        if (g.hash !== d.state.scenario.hash) view.notify(`The bundled scenario ${g.id} changed since this link was made; showing the current version.`);
        await loader.open({ kind: 'bundled', name: g.id, hash: g.hash }, g.file, g.text, st.variants, st);
        if (st.lesson) lessons.actions.restore(st.lesson);
        return;
      }
      view.notify(`This link names a bundled scenario that does not exist here: ${d.state.scenario.name}`);
    }
  }
  const e = DEFAULT_ENTRY;
  await loader.open({ kind: 'bundled', name: e.id, hash: e.hash }, e.file, e.text, [BASELINE]);
}
