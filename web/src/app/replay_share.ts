// The replay view's share links (base/share_replay.ts): the link of what is on screen (A, its
// EEVDF dump and CPU-averages dump, B as a capture or the shadow run, and the view), and opening one: bundled
// captures are imported in the worker as a drop would (with progress), named ones are asked
// for ("this link names capture X …; drop that file") and checked by size and content hash
// before anything is imported, so a wrong file is refused with a message. Then B, the layout
// file and the view (window, cursor, selection, area, thread filter and pins, noise level,
// renamed-task matches) are restored, and a shadow spread the link asks for is run again. A link
// that cannot be read, or a step that fails, is shown.

import { ContentHash } from '../base/hash';
import { errorMessage } from '../base/errors';
import { shareUrl } from '../base/share';
import { BUNDLE_LIMIT_BYTES, BUNDLE_MAX_RAW_BYTES, decodeReplay, encodeReplay, type CaptureRef, type ReplayShare } from '../base/share_replay';
import type { ImportedTrace } from '../engine/protocol';
import { createStore, type Store } from '../state/store';
import { formatBytes } from '../state/trace_import';
import { formatNs } from '../timeline/time_scale';
import type { Ab } from './ab';
import type { Replay } from './replay';
import { detach, type ShellCtx } from './shell_ctx';
import type { TraceImportActions } from './trace_imports';

/** The captures a link may carry, by their place in it. */
export type Slot = 'a' | 'dump' | 'cpuAvg' | 'balance' | 'b';
export const SLOT_WORDS: Record<Slot, string> = { a: 'capture A', dump: "A's EEVDF dump", cpuAvg: "A's CPU-averages dump", balance: "A's balance-pass dump", b: 'capture B' };

export interface ShareLinkState {
  /** A link waiting for the files it names: each needed slot and the file given for it. */
  pending: { share: ReplayShare; need: { slot: Slot; ref: CaptureRef; file: File | null }[] } | null;
  /** Checking a dropped file, or restoring (what is being done). */
  busy: string | null;
  /** Why the link, a dropped file or a restore step failed. */
  error: string | null;
}

const INITIAL: ShareLinkState = { pending: null, busy: null, error: null };

/** Bytes hashed per slice of a file. */
const HASH_SLICE = 8 << 20;

/** A capture as the prompt names it: file, size, length of trace, first record, hash. */
export function describeCapture(c: CaptureRef): string {
  const span = c.durationNs > 0 ? `, ${formatNs(c.durationNs)} of trace from ${(c.originNs / 1e9).toFixed(6)} s` : '';
  return `${c.name} (${formatBytes(c.size)}${span}, content hash ${c.hash})`;
}

/** The files by slot. */
function filesOf(need: { slot: Slot; file: File | null }[]): Record<Slot, File | null> {
  const files: Record<Slot, File | null> = { a: null, dump: null, cpuAvg: null, balance: null, b: null };
  for (const n of need) files[n.slot] = n.file;
  return files;
}

export type ReplayShareActions = ReturnType<typeof createReplayShare>;

export function createReplayShare(ctx: ShellCtx, traces: TraceImportActions, replay: Replay, ab: Ab) {
  const store: Store<ShareLinkState> = createStore(INITIAL, ctx.hub);
  const hashes = new WeakMap<File, string>();

  /** A file's ContentHash, read slice by slice (the UI thread yields between slices). */
  const hashFile = async (f: File): Promise<string> => {
    const known = hashes.get(f);
    if (known) return known;
    const h = new ContentHash();
    for (let off = 0; off < f.size; off += HASH_SLICE) h.update(new Uint8Array(await f.slice(off, off + HASH_SLICE).arrayBuffer()));
    const hex = h.hex();
    hashes.set(f, hex);
    return hex;
  };

  /** A file on screen as a link names it (its bytes when it may be bundled). */
  const captureOf = async (f: File, trace: ImportedTrace | null): Promise<CaptureRef> => {
    const bytes = f.size <= BUNDLE_MAX_RAW_BYTES ? new Uint8Array(await f.arrayBuffer()) : undefined;
    const hash = bytes ? new ContentHash().update(bytes).hex() : await hashFile(f);
    const tl = trace?.report.timeline;
    return { name: f.name, size: f.size, hash, durationNs: tl?.duration_ns ?? 0, originNs: tl?.origin_ns ?? 0, ...(bytes ? { bytes } : {}) };
  };

  /** The share link of the replay view on screen; says in a notice what it names rather than carries. */
  const makeUrl = async (): Promise<string> => {
    const { trace, files } = ctx.imports.get();
    if (!trace || !files.trace) throw new Error('no imported trace is on screen');
    const r = replay.store.get();
    const abs = ab.store.get();
    const b = abs.b && abs.source ? abs.source : null;
    const share: ReplayShare = {
      a: await captureOf(files.trace, trace),
      dump: files.dump && trace.eevdfFile ? await captureOf(files.dump, null) : null,
      cpuAvg: files.cpuAvg && trace.cpuAvgFile ? await captureOf(files.cpuAvg, null) : null,
      balance: files.balance && trace.balanceFile ? await captureOf(files.balance, null) : null,
      b: b === null ? null : b.kind === 'file' ? { kind: 'capture', capture: await captureOf(b.file, abs.b) } : { kind: 'shadow', key: b.key, layout: b.layout, pin: b.pin, variants: b.variants },
      window: [r.view.t0, r.view.t1],
      cursor: r.cursor,
      selection: r.selection,
      area: r.area && !r.area.live && r.area.t1 > r.area.t0 ? { t0: r.area.t0, t1: r.area.t1, cpus: r.area.cpus, tasks: r.area.tasks } : null,
      filter: r.filter,
      pinned: r.pinned,
      noisePct: abs.noisePct,
      matches: abs.matches,
      layout: r.layout,
      // The spread travels as its question, when it ran with the layout the link carries.
      spread: r.spread && r.spread.layout === (r.layout?.text ?? '') ? r.spread.asked : null,
    };
    const { fragment, bundled } = await encodeReplay(share);
    const named = [...(bundled.a ? [] : [share.a, ...[share.dump, share.cpuAvg, share.balance].filter((c): c is CaptureRef => c !== null)]), ...(!bundled.b && share.b?.kind === 'capture' ? [share.b.capture] : [])];
    if (named.length > 0)
      ctx.session.set({
        notice: `The link names ${named.map((c) => `${c.name} (${formatBytes(c.size)})`).join(' and ')} instead of carrying ${named.length > 1 ? 'them' : 'it'} (over ${BUNDLE_LIMIT_BYTES >> 10} KiB compressed): whoever opens it is asked for ${named.length > 1 ? 'those files' : 'that file'}.`,
      });
    return shareUrl(window.location.href.split('#')[0], fragment);
  };

  /** Imports the link's captures (`files` by slot) and restores its view; failures are shown. */
  const restore = async (share: ReplayShare, files: Record<Slot, File | null>): Promise<void> => {
    const a = files.a;
    if (!a) return;
    store.set({ busy: `opening ${a.name}`, error: null });
    try {
      await traces.importFiles([a, ...[files.dump, files.cpuAvg, files.balance].filter((f): f is File => f !== null)], false);
      const imported = ctx.imports.get();
      if (!imported.trace || imported.trace.file !== a.name) {
        store.set({ busy: null, error: imported.error ? null : `${a.name} was not opened (cancelled).` });
        return;
      }
      if (share.layout) await replay.applyLayout(share.layout);
      const b = share.b;
      if (b) {
        store.set({ busy: b.kind === 'capture' ? `opening B: ${b.capture.name}` : `re-simulating A under ${b.key} as B` });
        if (b.kind === 'capture' && files.b) await ab.openAndWait(files.b);
        else if (b.kind === 'shadow') await ab.openShadowAndWait(b.key, b.layout, b.pin, b.variants);
      }
      const sp = share.spread;
      if (sp) {
        store.set({ busy: `running the shadow spread over ${sp.n} ${sp.kind === 'seeds' ? 'seeds' : 'phases of the tick'}` });
        await replay.runSpread(share.layout?.text ?? '', sp.pin, sp.variants, sp.kind, sp.n);
      }
      const end = Math.max(1, imported.trace.report.timeline.duration_ns);
      const [t0, t1] = share.window;
      replay.setView(Math.min(t0, end - 1), Math.min(t1, end));
      replay.setCursor(share.cursor);
      const nTasks = imported.trace.tasks.length;
      replay.select(share.selection !== null && share.selection < nTasks ? share.selection : null);
      replay.setFilter(share.filter);
      replay.setPinned(share.pinned.filter((t) => t < nTasks));
      if (share.area) replay.selectArea({ ...share.area, tasks: share.area.tasks.filter((t) => t < nTasks), live: false });
      const abs = ab.store.get();
      if (abs.matches.length !== share.matches.length || abs.matches.some(([x, y], i) => x !== share.matches[i][0] || y !== share.matches[i][1])) ab.setMatches(share.matches);
      if (abs.noisePct !== share.noisePct) ab.setNoise(share.noisePct);
      store.set({ busy: null });
    } catch (e) {
      store.set({ busy: null, error: `The shared view could not be restored: ${errorMessage(e)}` });
    }
  };

  /** Opens a replay link's fragment: restores it, or asks for the files it names. */
  const open = async (fragment: string): Promise<void> => {
    const d = await decodeReplay(fragment);
    if (!d.ok) {
      store.set({ error: `This link could not be opened: ${d.error}` });
      return;
    }
    const share = d.share;
    const slots: [Slot, CaptureRef | null][] = [
      ['a', share.a],
      ['dump', share.dump],
      ['cpuAvg', share.cpuAvg],
      ['balance', share.balance],
      ['b', share.b?.kind === 'capture' ? share.b.capture : null],
    ];
    const need: NonNullable<ShareLinkState['pending']>['need'] = [];
    for (const [slot, ref] of slots) {
      if (!ref) continue;
      if (!ref.bytes) {
        need.push({ slot, ref, file: null });
        continue;
      }
      // Bundled bytes must be the capture the link names (a damaged link is refused here).
      const got = new ContentHash().update(ref.bytes).hex();
      if (got !== ref.hash) {
        store.set({ error: `This link could not be opened: ${SLOT_WORDS[slot]} ${ref.name} inside it is damaged (content hash ${got}, the link says ${ref.hash}).` });
        return;
      }
      need.push({ slot, ref, file: new File([ref.bytes as Uint8Array<ArrayBuffer>], ref.name) });
    }
    // Named captures are asked for; the bundled ones wait with them.
    if (need.some((n) => n.file === null)) return store.set({ pending: { share, need }, error: null });
    await restore(share, filesOf(need));
  };

  /** Files dropped or chosen for a pending link: each is matched to a capture the link names by
   * size and content hash; a file that matches none is refused with what was expected. */
  const provide = async (given: File[]): Promise<void> => {
    const p = store.get().pending;
    if (!p || given.length === 0) return;
    store.set({ busy: `checking ${given.map((f) => f.name).join(', ')}`, error: null });
    const need = p.need.map((n) => ({ ...n }));
    const refused: string[] = [];
    for (const f of given) {
      const open = need.filter((n) => n.file === null);
      const sized = open.filter((n) => n.ref.size === f.size);
      const hash = sized.length > 0 ? await hashFile(f) : null;
      const hit = sized.find((n) => n.ref.hash === hash);
      if (hit) hit.file = f;
      else
        refused.push(
          `${f.name} (${formatBytes(f.size)}${hash ? `, content hash ${hash}` : ''}) is not ${open.map((n) => `${SLOT_WORDS[n.slot]} ${describeCapture(n.ref)}`).join(' nor ')}`,
        );
    }
    if (store.get().pending !== p) return;
    const missing = need.filter((n) => n.file === null);
    store.set({ pending: missing.length > 0 ? { share: p.share, need } : null, busy: null, error: refused.length > 0 ? `Refused: ${refused.join('; ')}.` : null });
    if (missing.length > 0) return;
    await restore(p.share, filesOf(need));
  };

  return {
    store,
    shareUrl: makeUrl,
    open,
    /** Files for a pending link (a drop or the prompt's input; its end is not awaited). Returns
     * whether a link was waiting for them. */
    give: (files: File[]): boolean => {
      if (!store.get().pending) return false;
      detach(ctx, provide(files));
      return true;
    },
    provide,
    dismiss: () => store.set(INITIAL),
  };
}
