// Opening scenario files: the file picker and drag-and-drop onto the page.
import { expect, test } from '../fixtures/test';
import { readFileSync } from 'node:fs';
import { appState, openApp, waitForIdle } from '../fixtures/app';

const text = readFileSync(new URL('../../scenarios/gallery/nice-ladder.toml', import.meta.url), 'utf8').replace(
  'name = "gallery/nice-ladder"',
  'name = "dropped-ladder"',
);

test('open a scenario file with the file picker', async ({ page }) => {
  await openApp(page);
  await page.setInputFiles('[data-testid="file-input"]', { name: 'mine.toml', mimeType: 'text/plain', buffer: Buffer.from(text) });
  await page.waitForFunction(() => window.__schedlab!.state().scenario === 'inline');
  await waitForIdle(page);
  await expect(page.locator('[data-testid="metrics-table"]')).toContainText('nice-4');
});

test('drop a scenario file on the page', async ({ page }) => {
  await openApp(page);
  const dt = await page.evaluateHandle((t) => {
    const d = new DataTransfer();
    d.items.add(new File([t], 'dropped.toml', { type: 'text/plain' }));
    return d;
  }, text);
  await page.dispatchEvent('body', 'drop', { dataTransfer: dt });
  await page.waitForFunction(() => window.__schedlab!.state().scenario === 'inline');
  await waitForIdle(page);
  expect((await appState(page)).scenario).toBe('inline');
  await expect(page.locator('[data-testid="metrics-table"]')).toContainText('nice2');
});
