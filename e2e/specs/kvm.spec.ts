// KVM: the overlay on the CPU lanes (IPI arrows with their latency, directed-yield arrows,
// pause-loop-exit ticks) and the guest-progress columns of the metrics table.
import type { Page } from '@playwright/test';
import { expect, test } from '../fixtures/test';
import { chooseScenario, openApp, waitForIdle } from '../fixtures/app';

const canvas = (page: Page) => page.locator('[data-testid="timeline-block"] canvas').first();
const attr = async (page: Page, name: string) => Number((await canvas(page).getAttribute(name)) ?? 'NaN');

test('ipi-pipeline: IPI arrows, pause-loop exits and directed yields are drawn; metrics show guest ops', async ({ page }) => {
  await openApp(page);
  await chooseScenario(page, 'kvm/ipi-pipeline');
  const table = page.getByTestId('metrics-table');
  await expect(table.locator('th', { hasText: 'guest ops' })).toHaveCount(1);
  await expect(table.locator('th', { hasText: 'PLE exits' })).toHaveCount(1);
  await page.getByRole('button', { name: 'editor' }).click();
  await page.getByRole('button', { name: 'metrics' }).click();
  // Markers are sent for zoomed-in windows only: zoom in until the IPIs show.
  for (let i = 0; i < 12 && (await attr(page, 'data-ipi-arrows')) === 0; i++) {
    await page.keyboard.press('w');
    await waitForIdle(page);
  }
  expect(await attr(page, 'data-ipi-arrows')).toBeGreaterThan(0);
  await page.screenshot({ path: 'artifacts/kvm-ipi-arrows.png' });
  // Pause-loop exits come with the ticks that preempt a vCPU of the pair: pan through the run.
  let ple = await attr(page, 'data-ple-exits');
  for (let i = 0; i < 40 && ple === 0; i++) {
    await page.keyboard.press('d');
    await waitForIdle(page);
    ple = await attr(page, 'data-ple-exits');
  }
  expect(ple).toBeGreaterThan(0);
});

test('lock-holder-preemption: lock hold strips; directed-yield arrows carry the reason kvm_vcpu_on_spin() chose the target', async ({ page }) => {
  await openApp(page);
  await chooseScenario(page, 'kvm/lock-holder-preemption');
  await page.getByRole('button', { name: 'editor' }).click();
  await page.getByRole('button', { name: 'metrics' }).click();
  for (let i = 0; i < 3; i++) await page.keyboard.press('w');
  await waitForIdle(page);
  let arrows = await attr(page, 'data-yield-arrows');
  for (let i = 0; i < 60 && arrows === 0; i++) {
    await page.keyboard.press('d');
    await waitForIdle(page);
    arrows = await attr(page, 'data-yield-arrows');
  }
  expect(arrows).toBeGreaterThan(0);
  expect(await attr(page, 'data-yield-reasons')).toBeGreaterThan(0);
  // The guest lock's hold strips (the lock is taken tens of thousands of times a second).
  expect(await attr(page, 'data-lock-holds')).toBeGreaterThan(0);
  // Waiters burning CPU in their spin-waits.
  expect(await attr(page, 'data-spin-bands')).toBeGreaterThan(0);
  await page.screenshot({ path: 'artifacts/kvm-yield-reasons.png' });
});

test('ipi-pipeline: vCPU lanes grouped by VM under the pCPU lanes, with states and IPI arrows between them', async ({ page }) => {
  await openApp(page);
  await chooseScenario(page, 'kvm/ipi-pipeline');
  await page.getByRole('button', { name: 'editor' }).click();
  await page.getByRole('button', { name: 'metrics' }).click();
  await waitForIdle(page);
  // One VM header row and its 4 vCPU lanes, whatever the zoom.
  expect(await attr(page, 'data-vm-headers')).toBe(1);
  expect(await attr(page, 'data-vcpu-lanes')).toBe(4);
  expect(await attr(page, 'data-vcpu-running-segments')).toBeGreaterThan(0);
  // Preempted spans and IPI arrows need the markers, sent for zoomed-in windows only.
  for (let i = 0; i < 12 && (await attr(page, 'data-vcpu-ipi-arrows')) === 0; i++) {
    await page.keyboard.press('w');
    await waitForIdle(page);
  }
  expect(await attr(page, 'data-vcpu-ipi-arrows')).toBeGreaterThan(0);
  expect(await attr(page, 'data-vcpu-running-segments')).toBeGreaterThan(0);
  expect(await attr(page, 'data-vcpu-preempted-segments')).toBeGreaterThan(0);
  expect(await attr(page, 'data-vcpu-spin-bands')).toBeGreaterThan(0);
  await page.screenshot({ path: '/tmp/vcpu-lanes.png' });
  await page.screenshot({ path: 'artifacts/kvm-vcpu-lanes.png' });
  // The VM header's toggle collapses the lanes (a click) and expands them (the keyboard).
  const toggle = page.getByTestId('vm-toggle').first();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await toggle.click();
  await waitForIdle(page);
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  expect(await attr(page, 'data-vcpu-lanes')).toBe(0);
  expect(await attr(page, 'data-vcpu-ipi-arrows')).toBe(0);
  await toggle.focus();
  await page.keyboard.press('Enter');
  await waitForIdle(page);
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  expect(await attr(page, 'data-vcpu-lanes')).toBe(4);
});
