// Outlines of highlighted entity lanes (a lesson step's entities), drawn as positioned
// elements over a block's canvas: an amber frame around the lane and a tint over its label.
// Each carries data-entity (the lane's label) so tests can see which lanes are highlighted.
import { ENTITY_LANE_H, GUTTER_W } from './layout';
import type { LaneSpec } from './lanes';

export function LaneHighlights({ lanes, ids, top, width }: { lanes: readonly LaneSpec[]; ids?: readonly number[]; top: number; width: number }) {
  if (!ids || ids.length === 0) return null;
  return (
    <>
      {lanes.map((l, i) =>
        ids.includes(l.id) ? (
          <div
            key={l.id}
            data-testid="lane-highlight"
            data-entity={l.label}
            className="lane-highlight"
            style={{ top: top + i * ENTITY_LANE_H, height: ENTITY_LANE_H, width: Math.max(0, width), ['--gutter' as string]: `${GUTTER_W}px` }}
          />
        ) : null,
      )}
    </>
  );
}
