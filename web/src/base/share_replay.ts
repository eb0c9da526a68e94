// The replay view's share-link codec: the captures on screen (A, its attached EEVDF dump and
// CPU-averages dump, and B:
// a second capture or the shadow re-simulation of A under a variant) and the view (time window,
// cursor, selected task, selected area with its CPUs and tasks, the thread filter and pins, the
// A/B noise level and renamed-task matches, the layout file's text, the shadow spread that was
// asked for) in a URL fragment
// `r1.<base64url(deflate-raw(container))>`. The container is a 4-byte big-endian length, that
// many bytes of compact JSON, then the bytes of every bundled capture in the JSON's order.
//
// A capture travels inside the link (bundled) when the compressed container stays within
// BUNDLE_LIMIT_BYTES (192 KiB, so the link stays under 256 Ki characters: Chromium opens URLs
// of up to 2 MiB, but chat and mail clients cut or refuse links long before that; the
// repository's 352 KB text capture `traces/linux-6.18/nice-0-vs-2/trace.txt` takes about
// 29.5 K characters, with cgroup-shares's as B 58 K; a 1.1 MB `.dat` does not compress and is
// named). Otherwise the link names it: file name, size, duration, first record's time and a
// content hash (`ContentHash`), so whoever opens it is asked for that file and a
// wrong one is refused. The encoder tries bundling everything, then A (with its dumps) alone,
// then B alone, then nothing. Decoding is bounded (payload length, inflated size), parses JSON
// only, validates every field and never throws.
import { deflateRaw, fromBase64Url, inflateRawBounded, toBase64Url } from './share';

/** The most the compressed container may weigh for captures to be bundled. */
export const BUNDLE_LIMIT_BYTES = 192 * 1024;
/** Files larger than this are not even tried for bundling (they would not fit once compressed). */
export const BUNDLE_MAX_RAW_BYTES = 16 << 20;
/** The longest payload looked at; longer ones are refused unread. */
export const MAX_REPLAY_PAYLOAD_CHARS = 2_000_000;
/** The most a link may inflate to (JSON and bundled bytes). */
export const MAX_REPLAY_INFLATED_BYTES = BUNDLE_MAX_RAW_BYTES * 2 + (1 << 20);
/** The format prefix. */
export const REPLAY_PREFIX = 'r1.';
/** The longest layout file text or thread filter a link carries. */
const MAX_LAYOUT_CHARS = 256 * 1024;
const MAX_FILTER_CHARS = 200;
/** At most this many pinned tasks, area tasks/CPUs, renamed-task matches and variant overrides. */
const MAX_LIST = 10_000;

/** A capture as a link names it; `bytes` set when it travels in the link. */
export interface CaptureRef {
  name: string;
  size: number;
  /** `ContentHash` of its bytes (16 hex). */
  hash: string;
  /** Length of the trace (ns) and its first record's time on the trace clock (ns), for the prompt. */
  durationNs: number;
  originNs: number;
  bytes?: Uint8Array;
}

/** The most runs a shadow spread takes (`schedlab replay --seeds N` / `--tick-phases N`). */
export const MAX_SPREAD_RUNS = 64;

/** A spread of the shadow over seeds or phases of the tick, as asked for (its layout is the
 * share's): the link carries the question, and whoever opens it runs it again. */
export interface SpreadAsk {
  kind: 'seeds' | 'tick_phases';
  n: number;
  pin: string;
  variants: [string, string][];
}

/** B: a second capture, or the shadow re-simulation of A (ShadowPanel's "as B"). */
export type BRef =
  | { kind: 'capture'; capture: CaptureRef }
  | { kind: 'shadow'; key: string; layout: string; pin: string; variants: [string, string][] };

export interface ReplayShare {
  a: CaptureRef;
  /** The EEVDF dump attached to A. */
  dump: CaptureRef | null;
  /** The CPU-averages dump attached to A (`tools/capture/schedlab-cpu-avg.bt`). */
  cpuAvg: CaptureRef | null;
  /** The balance-pass dump attached to A (`tools/capture/schedlab-balance.bt`). */
  balance: CaptureRef | null;
  b: BRef | null;
  window: [number, number];
  cursor: number;
  /** Selected task id (A's task table). */
  selection: number | null;
  /** The Shift+drag area: its time range, CPUs and tasks. */
  area: { t0: number; t1: number; cpus: number[]; tasks: number[] } | null;
  filter: string;
  pinned: number[];
  noisePct: number;
  matches: [string, string][];
  /** The layout file loaded in the shadow panel (its cgroups name the tasks'), or null. */
  layout: { name: string; text: string } | null;
  /** The shadow spread on screen, or null. */
  spread: SpreadAsk | null;
}

export type ReplayDecode = { ok: true; share: ReplayShare } | { ok: false; error: string };

/** Whether a fragment (with or without '#') is a replay link. */
export const isReplayFragment = (fragment: string): boolean => fragment.replace(/^#/, '').startsWith(REPLAY_PREFIX);

/** Which captures travel in the link. */
type Bundle = { a: boolean; b: boolean };

/** Encodes `s`, bundling what fits (see the module comment); `bundled` tells which did. Throws
 * only if `s` itself is invalid (a bug at the call site). */
export async function encodeReplay(s: ReplayShare): Promise<{ fragment: string; bundled: Bundle }> {
  const check = fromCompact(toCompact(s, { a: false, b: false }));
  if (typeof check === 'string') throw new Error(`Cannot share this view: ${check}`);
  const hasBytes = (c: CaptureRef | null | undefined) => !c || (c.bytes !== undefined && c.size <= BUNDLE_MAX_RAW_BYTES);
  const bCap = s.b?.kind === 'capture' ? s.b.capture : null;
  const canA = hasBytes(s.a) && hasBytes(s.dump) && hasBytes(s.cpuAvg) && hasBytes(s.balance);
  const canB = bCap !== null && hasBytes(bCap);
  const tries: Bundle[] = [
    { a: canA, b: canB },
    { a: canA, b: false },
    { a: false, b: canB },
    { a: false, b: false },
  ].filter((t, i, all) => all.findIndex((u) => u.a === t.a && u.b === t.b) === i);
  for (const t of tries) {
    const packed = await deflateRaw(container(s, t));
    if (packed.length <= BUNDLE_LIMIT_BYTES || (!t.a && !t.b)) return { fragment: REPLAY_PREFIX + toBase64Url(packed), bundled: t };
  }
  throw new Error('unreachable: the last try bundles nothing');
}

/** Decodes a replay fragment; every failure is a result with a clear message. */
export async function decodeReplay(fragment: string): Promise<ReplayDecode> {
  try {
    return await decodeUnsafe(fragment);
  } catch (e) {
    return { ok: false, error: `The shared link could not be read (${e instanceof Error ? e.message : String(e)}).` };
  }
}

/** The container: JSON length, JSON, bundled bytes (A, dump, CPU-averages dump, balance-pass dump, B). */
function container(s: ReplayShare, t: Bundle): Uint8Array<ArrayBuffer> {
  const json = new TextEncoder().encode(JSON.stringify(toCompact(s, t)));
  const parts: Uint8Array[] = [];
  if (t.a) parts.push(s.a.bytes as Uint8Array, ...[s.dump, s.cpuAvg, s.balance].flatMap((c) => (c ? [c.bytes as Uint8Array] : [])));
  if (t.b && s.b?.kind === 'capture') parts.push(s.b.capture.bytes as Uint8Array);
  const out = new Uint8Array(4 + json.length + parts.reduce((n, p) => n + p.length, 0));
  new DataView(out.buffer).setUint32(0, json.length);
  out.set(json, 4);
  let at = 4 + json.length;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Compact keys: A, D dump, P CPU-averages dump, Q balance-pass dump, B capture or S shadow, w window, c cursor, l selection, r area,
 * f filter, p pinned, n noise, m matches, L layout, X spread [kind, n, pin, variants]. A capture is [name, size, hash, duration,
 * origin, bundled 0/1]. */
function toCompact(s: ReplayShare, t: Bundle): Record<string, unknown> {
  const cap = (c: CaptureRef, bundled: boolean) => [c.name, c.size, c.hash, c.durationNs, c.originNs, bundled ? 1 : 0];
  const b = s.b;
  return {
    A: cap(s.a, t.a),
    ...(s.dump ? { D: cap(s.dump, t.a) } : {}),
    ...(s.cpuAvg ? { P: cap(s.cpuAvg, t.a) } : {}),
    ...(s.balance ? { Q: cap(s.balance, t.a) } : {}),
    ...(b?.kind === 'capture' ? { B: cap(b.capture, t.b) } : {}),
    ...(b?.kind === 'shadow' ? { S: [b.key, b.layout, b.pin, b.variants] } : {}),
    w: s.window,
    c: s.cursor,
    l: s.selection,
    ...(s.area ? { r: [s.area.t0, s.area.t1, s.area.cpus, s.area.tasks] } : {}),
    f: s.filter,
    p: s.pinned,
    n: s.noisePct,
    m: s.matches,
    ...(s.layout ? { L: [s.layout.name, s.layout.text] } : {}),
    ...(s.spread ? { X: [s.spread.kind, s.spread.n, s.spread.pin, s.spread.variants] } : {}),
  };
}

async function decodeUnsafe(fragment: string): Promise<ReplayDecode> {
  const fail = (error: string): ReplayDecode => ({ ok: false, error });
  const frag = fragment.replace(/^#/, '');
  if (!frag.startsWith(REPLAY_PREFIX)) return fail('The link fragment is not a schedlab replay link (it should start with "r1.").');
  const payload = frag.slice(REPLAY_PREFIX.length);
  if (payload.length === 0) return fail('The shared link is empty after "r1." (was it cut off?).');
  if (payload.length > MAX_REPLAY_PAYLOAD_CHARS) return fail('The shared link is longer than 2 MB; refused.');
  const bytes = fromBase64Url(payload);
  if (bytes === null) return fail('The shared link is corrupted: its data is not valid base64url.');
  const inflated = await inflateRawBounded(bytes, MAX_REPLAY_INFLATED_BYTES);
  if (inflated === 'too-large') return fail(`The shared link's data is larger than ${MAX_REPLAY_INFLATED_BYTES >> 20} MiB once decompressed; refused.`);
  // A link cut short inflates to a truncated stream, which DecompressionStream reports as an error.
  if (inflated === 'corrupt') return fail('The shared link is corrupted or cut short: its data could not be decompressed.');
  if (inflated.length < 4) return fail('The shared link is cut short: it holds no view.');
  const jsonLen = new DataView(inflated.buffer, inflated.byteOffset, inflated.byteLength).getUint32(0);
  if (4 + jsonLen > inflated.length) return fail(`The shared link is cut short: its view needs ${jsonLen} bytes, ${inflated.length - 4} are there.`);
  let value: unknown;
  const forbidden: string[] = [];
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(inflated.subarray(4, 4 + jsonLen));
    value = JSON.parse(text, (key, v: unknown) => {
      if (key === '__proto__' || key === 'constructor' || key === 'prototype') forbidden.push(key);
      return v;
    });
  } catch {
    return fail('The shared link is corrupted: its view is not valid JSON text.');
  }
  if (forbidden.length > 0) return fail(`The shared link contains the forbidden key "${forbidden[0]}".`);
  const share = fromCompact(value);
  if (typeof share === 'string') return fail(`The shared link is invalid: ${share}`);
  // The bundled captures' bytes, in order, must fill the rest exactly.
  let at = 4 + jsonLen;
  const b = share.b;
  for (const c of [share.a, share.dump, share.cpuAvg, share.balance, b?.kind === 'capture' ? b.capture : null]) {
    if (!c?.bytes) continue;
    const end = at + c.size;
    if (end > inflated.length) return fail(`The shared link is cut short: ${c.name} needs ${c.size} bytes, ${inflated.length - at} are there.`);
    c.bytes = inflated.slice(at, end);
    at = end;
  }
  if (at !== inflated.length) return fail(`The shared link is corrupted: ${inflated.length - at} bytes follow its captures.`);
  return { ok: true, share };
}

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isTime = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0;
const isId = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0;
const isIdList = (x: unknown): x is number[] => Array.isArray(x) && x.length <= MAX_LIST && x.every(isId);
const isPairs = (x: unknown, max: number): x is [string, string][] =>
  Array.isArray(x) && x.length <= MAX_LIST && x.every((p) => Array.isArray(p) && p.length === 2 && p.every((s) => typeof s === 'string' && s.length <= max));

/** A capture `[name, size, hash, duration, origin, bundled]`, its bytes a placeholder when bundled. */
function capture(raw: unknown, what: string): CaptureRef | string {
  if (!Array.isArray(raw) || raw.length !== 6) return `${what} must be [name, size, hash, duration, origin, bundled].`;
  const [name, size, hash, durationNs, originNs, bundled] = raw as unknown[];
  if (typeof name !== 'string' || name.length === 0 || name.length > 255) return `${what}'s file name must be 1 to 255 characters.`;
  if (!isId(size)) return `${what}'s size must be a whole number of bytes.`;
  if (typeof hash !== 'string' || !/^[0-9a-f]{16}$/.test(hash)) return `${what}'s hash must be 16 lowercase hex characters.`;
  if (!isTime(durationNs) || !isTime(originNs)) return `${what}'s duration and first time must be finite numbers ≥ 0.`;
  if (bundled !== 0 && bundled !== 1) return `${what}'s bundled flag must be 0 or 1.`;
  if (bundled === 1 && size > BUNDLE_MAX_RAW_BYTES) return `${what} is bundled but larger than ${BUNDLE_MAX_RAW_BYTES >> 20} MiB.`;
  return { name, size, hash, durationNs, originNs, ...(bundled === 1 ? { bytes: new Uint8Array(0) } : {}) };
}

/** Every key `toCompact` writes. A link with another key was made by a later build that added
 * a field (as `Q` was added for the balance-pass dump): it is refused by name, not read as
 * corrupt (its bundled bytes would not add up). */
const KNOWN_KEYS = new Set(['A', 'D', 'P', 'Q', 'B', 'S', 'w', 'c', 'l', 'r', 'f', 'p', 'n', 'm', 'L', 'X']);

const isPin = (x: unknown): x is string => x === '' || x === 'free' || x === 'observed';

/** The spread `[kind, n, pin, variants]`, or what is wrong with it. */
function spreadAsk(raw: unknown): SpreadAsk | string {
  if (!Array.isArray(raw) || raw.length !== 4) return 'the shadow spread must be [kind, runs, pin, variants].';
  const [kind, n, pin, variants] = raw as unknown[];
  if (kind !== 'seeds' && kind !== 'tick_phases') return 'the shadow spread\'s kind must be "seeds" or "tick_phases".';
  if (!Number.isSafeInteger(n) || (n as number) < 1 || (n as number) > MAX_SPREAD_RUNS) return `the shadow spread's runs must be a whole number from 1 to ${MAX_SPREAD_RUNS}.`;
  if (!isPin(pin)) return 'the shadow spread\'s pin must be "", "free" or "observed".';
  if (!isPairs(variants, 256)) return "the shadow spread's variants must be [name, value] pairs.";
  return { kind, n: n as number, pin, variants };
}

/** Validates the compact form and builds a fresh ReplayShare, or returns what was wrong. */
function fromCompact(raw: unknown): ReplayShare | string {
  if (!isRecord(raw)) return 'its data is not an object.';
  const unknown = Object.keys(raw).filter((k) => !KNOWN_KEYS.has(k));
  if (unknown.length > 0)
    return `it carries ${unknown.length === 1 ? 'a field' : 'fields'} this build does not know (${unknown
      .slice(0, 5)
      .map((k) => JSON.stringify(k.slice(0, 20)))
      .join(', ')}): it was made by a newer schedlab. Open it with that build, or ask for a link without the newer attachment.`;
  const get = (k: string): unknown => (Object.prototype.hasOwnProperty.call(raw, k) ? raw[k] : undefined);
  const a = capture(get('A'), 'capture A');
  if (typeof a === 'string') return a;
  // A dump attached to A travels as A does (both bundled or both named).
  const attached = (key: string, what: string): CaptureRef | null | string => {
    if (get(key) === undefined) return null;
    const d = capture(get(key), what);
    if (typeof d === 'string') return d;
    return (d.bytes !== undefined) !== (a.bytes !== undefined) ? `${what} must travel as its trace does (both bundled or both named).` : d;
  };
  const dump = attached('D', 'the EEVDF dump');
  if (typeof dump === 'string') return dump;
  const cpuAvg = attached('P', 'the CPU-averages dump');
  if (typeof cpuAvg === 'string') return cpuAvg;
  const balance = attached('Q', 'the balance-pass dump');
  if (typeof balance === 'string') return balance;
  let b: BRef | null = null;
  const [B, S] = [get('B'), get('S')];
  if (B !== undefined && S !== undefined) return 'it names both a capture and a shadow run as B.';
  if (B !== undefined) {
    const c = capture(B, 'capture B');
    if (typeof c === 'string') return c;
    b = { kind: 'capture', capture: c };
  } else if (S !== undefined) {
    if (!Array.isArray(S) || S.length !== 4) return 'the shadow run as B must be [key, layout, pin, variants].';
    const [key, layout, pin, variants] = S as unknown[];
    if (typeof key !== 'string' || key.length === 0 || key.length > 300) return "the shadow run's key must be 1 to 300 characters.";
    if (typeof layout !== 'string' || layout.length > MAX_LAYOUT_CHARS) return "the shadow run's layout must be a text of at most 256 Ki characters.";
    if (!isPin(pin)) return 'the shadow run\'s pin must be "", "free" or "observed".';
    if (!isPairs(variants, 256)) return "the shadow run's variants must be [name, value] pairs.";
    b = { kind: 'shadow', key, layout, pin, variants };
  }
  const w = get('w');
  if (!Array.isArray(w) || w.length !== 2 || !w.every(isTime)) return 'the window must be two finite numbers ≥ 0.';
  const [t0, t1] = w;
  if (!(t0 < t1)) return `the window start (${t0}) must be before its end (${t1}).`;
  const cursor = get('c');
  if (!isTime(cursor)) return 'the cursor must be a finite number ≥ 0.';
  const selection = get('l');
  if (selection !== null && !isId(selection)) return 'the selection must be null or a task id.';
  let area: ReplayShare['area'] = null;
  const r = get('r');
  if (r !== undefined) {
    if (!Array.isArray(r) || r.length !== 4) return 'the area must be [t0, t1, cpus, tasks].';
    const [r0, r1, cpus, tasks] = r as unknown[];
    if (!isTime(r0) || !isTime(r1) || !(r0 < r1)) return 'the area must span t0 < t1, both ≥ 0.';
    if (!isIdList(cpus) || !isIdList(tasks)) return "the area's CPUs and tasks must be lists of whole numbers.";
    area = { t0: r0, t1: r1, cpus, tasks };
  }
  const filter = get('f');
  if (typeof filter !== 'string' || filter.length > MAX_FILTER_CHARS) return `the thread filter must be a text of at most ${MAX_FILTER_CHARS} characters.`;
  const pinned = get('p');
  if (!isIdList(pinned)) return 'the pinned threads must be a list of task ids.';
  const noisePct = get('n');
  if (!isTime(noisePct) || noisePct > 1000) return 'the noise level must be a number from 0 to 1000 (%).';
  const matches = get('m');
  if (!isPairs(matches, 300)) return 'the renamed-task matches must be [comm in A, comm in B] pairs.';
  let layout: ReplayShare['layout'] = null;
  const L = get('L');
  if (L !== undefined) {
    if (!Array.isArray(L) || L.length !== 2) return 'the layout must be [name, text].';
    const [name, text] = L as unknown[];
    if (typeof name !== 'string' || name.length > 255 || typeof text !== 'string' || text.length > MAX_LAYOUT_CHARS)
      return 'the layout must be a name of at most 255 characters and a text of at most 256 Ki characters.';
    layout = { name, text };
  }
  let spread: SpreadAsk | null = null;
  const X = get('X');
  if (X !== undefined) {
    const sp = spreadAsk(X);
    if (typeof sp === 'string') return sp;
    spread = sp;
  }
  return { a, dump, cpuAvg, balance, b, window: [t0, t1], cursor, selection, area, filter, pinned, noisePct, matches, layout, spread };
}
