// The one window-query cache: the simulated view's per-variant windows, the replay view's
// spans and EEVDF samples and the cgroup tree's window before the cursor all go through it.
// It fetches half a window more on each side of the view and reuses what it has while the view
// stays inside it at about the same resolution (bucket within ×1.5). One fetch is in flight at
// a time; a view that moves outside it meanwhile is fetched next (the latest such view only).
// The previous data stays while a fetch runs, and when it fails (the error is kept beside
// it); a reply for another key than the latest wanted, or from before a reset, is dropped.

import { errorMessage } from '../base/errors';

export interface Span {
  t0: number;
  t1: number;
}

/** A fetched range: its span, its bucket and the key of what it holds. */
export interface Fetched extends Span {
  bucket: number;
  key: string;
}

/** What a view needs: the data of `key` over `view` at about `bucket` ns, fetched within [0, end]. */
export interface WindowWant {
  key: string;
  view: Span;
  bucket: number;
  end: number;
}

export interface WindowCacheState<D> {
  /** The latest data received (kept while a new fetch runs and when one fails). */
  data: D | null;
  /** What `data` covers. */
  fetched: Fetched | null;
  loading: boolean;
  /** Why the latest fetch failed, until one succeeds. */
  error: string | null;
}

export const EMPTY_WINDOW: WindowCacheState<never> = { data: null, fetched: null, loading: false, error: null };

/** Whether fetched data serves a view at the wanted bucket (else fetch again). */
export function fetchCovers(f: Fetched | null, want: Pick<WindowWant, 'key' | 'view' | 'bucket'>): boolean {
  const { view, bucket } = want;
  return !!f && f.key === want.key && view.t0 >= f.t0 && view.t1 <= f.t1 && bucket >= f.bucket / 1.5 && bucket <= f.bucket * 1.5;
}

/** The range to fetch for a view: half a window more on each side, inside [0, end]. */
export function fetchRange(view: Span, end: number): Span {
  const w = view.t1 - view.t0;
  return { t0: Math.max(0, view.t0 - w / 2), t1: Math.min(end, view.t1 + w / 2) };
}

type Fetch<D> = (range: Fetched) => Promise<D>;

export class WindowCache<D> {
  private st: WindowCacheState<D> = EMPTY_WINDOW;
  private inFlight: { range: Fetched; gen: number } | null = null;
  private next: { want: WindowWant; fetch: Fetch<D> } | null = null;
  /** The key of the latest want: replies for any other are stale. */
  private wantedKey: string | null = null;
  /** Bumped by reset(): replies from before it are stale. */
  private gen = 0;

  /** `onChange` gets every new state (the app writes it into a store). */
  constructor(private readonly onChange: (s: WindowCacheState<D>) => void) {}

  get state(): WindowCacheState<D> {
    return this.st;
  }

  /** Asks for the data of a view; `fetch` gets the range to fetch when one is needed. */
  want(want: WindowWant, fetch: Fetch<D>): void {
    this.wantedKey = want.key;
    if (fetchCovers(this.st.fetched, want) || (this.inFlight && fetchCovers(this.inFlight.range, want))) {
      this.next = null;
      return;
    }
    if (this.inFlight) {
      this.next = { want, fetch };
      return;
    }
    this.start(want, fetch);
  }

  /** Forgets the data and drops the replies in flight (a new run or trace). */
  reset(): void {
    this.gen++;
    this.inFlight = null;
    this.next = null;
    this.wantedKey = null;
    this.update(EMPTY_WINDOW);
  }

  private start(want: WindowWant, fetch: Fetch<D>) {
    const range: Fetched = { ...fetchRange(want.view, want.end), bucket: want.bucket, key: want.key };
    const gen = this.gen;
    this.inFlight = { range, gen };
    if (!this.st.loading) this.update({ ...this.st, loading: true });
    let reply: Promise<D>;
    try {
      reply = fetch(range);
    } catch (e) {
      reply = Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
    reply.then(
      (data) => this.settle(gen, range, { data, fetched: range, error: null }),
      (e: unknown) => this.settle(gen, range, { error: errorMessage(e) }),
    );
  }

  private settle(gen: number, range: Fetched, result: Partial<WindowCacheState<D>>) {
    if (gen !== this.gen) return;
    this.inFlight = null;
    if (range.key === this.wantedKey) this.st = { ...this.st, ...result };
    const next = this.next;
    this.next = null;
    if (next) this.want(next.want, next.fetch);
    this.update({ ...this.st, loading: this.inFlight !== null });
  }

  private update(s: WindowCacheState<D>) {
    this.st = s;
    this.onChange(s);
  }
}
