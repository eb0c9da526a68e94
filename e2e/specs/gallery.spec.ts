// Every bundled scenario loads and its lanes are drawn.
import { expect, test } from '../fixtures/test';
import { appState, chooseScenario, openApp, slicesDrawn } from '../fixtures/app';

test('default scenario opens with lanes drawn', async ({ page }) => {
  await openApp(page);
  const s = await appState(page);
  expect(s.scenario).toBe('gallery/sleeper-vs-hog');
  expect(s.window_ns[1]).toBeGreaterThan(s.window_ns[0]);
  const drawn = await slicesDrawn(page);
  expect(drawn[0]).toBeGreaterThan(5);
  await page.screenshot({ path: 'artifacts/default.png' });
});

test('each gallery scenario draws its CPU and entity lanes', async ({ page }) => {
  await openApp(page);
  const ids = await page.$$eval('select[aria-label="scenario"] option', (os) => os.map((o) => (o as HTMLOptionElement).value).filter(Boolean));
  expect(ids.length).toBeGreaterThanOrEqual(10);
  for (const id of ids) {
    await chooseScenario(page, id);
    const canvas = page.locator('[data-testid="timeline-block"] canvas').first();
    const lanes = Number(await canvas.getAttribute('data-lanes'));
    const drawn = Number(await canvas.getAttribute('data-slices-drawn'));
    expect(lanes, id).toBeGreaterThanOrEqual(2);
    expect(drawn, id).toBeGreaterThan(0);
    // Pixels, not only counters: the canvas is not blank.
    const inked = await canvas.evaluate((c: HTMLCanvasElement) => {
      const ctx = c.getContext('2d')!;
      const d = ctx.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4 * 7) if (d[i] > 0) n++;
      return n;
    });
    expect(inked, id).toBeGreaterThan(100);
  }
  await page.screenshot({ path: 'artifacts/last-gallery.png' });
});
