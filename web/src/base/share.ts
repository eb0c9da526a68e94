// The share-link codec: a whole view (scenario, variants, window, cursor, selection, panels,
// mode, lesson step) packed into a URL fragment `s1.<base64url(deflate-raw(compact JSON))>`. Bundled
// scenarios travel as name + content hash only, which keeps their links short. Decoding is
// bounded in size, uses JSON.parse only (never eval), validates every field and never throws.
import type { VariantSpec } from '../engine/protocol';

export type ScenarioRef = { kind: 'bundled'; name: string; hash: string } | { kind: 'inline'; text: string };

export interface ViewState {
  scenario: ScenarioRef;
  variants: VariantSpec[];
  window: [number, number]; // ns
  cursor: number; // ns
  selection: number | null; // task id
  panels: string[]; // open panel ids, e.g. ['editor','inspector','metrics']
  mode?: 'relative' | 'absolute';
  /** The lesson step the view belongs to (lessons/*.json id, step index from 0). */
  lesson?: { id: string; step: number };
}

export type DecodeResult = { ok: true; state: ViewState } | { ok: false; error: string };

/** The largest decompressed payload a link may carry. */
export const MAX_DECOMPRESSED_BYTES = 1_000_000;
/** The longest base64 payload that is even looked at; longer ones are refused unread. */
export const MAX_PAYLOAD_CHARS = 2_000_000;
/** The panel ids a link may open. */
export const ALLOWED_PANELS: readonly string[] = ['editor', 'inspector', 'metrics', 'help', 'runqueue', 'why'];
/** The format prefix; a future format would use `s2.` and so on. */
const PREFIX = 's1.';
/** At most 8 variants per link, and at most 64 overrides per variant. */
const MAX_VARIANTS = 8;
const MAX_OVERRIDES = 64;
/** Byte arrays backed by a plain ArrayBuffer, the kind the stream APIs accept. */
type Bytes = Uint8Array<ArrayBuffer>;
const TOO_LARGE = "The shared link's data is larger than 1 MB once decompressed; refused.";

/** Compresses `s` and returns the fragment without '#'; throws if `s` itself is invalid. */
export async function encodeState(s: ViewState): Promise<string> {
  // Keys: b bundled [name, hash], i inline text, v variants, w window, c cursor, l selection,
  // p panels, m mode ('r' or 'a', only when set), L lesson [id, step] (only when set; links
  // made before lessons existed have no L and still decode).
  const compact: Record<string, unknown> = {
    ...(s.scenario.kind === 'bundled' ? { b: [s.scenario.name, s.scenario.hash] } : { i: s.scenario.text }),
    v: s.variants.map((v) => [v.key, v.overrides]), w: s.window, c: s.cursor, l: s.selection, p: s.panels,
    ...(s.mode !== undefined ? { m: s.mode === 'relative' ? 'r' : 'a' } : {}),
    ...(s.lesson !== undefined ? { L: [s.lesson.id, s.lesson.step] } : {}),
  };
  // A link that could not be opened again is a bug at the call site, so it is reported now.
  const check = fromCompact(compact);
  if (typeof check === 'string') throw new Error(`Cannot share this view: ${check}`);
  const bytes = new TextEncoder().encode(JSON.stringify(compact));
  if (bytes.length > MAX_DECOMPRESSED_BYTES) throw new Error(`Cannot share this view: ${TOO_LARGE}`);
  return PREFIX + toBase64Url(await deflateRaw(bytes));
}

/** Decodes a fragment (with or without '#'); every failure is a result with a clear message. */
export async function decodeState(fragment: string): Promise<DecodeResult> {
  try {
    return await decodeUnsafe(fragment);
  } catch (e) { // Nothing below is expected to throw, but a link must never crash the app.
    return { ok: false, error: `The shared link could not be read (${e instanceof Error ? e.message : String(e)}).` };
  }
}

/** Returns `base` without any fragment, followed by '#' and `fragment`. */
export function shareUrl(base: string, fragment: string): string {
  const hash = base.indexOf('#');
  return (hash >= 0 ? base.slice(0, hash) : base) + '#' + fragment;
}

/** Decodes step by step: prefix, size, base64url, bounded inflate, UTF-8, JSON, validation. */
async function decodeUnsafe(fragment: string): Promise<DecodeResult> {
  const fail = (error: string): DecodeResult => ({ ok: false, error });
  const frag = fragment.startsWith('#') ? fragment.slice(1) : fragment;
  if (frag === '') return fail('The link carries no shared view.');
  if (!frag.startsWith(PREFIX)) {
    const other = /^s(\d+)\./.exec(frag);
    return fail(other
      ? `The shared link uses format s${other[1]}, which this version of schedlab cannot read (it reads s1).`
      : 'The link fragment is not a schedlab share link (it should start with "s1.").');
  }
  const payload = frag.slice(PREFIX.length);
  if (payload.length > MAX_PAYLOAD_CHARS) return fail('The shared link is longer than 2 MB; refused.');
  const bytes = fromBase64Url(payload);
  if (bytes === null) return fail('The shared link is corrupted: its data is not valid base64url.');
  const inflated = await inflateRawBounded(bytes, MAX_DECOMPRESSED_BYTES);
  if (inflated === 'too-large') return fail(TOO_LARGE);
  if (inflated === 'corrupt') return fail('The shared link is corrupted: its data could not be decompressed.');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(inflated);
  } catch {
    return fail('The shared link is corrupted: its data is not valid UTF-8 text.');
  }
  let value: unknown;
  // The keys the reviver refused (an array: TypeScript does not see the callback assign).
  const forbidden: string[] = [];
  try {
    // The reviver only watches keys; keys that could reach prototypes reject the whole link.
    value = JSON.parse(text, (key, v: unknown) => {
      if (key === '__proto__' || key === 'constructor' || key === 'prototype') forbidden.push(key);
      return v;
    });
  } catch {
    return fail('The shared link is corrupted: its data is not valid JSON.');
  }
  if (forbidden.length > 0) return fail(`The shared link contains the forbidden key "${forbidden[0]}".`);
  const state = fromCompact(value);
  return typeof state === 'string' ? fail(`The shared link is invalid: ${state}`) : { ok: true, state };
}

/** Validates the compact form and builds a fresh ViewState, or returns what was wrong. */
function fromCompact(raw: unknown): ViewState | string {
  if (!isRecord(raw)) return 'its data is not an object.';
  // Only own, known keys are read; anything else in the object is ignored.
  const get = (k: string): unknown => (Object.prototype.hasOwnProperty.call(raw, k) ? raw[k] : undefined);
  const [b, i] = [get('b'), get('i')];
  let scenario: ScenarioRef;
  if (b !== undefined && i !== undefined) return 'it names both a bundled and an inline scenario.';
  if (b !== undefined) {
    if (!Array.isArray(b) || b.length !== 2) return 'the bundled scenario must be [name, hash].';
    const [name, hash] = b as unknown[];
    if (typeof name !== 'string' || name.length === 0 || name.length > 200)
      return 'the bundled scenario name must be a string of 1 to 200 characters.';
    if (typeof hash !== 'string' || !/^[0-9a-f]{12}$/.test(hash))
      return 'the bundled scenario hash must be 12 lowercase hex characters.';
    scenario = { kind: 'bundled', name, hash };
  } else if (i !== undefined) {
    if (typeof i !== 'string') return 'the inline scenario text must be a string.';
    if (new TextEncoder().encode(i).length > MAX_DECOMPRESSED_BYTES) return 'the inline scenario text is over 1 MB.';
    scenario = { kind: 'inline', text: i };
  } else {
    return 'it names no scenario.';
  }
  const variants = parseVariants(get('v'));
  if (typeof variants === 'string') return variants;
  const w = get('w');
  if (!Array.isArray(w) || w.length !== 2 || !w.every(isNonNegativeNumber))
    return 'the window must be two finite numbers ≥ 0.';
  const [t0, t1] = w;
  if (!(t0 < t1)) return `the window start (${t0}) must be before its end (${t1}).`;
  const cursor = get('c');
  if (!isNonNegativeNumber(cursor)) return 'the cursor must be a finite number ≥ 0.';
  const selection = get('l');
  if (selection !== null && !(Number.isSafeInteger(selection) && (selection as number) >= 0))
    return 'the selection must be null or a non-negative integer task id.';
  const p = get('p');
  if (!Array.isArray(p)) return 'the open panels must be a list.';
  const panels: string[] = [];
  for (const id of p as unknown[]) {
    if (typeof id !== 'string' || !ALLOWED_PANELS.includes(id))
      return `unknown panel ${JSON.stringify(id)} (known: ${ALLOWED_PANELS.join(', ')}).`;
    if (panels.includes(id)) return `the panel "${id}" is listed twice.`;
    panels.push(id);
  }
  const state: ViewState = { scenario, variants, window: [t0, t1], cursor, selection: selection as number | null, panels };
  const m = get('m');
  if (m === 'r' || m === 'a') state.mode = m === 'r' ? 'relative' : 'absolute';
  else if (m !== undefined) return 'the time mode must be "r" (relative) or "a" (absolute).';
  const L = get('L');
  if (L !== undefined) {
    if (!Array.isArray(L) || L.length !== 2) return 'the lesson must be [id, step].';
    const [id, step] = L as unknown[];
    if (typeof id !== 'string' || !/^[a-z0-9][a-z0-9-]{0,63}$/.test(id))
      return 'the lesson id must be 1 to 64 lowercase letters, digits or dashes.';
    if (!Number.isSafeInteger(step) || (step as number) < 0 || (step as number) > 999)
      return 'the lesson step must be an integer from 0 to 999.';
    state.lesson = { id, step: step as number };
  }
  return state;
}

/** Validates the compact variant list `[[key, [[name, value], ...]], ...]`. */
function parseVariants(v: unknown): VariantSpec[] | string {
  if (!Array.isArray(v)) return 'the variants must be a list.';
  if (v.length > MAX_VARIANTS) return `there are ${v.length} variants; at most ${MAX_VARIANTS} are allowed.`;
  const out: VariantSpec[] = [];
  for (const item of v as unknown[]) {
    if (!Array.isArray(item) || item.length !== 2) return 'each variant must be [key, overrides].';
    const [key, ov] = item as unknown[];
    if (typeof key !== 'string' || key.length > 64) return 'a variant key must be a string of at most 64 characters.';
    if (!Array.isArray(ov) || ov.length > MAX_OVERRIDES)
      return `the overrides of variant "${key}" must be a list of at most ${MAX_OVERRIDES} pairs.`;
    const overrides: [string, string][] = [];
    for (const pair of ov as unknown[]) {
      if (!Array.isArray(pair) || pair.length !== 2) return `an override of variant "${key}" is not a [name, value] pair.`;
      const [name, value] = pair as unknown[];
      if (typeof name !== 'string' || name.length > 64 || typeof value !== 'string' || value.length > 256)
        return `an override of variant "${key}" must be a name of at most 64 and a value of at most 256 characters.`;
      overrides.push([name, value]);
    }
    out.push({ key, overrides });
  }
  return out;
}

/** Tells whether `x` is a non-array object, the only shape the top level may have. */
const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
/** Tells whether `x` is a finite number ≥ 0, as times in ns must be. */
const isNonNegativeNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0;

/** Reads every chunk of a stream into one byte array. */
async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
  return concat(chunks);
}

/** Joins byte chunks into one array. */
function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) { out.set(c, at); at += c.length; }
  return out;
}

/** A one-chunk stream typed as BufferSource, which is what (De)CompressionStream accepts. */
function streamOf(bytes: Bytes): ReadableStream<BufferSource> {
  return new ReadableStream<BufferSource>({ start(c) { c.enqueue(bytes); c.close(); } });
}

/** Compresses bytes with raw deflate (no zlib header, which saves a few link characters). */
export async function deflateRaw(bytes: Bytes): Promise<Uint8Array> {
  return collect(streamOf(bytes).pipeThrough(new CompressionStream('deflate-raw')));
}

/** Inflates chunk by chunk and cancels as soon as the output would exceed `limit` bytes. */
export async function inflateRawBounded(bytes: Bytes, limit: number): Promise<Uint8Array | 'too-large' | 'corrupt'> {
  const reader = streamOf(bytes).pipeThrough(new DecompressionStream('deflate-raw')).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      total += r.value.length;
      if (total > limit) {
        await reader.cancel().catch(() => undefined);
        return 'too-large';
      }
      chunks.push(r.value);
    }
  } catch {
    return 'corrupt';
  }
  return concat(chunks);
}

/** Base64url without padding, built with btoa over binary strings in chunks of 3·8192 bytes. */
export function toBase64Url(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 24576) {
    out += btoa(String.fromCharCode(...bytes.subarray(i, i + 24576)));
  }
  return out.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Decodes unpadded base64url in chunks of 4·8192 chars; returns null if it is malformed. */
export function fromBase64Url(text: string): Bytes | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const out = new Uint8Array(Math.floor((b64.length * 3) / 4));
  let at = 0;
  try {
    for (let i = 0; i < b64.length; i += 32768) {
      const part = b64.slice(i, i + 32768);
      const bin = atob(part + '='.repeat((4 - (part.length % 4)) % 4));
      for (let j = 0; j < bin.length; j++) out[at++] = bin.charCodeAt(j);
    }
  } catch {
    return null;
  }
  return out.subarray(0, at);
}
