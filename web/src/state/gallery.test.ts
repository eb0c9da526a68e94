// The gallery: every bundled scenario with its id and description; the mirrors of the real
// 2-CPU captures (scenarios/linux-6.18-smp) each say in one line what the real kernel did.
import { describe, expect, it } from 'vitest';
import { findScenario, GALLERY } from './gallery';

const SMP_MIRRORS = ['cgroup-shares-smp', 'nice-imbalance-smp', 'pipe-pair-and-hog', 'sleepers-and-hogs-smp', 'three-hogs-two-cpus'];

describe('gallery', () => {
  it('lists every linux-6.18-smp mirror with what the real kernel did', () => {
    const smp = GALLERY.filter((g) => g.id.startsWith('linux-6.18-smp/')).map((g) => g.id);
    expect(smp).toEqual(SMP_MIRRORS.map((m) => `linux-6.18-smp/${m}`));
    for (const m of SMP_MIRRORS) {
      const g = findScenario(`linux-6.18-smp/${m}`)!;
      expect(g.file).toBe(`scenarios/linux-6.18-smp/${m}.toml`);
      expect(g.description, m).toMatch(/^[^\n]+ Real 6\.18\.44: [^\n]+\.$/);
    }
  });
});
