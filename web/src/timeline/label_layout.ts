// Collision-free text labels on the lanes: every label drawn on a canvas registers its box
// (measured with ctx.measureText); a later label tries its candidate positions in order and
// takes the first whose box intersects none already placed, or is dropped. Task names are
// placed first (render_cpu.ts, render_vcpu.ts), then the markers' and overlays' labels (yield
// letters, IPI latencies, directed-yield reasons), so an overlay label never covers a name.
// Boxes are kept in a grid of CELL_W-px columns, so a query looks at the few boxes nearby.

/** A label's box, CSS px. */
export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

const CELL_W = 64;

/** Whether two boxes overlap (touching edges do not). */
export function intersects(a: Box, b: Box): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/** The boxes placed on one canvas. */
export class LabelBoxes {
  private cells = new Map<number, Box[]>();
  /** Boxes placed. */
  count = 0;

  private span(b: Box): [number, number] {
    return [Math.floor(b.x / CELL_W), Math.floor((b.x + b.w) / CELL_W)];
  }

  /** Whether `b` overlaps no placed box. */
  free(b: Box): boolean {
    const [c0, c1] = this.span(b);
    for (let c = c0; c <= c1; c++) {
      const list = this.cells.get(c);
      if (list && list.some((o) => intersects(o, b))) return false;
    }
    return true;
  }

  /** Records `b` as placed (whether or not it is free). */
  add(b: Box): void {
    const [c0, c1] = this.span(b);
    for (let c = c0; c <= c1; c++) {
      let list = this.cells.get(c);
      if (!list) this.cells.set(c, (list = []));
      list.push(b);
    }
    this.count++;
  }

  /** The first free candidate, placed; null when every one collides. */
  place(candidates: readonly Box[]): Box | null {
    for (const b of candidates) {
      if (this.free(b)) {
        this.add(b);
        return b;
      }
    }
    return null;
  }
}
