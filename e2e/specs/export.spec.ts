// Exports (issue 19): the current view as PNG and SVG, made in the browser, and the metrics
// table as CSV, for the default scenario and for a replayed trace.
import type { Download, Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test } from '../fixtures/test';
import { openApp, waitForIdle } from '../fixtures/app';

const TRACE = fileURLToPath(new URL('../fixtures/traces/threads.trace.txt', import.meta.url));

async function bytesOf(d: Download): Promise<Buffer> {
  return readFileSync(await d.path());
}

async function exportView(page: Page, kind: 'png' | 'svg'): Promise<{ name: string; bytes: Buffer }> {
  await page.getByTestId('export-menu').locator('summary').click();
  const [d] = await Promise.all([page.waitForEvent('download'), page.getByTestId(`export-${kind}`).click()]);
  return { name: d.suggestedFilename(), bytes: await bytesOf(d) };
}

/** Width and height from a PNG's IHDR chunk. */
function pngSize(b: Buffer): [number, number] {
  expect(b.subarray(1, 4).toString('latin1')).toBe('PNG');
  return [b.readUInt32BE(16), b.readUInt32BE(20)];
}

test('the simulated view as PNG and SVG, and its metrics as CSV', async ({ page }) => {
  await openApp(page);
  await waitForIdle(page);
  const png = await exportView(page, 'png');
  expect(png.name).toBe('gallery-sleeper-vs-hog.png');
  const [w, h] = pngSize(png.bytes);
  const view = (await page.locator('[data-export-root]').boundingBox())!;
  expect(w).toBe(Math.ceil(view.width));
  expect(h).toBeGreaterThanOrEqual(Math.floor(view.height));
  expect(png.bytes.length).toBeGreaterThan(20_000); // lanes drawn, not a blank page
  const svg = await exportView(page, 'svg');
  const text = svg.bytes.toString('utf8');
  expect(text).toContain('<foreignObject');
  // Every canvas of the view went in as a picture.
  const canvases = await page.locator('[data-export-root] canvas').count();
  expect(text.match(/<img [^>]*src="data:image\/png;base64,/g)?.length ?? 0).toBe(canvases);

  const [csv] = await Promise.all([page.waitForEvent('download'), page.getByTestId('metrics-csv').getByRole('button', { name: 'Download CSV' }).click()]);
  expect(csv.suggestedFilename()).toBe('gallery-sleeper-vs-hog-metrics.csv');
  const lines = (await bytesOf(csv)).toString('utf8').trimEnd().split('\r\n');
  expect(lines[0]).toBe('task,variant,share_pct,switches_out,mean_run_ns,wakeup_p99_ns,yields,cpu_time_ns,wakeups,wakeup_p50_ns,wakeup_max_ns');
  // One row per task, the shares as the table shows them.
  expect(lines.slice(1).map((l) => l.split(',').slice(0, 3).join(','))).toEqual(['periodic,baseline,20', 'hog,baseline,80']);
});

test('a replayed trace as PNG: the thread tracks are in the picture', async ({ page }) => {
  await openApp(page);
  await page.getByTestId('trace-input').setInputFiles([TRACE]);
  await expect(page.getByTestId('replay-view')).toBeVisible({ timeout: 30_000 });
  await waitForIdle(page);
  const png = await exportView(page, 'png');
  expect(png.name).toBe('threads.trace.txt.png');
  const [, h] = pngSize(png.bytes);
  const tracks = (await page.getByTestId('thread-tracks').boundingBox())!;
  const root = (await page.locator('[data-export-root]').boundingBox())!;
  expect(h).toBeGreaterThanOrEqual(Math.floor(tracks.y + tracks.height - root.y));
});
