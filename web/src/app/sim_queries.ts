// The simulated view's engine queries, driven by the stores (never by React renders): every
// variant's window (through the window cache), the runqueues at the cursor (the latest cursor
// only), and the cgroup tree's window before the cursor (the window cache again). Each is
// asked at most once per published frame; replies go into the viewport store and are rendered
// with the next frame.

import type { CursorState, WindowData } from '../engine/protocol';
import { LOOKBACK_NS } from '../panels/CgroupTree';
import { LatestQuery } from '../state/latest_query';
import { WindowCache } from '../state/window_cache';
import { entityLanes, laneIds } from '../timeline/lanes';
import type { ShellCtx } from './shell_ctx';

/** Narrowest plot width a window's bucket is computed for. */
const MIN_PLOT_PX = 100;

/** Starts the queries; returns what stops them. `plotWidth` is the timeline's width in px. */
export function startSimQueries(ctx: ShellCtx, plotWidth: () => number): () => void {
  const { client, viewport, session } = ctx;
  const windows = new WindowCache<Record<string, WindowData>>((s) => viewport.set({ windows: s }));
  const cgroup = new WindowCache<WindowData>((s) => viewport.set({ cgroup: s }));
  const cursor = new LatestQuery(
    ({ run, keys, t }: { run: number; keys: string[]; t: number }) => Promise.all(keys.map((k) => client.cursor(run, k, t).then((s): [string, CursorState] => [k, s]))),
    (states, { run }) => {
      if (session.get().sim.run === run) viewport.set({ cursorStates: Object.fromEntries(states), cursorError: null });
    },
    (message) => viewport.set({ cursorError: message }),
  );
  let shown: { run: number; cursor: number } | null = null;

  const refresh = () => {
    const { sim, selection, collapsed, panels, engineDown } = session.get();
    const { view, cursor: t } = viewport.get();
    const { run, meta, loaded } = sim;
    if (engineDown || !meta || run === null || loaded.length === 0) return;
    if (shown?.run !== run) {
      windows.reset();
      cgroup.reset();
    }

    // Window data for every variant: task ids and group nodes (GROUP_NODE | tg) of the lanes shown.
    const tasks = laneIds(entityLanes(meta, selection, collapsed));
    const bucket = Math.max(1, (view.t1 - view.t0) / Math.max(MIN_PLOT_PX, plotWidth()));
    windows.want({ key: `${run}#${tasks.join(',')}`, view, bucket, end: meta.duration_ns }, (r) =>
      Promise.all(loaded.map((v) => client.window(run, v.key, r.t0, r.t1, r.bucket, tasks))).then((ds) => Object.fromEntries(ds.map((d) => [d.variant, d]))),
    );

    if (shown?.run !== run || shown.cursor !== t) cursor.request({ run, keys: loaded.map((v) => v.key), t });
    shown = { run, cursor: t };

    // The cgroup tree (when open): the group nodes' samples and the counters before the cursor.
    const groups = meta.groups ?? [];
    const focused = loaded[0].key;
    if (panels.has('cgroups') && groups.length > 1) {
      const nodes = groups.filter((g) => g.parent !== null).map((g) => g.node);
      const before = { t0: Math.max(0, t - LOOKBACK_NS), t1: t + 1 };
      cgroup.want({ key: `${run}/${focused}`, view: before, bucket: LOOKBACK_NS / 100, end: meta.duration_ns + 1 }, (r) =>
        client.window(run, focused, r.t0, r.t1, r.bucket, nodes),
      );
    }
  };

  // Once per publication, though both stores may be in it.
  let seen = -1;
  const onPublish = () => {
    if (ctx.hub.publishes === seen) return;
    seen = ctx.hub.publishes;
    refresh();
  };
  const offs = [viewport.subscribe(onPublish), session.subscribe(onPublish)];
  refresh();
  return () => offs.forEach((off) => off());
}
