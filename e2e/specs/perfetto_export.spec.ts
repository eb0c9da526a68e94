// Perfetto out (issue 19): the simulated run of the default scenario downloaded as a Perfetto
// trace and imported back through "Import trace…" (the replay's diagnostics count as many
// sched_switch records as the model made switches), and "Open in Perfetto" with Perfetto UI's
// postMessage protocol against a stand-in for ui.perfetto.dev (answers PING with PONG, keeps
// what it is sent): the message carries an ArrayBuffer of the downloaded bytes. No real network.
import type { Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { expect, test } from '../fixtures/test';
import { openApp, waitForIdle } from '../fixtures/app';

const int = (n: number) => n.toLocaleString('en-US');
const NAME = 'gallery-sleeper-vs-hog.pftrace';

async function downloadPerfetto(page: Page): Promise<Buffer> {
  await page.getByTestId('export-menu').locator('summary').click();
  const [d] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-perfetto').click()]);
  expect(d.suggestedFilename()).toBe(NAME);
  return readFileSync(await d.path());
}

test('the run as a Perfetto trace imports back with the model switch count', async ({ page }) => {
  await openApp(page);
  const switches = Number(await page.getByTestId('metrics').getAttribute('data-switches'));
  expect(switches).toBeGreaterThan(0);
  const bytes = await downloadPerfetto(page);
  expect(bytes.length).toBeGreaterThan(1000);
  await page.getByTestId('trace-input').setInputFiles({ name: NAME, mimeType: 'application/octet-stream', buffer: bytes });
  await expect(page.getByTestId('replay-view')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('import-progress')).toHaveCount(0);
  await waitForIdle(page);
  const panel = page.getByTestId('diagnostics');
  await expect(panel.locator('[data-key="format"] dd')).toHaveText('Perfetto protobuf trace');
  await expect(panel.locator('[data-testid="event-counts"] tr[data-event="sched_switch"] td')).toHaveText(int(switches));
  // Every wakeup as a sched_waking and a sched_wakeup pair.
  const waking = panel.locator('[data-testid="event-counts"] tr[data-event="sched_waking"] td');
  await expect(waking).toHaveText(/^[1-9]/);
  await expect(panel.locator('[data-testid="event-counts"] tr[data-event="sched_wakeup"] td')).toHaveText((await waking.textContent())!);
  // The Perfetto menu is the simulated view's only.
  await page.getByTestId('export-menu').locator('summary').click();
  await expect(page.getByTestId('export-perfetto')).toHaveCount(0);
});

/** A stand-in for the Perfetto UI: answers PING with PONG, keeps the trace it is sent. */
const FAKE_UI = `<!doctype html><title>stand-in Perfetto UI</title><script>
  window.pings = 0;
  window.received = null;
  addEventListener('message', (e) => {
    if (e.data === 'PING') { window.pings++; e.source.postMessage('PONG', e.origin); return; }
    const p = e.data && e.data.perfetto;
    if (p) window.received = { arrayBuffer: p.buffer instanceof ArrayBuffer, bytes: Array.from(new Uint8Array(p.buffer)), title: p.title, fileName: p.fileName };
  });
</script>`;

test('Open in Perfetto posts the trace to ui.perfetto.dev after its PONG', async ({ page, context }) => {
  const outside: string[] = [];
  context.on('request', (r) => {
    if (!r.url().startsWith('http://127.0.0.1')) outside.push(`${r.method()} ${r.url()}`);
  });
  await context.route('https://ui.perfetto.dev/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: FAKE_UI }));
  await openApp(page);
  const bytes = await downloadPerfetto(page);
  await page.getByTestId('export-menu').locator('summary').click();
  const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByTestId('open-perfetto').click()]);
  await popup.waitForFunction(() => (window as unknown as { received: unknown }).received !== null, null, { timeout: 15_000 });
  const got = await popup.evaluate(() => (window as unknown as { received: { arrayBuffer: boolean; bytes: number[]; title: string; fileName: string }; pings: number }).received);
  const pings = await popup.evaluate(() => (window as unknown as { pings: number }).pings);
  expect(popup.url()).toBe('https://ui.perfetto.dev/');
  expect(got.arrayBuffer).toBe(true);
  expect(got.fileName).toBe(NAME);
  expect(got.title).toMatch(/sleeper-vs-hog \(baseline\)$/);
  expect(got.bytes.length).toBe(bytes.length);
  expect(Buffer.from(got.bytes).equals(bytes)).toBe(true);
  // Pinging stopped at the first PONG (at most a couple in flight), and the page asked
  // nothing of the outside but the Perfetto UI's page itself.
  expect(pings).toBeGreaterThanOrEqual(1);
  await page.waitForTimeout(300);
  expect(await popup.evaluate(() => (window as unknown as { pings: number }).pings)).toBe(pings);
  expect(outside).toEqual(['GET https://ui.perfetto.dev/']);
  await expect(page.getByTestId('export-menu').getByRole('alert')).toHaveCount(0);
});
