// Layout constants of the timeline and the narrow 2D-context type the pure renderers draw
// through (a subset of CanvasRenderingContext2D, so unit tests can pass a recording fake).

/** Height of one CPU lane, CSS px. */
export const CPU_LANE_H = 22;
/** Height of one entity (task) lane, CSS px. */
export const ENTITY_LANE_H = 56;
/** Width of the left gutter holding lane labels, CSS px. */
export const GUTTER_W = 110;
/** Gap between the CPU lanes and the entity lanes of one block, CSS px. */
export const SECTION_GAP = 6;
/** Height of the variant label row above each block, CSS px. */
export const LABEL_ROW_H = 20;
/** Height of the SVG time axis, CSS px. */
export const AXIS_H = 26;
/** Height of the running/queued/sleeping bar along the bottom of an entity lane, CSS px. */
export const STATE_BAR_H = 4;
/** The minimum half-range of an entity lane's y-scale: one base slice, virtual ns. */
export const MIN_HALF_RANGE_NS = 1.4e6;

/** The canvas calls the renderers use. */
export type Ctx2D = Pick<
  CanvasRenderingContext2D,
  | 'fillStyle'
  | 'strokeStyle'
  | 'lineWidth'
  | 'font'
  | 'textAlign'
  | 'textBaseline'
  | 'globalAlpha'
  | 'fillRect'
  | 'strokeRect'
  | 'clearRect'
  | 'beginPath'
  | 'closePath'
  | 'moveTo'
  | 'lineTo'
  | 'rect'
  | 'fill'
  | 'stroke'
  | 'fillText'
  | 'measureText'
  | 'save'
  | 'restore'
  | 'clip'
  | 'setLineDash'
  | 'createImageData'
  | 'putImageData'
>;

/** Height of one CFS bandwidth counter track (below the CPU lanes), CSS px. */
export const COUNTER_TRACK_H = 44;

/** Total height of one variant block's canvas for `cpus` CPU lanes, `tasks` entity lanes and
 * `tracks` counter tracks. */
export function blockCanvasHeight(cpus: number, tasks: number, tracks = 0): number {
  return cpus * CPU_LANE_H + tracks * COUNTER_TRACK_H + SECTION_GAP + tasks * ENTITY_LANE_H;
}
