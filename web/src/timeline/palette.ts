// Colours for the timeline: a stable, colour-blind-friendly colour per task id (Okabe–Ito
// and Paul Tol hues, then the same hues again lighter or darker), plus idle and marker colours.

/** Twelve distinguishable hues that survive the common colour-vision deficiencies. */
export const BASE_COLOURS: readonly string[] = [
  '#0072B2', // blue
  '#E69F00', // orange
  '#009E73', // bluish green
  '#CC79A7', // reddish purple
  '#56B4E9', // sky blue
  '#D55E00', // vermillion
  '#F0E442', // yellow
  '#332288', // indigo
  '#44AA99', // teal
  '#882255', // wine
  '#999933', // olive
  '#AA4499', // purple
];

/** Colours of everything that is not a task. */
export const COLOURS = {
  idle: '#eceff1',
  laneBg: '#fafbfc',
  laneBgAlt: '#f3f5f7',
  laneSep: '#d7dce1',
  text: '#1f2328',
  mutedText: '#6e7781',
  wakeup: '#1b5e20',
  yield: '#5d4037',
  preempt: '#d32f2f',
  sleep: '#9e9e9e',
  exit: '#000000',
  pleExit: '#ef6c00',
  lockHeld: '#b71c1c',
  ipi: '#7b1fa2',
  yieldTo: '#2e7d32',
  yieldToFailed: '#90a4ae',
  selection: '#000000',
  selectionBg: 'rgba(255, 213, 79, 0.22)',
  vLine: '#6e7781',
  eligible: 'rgba(46, 160, 67, 0.35)',
  ineligible: 'rgba(218, 54, 51, 0.30)',
  queued: '#b0bec5',
  delayed: '#8e24aa',
  sleeping: '#eceff1',
  group: '#57606a',
  groupBg: '#eef1f5',
  throttled: '#d32f2f',
  unthrottle: '#2e7d32',
  taskThrottled: '#b71c1c',
  runtime: '#0b5394',
  pool: '#8c959f',
  negative: 'rgba(218, 54, 51, 0.35)',
} as const;

function hexToRgb(hex: string): [number, number, number] {
  const v = parseInt(hex.slice(1), 16);
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}

function rgbToHex(r: number, g: number, b: number): string {
  const h = (x: number) => Math.round(Math.min(255, Math.max(0, x))).toString(16).padStart(2, '0');
  return `#${h(r)}${h(g)}${h(b)}`;
}

/** Mixes a colour towards white (amount > 0) or black (amount < 0); amount in [-1, 1]. */
export function shade(hex: string, amount: number): string {
  const [r, g, b] = hexToRgb(hex);
  const target = amount >= 0 ? 255 : 0;
  const a = Math.min(1, Math.abs(amount));
  return rgbToHex(r + (target - r) * a, g + (target - g) * a, b + (target - b) * a);
}

/** Relative luminance (sRGB, WCAG definition) of a #rrggbb colour. */
export function luminance(hex: string): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  const [r, g, b] = hexToRgb(hex);
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

// Each further round of the palette alternates lighter and darker versions of the same hues.
const ROUND_SHADES = [0, 0.35, -0.3, 0.55, -0.45];

const cache = new Map<number, string>();
const darkCache = new Map<number, string>();
const textCache = new Map<number, string>();

/** The colour of task `id`; the same id always gets the same colour. */
export function taskColour(id: number): string {
  let c = cache.get(id);
  if (c === undefined) {
    const n = BASE_COLOURS.length;
    const i = ((id % n) + n) % n;
    const round = Math.floor(Math.abs(id) / n) % ROUND_SHADES.length;
    c = shade(BASE_COLOURS[i], ROUND_SHADES[round]);
    cache.set(id, c);
  }
  return c;
}

/** A darker version of the task's colour, for slices that merge several short runs. */
export function taskColourMerged(id: number): string {
  let c = darkCache.get(id);
  if (c === undefined) {
    c = shade(taskColour(id), -0.28);
    darkCache.set(id, c);
  }
  return c;
}

/** Black or white, whichever reads better on the task's colour. */
export function taskTextColour(id: number): string {
  let c = textCache.get(id);
  if (c === undefined) {
    c = luminance(taskColour(id)) > 0.3 ? '#000000' : '#ffffff';
    textCache.set(id, c);
  }
  return c;
}

/** American spellings, for callers elsewhere in the app. */
export const taskColor = taskColour;
export const taskColorMerged = taskColourMerged;
export const taskTextColor = taskTextColour;
