// The debooster-thread guide: open it from the header, open Prateek's second topology with
// the chosen variants, and read the bystander's CPU share live, in the guide and in the
// metrics table: the browser must give the figures `schedlab compare` gives.
import { expect, test } from '../fixtures/test';
import { appState, openApp, waitForIdle } from '../fixtures/app';

const VARIANTS = ['baseline', 'hier-yield', 'debooster-v1', 'debooster-v2'];
/** C's CPU share per variant (schedlab compare scenarios/yield/prateek-topology-2.toml). */
const C_SHARE: Record<string, string> = { baseline: '38.80', 'hier-yield': '38.80', 'debooster-v1': '28.00', 'debooster-v2': '30.00' };

test('guide opens topology 2 with the debooster variants and shows the bystander shares', async ({ page }) => {
  await openApp(page);
  await page.getByRole('button', { name: 'guide', exact: true }).click();
  const guide = page.getByRole('dialog', { name: 'debooster guide' });
  await expect(guide).toBeVisible();
  const section = page.getByTestId('guide-bystander');
  await expect(section).toContainText('K Prateek Nayak');
  await section.getByRole('button', { name: 'Open in schedlab' }).click();
  await page.waitForFunction(
    (keys) => {
      const s = window.__schedlab?.state();
      return s?.scenario === 'yield/prateek-topology-2' && s.variants.map((v) => v.key).join(',') === keys;
    },
    VARIANTS.join(','),
  );
  await waitForIdle(page);
  const s = await appState(page);
  expect(s.variants).toEqual([
    { key: 'baseline', overrides: [] },
    { key: 'hier-yield', overrides: [['yield', 'hierarchical']] },
    { key: 'debooster-v1', overrides: [['yield_to', 'debooster_v1']] },
    { key: 'debooster-v2', overrides: [['yield_to', 'debooster_v2']] },
  ]);

  // The metrics table: task C's rows, one per variant, share % first.
  const table = page.getByTestId('metrics-table');
  await expect(table).toBeVisible();
  const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
  const cRow = rows.findIndex((r) => r[0] === 'C');
  expect(cRow).toBeGreaterThanOrEqual(0);
  for (let i = 0; i < VARIANTS.length; i++) {
    const [, variant, shareCell] = rows[cRow + i];
    expect(variant).toBe(VARIANTS[i]);
    expect(shareCell.startsWith(C_SHARE[variant]), `${variant}: ${shareCell}`).toBe(true);
  }

  // The guide's live table: the same figures, beside the expected ones.
  const live = page.getByTestId('guide-live-bystander');
  await expect(live).toBeVisible();
  const liveRows = await live.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
  expect(liveRows.map((r) => r[0])).toEqual(VARIANTS);
  for (const r of liveRows) {
    expect(r[1], r[0]).toBe(C_SHARE[r[0]]);
    expect(r[r.length - 1], r[0]).toBe(C_SHARE[r[0]]);
  }
  // Penalties only under the debooster.
  expect(liveRows[0][4]).toMatch(/^0\/\d+$/);
  expect(liveRows[2][4]).toMatch(/^[1-9]\d*\/\d+$/);
  // Other claims say how to see them live.
  await expect(page.getByTestId('guide-rate-limit')).toContainText('Open it to compute');

  await section.scrollIntoViewIfNeeded();
  await page.screenshot({ path: 'artifacts/guide.png' });

  // Esc closes it.
  await page.keyboard.press('Escape');
  await expect(guide).toHaveCount(0);
});

/** The live table of a claim as text cells, once its scenario has run. */
async function liveTable(page: import('@playwright/test').Page, id: string): Promise<string[][]> {
  await page.getByTestId(`guide-${id}`).getByRole('button', { name: 'Open in schedlab' }).click();
  const live = page.getByTestId(`guide-live-${id}`);
  await live.waitFor({ timeout: 60_000 });
  await waitForIdle(page);
  return live.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
}

test('every claim of the guide gives the measured figures live', async ({ page }) => {
  test.setTimeout(120_000);
  await openApp(page);
  await page.getByRole('button', { name: 'guide', exact: true }).click();

  // (a) topology 1: B's share; B runs at the first pick after every yield_to.
  const t1 = await liveTable(page, 'topology-1');
  expect(t1.map((r) => [r[0], r[1], r[2]])).toEqual([
    ['baseline', '50.10', '1.000'],
    ['hier-yield', '77.40', '1.000'],
    ['debooster-v2', '68.00', '1.000'],
    ['lag-credit', '85.20', '1.000'],
  ]);
  // (c) ping-pong: penalties / calls and the rate-limited calls.
  const pp = await liveTable(page, 'rate-limit');
  expect(pp.map((r) => r.slice(0, 3))).toEqual([
    ['debooster-v1', '1/295', '294'],
    ['debooster-v2', '15/294', '279'],
  ]);
  // (d) the yield storm: cputimer atomic share and yields reaching schedule().
  const ys = await liveTable(page, 'yield-storm');
  expect(ys.map((r) => [r[0], r[1], r[4]])).toEqual([
    ['baseline', '77.39 %', ''],
    ['yield-throttle-10us', '2.21 %', '64.6 % fewer'],
  ]);
  // (e) yield-vs-hog: the baseline forfeits like 6.19; 6.18.0's deadline bump does not.
  const fh = await liveTable(page, 'forfeit');
  expect(fh.map((r) => [r[0], r[1]])).toEqual([
    ['baseline', '1.37'],
    ['forfeit-6.19', '1.37'],
    ['yield-6.18.0', '48.02'],
  ]);
  // (g, h) KVM at 16 pCPUs: IPIs answered, without and with APICv.
  const wt = await liveTable(page, 'wanpeng-table');
  expect(wt.map((r) => [r[0], r[1]])).toEqual([
    ['baseline', '66116'],
    ['wanpeng-series', '99739'],
  ]);
  // (i) dbench-like, one hot lock per VM, libvirt's layout: guest locks and debooster penalties.
  const db = await liveTable(page, 'dbench-row');
  expect(db.map((r) => [r[0], r[1], r[3]])).toEqual([
    ['baseline', '28223', '0/30468'],
    ['debooster-v1', '29453', '7/19120'],
    ['wanpeng-series', '29498', '0/59731'],
  ]);
  const ap = await liveTable(page, 'apicv');
  expect(ap.map((r) => [r[0], r[1]])).toEqual([
    ['baseline', '66116'],
    ['wanpeng-series', '99739'],
    ['apicv', '98676'],
    ['apicv-series', '99862'],
  ]);
});

test('guide: the IPI-aware claim opens ipi-pipeline with four variants and the live IPI counts match', async ({ page }) => {
  await openApp(page);
  await page.getByRole('button', { name: 'guide', exact: true }).click();
  const section = page.getByTestId('guide-ipi-aware');
  await expect(section).toContainText('Wanpeng Li');
  await section.getByRole('button', { name: 'Open in schedlab' }).click();
  await page.waitForFunction(() => window.__schedlab?.state().scenario === 'kvm/ipi-pipeline' && window.__schedlab.state().variants.length === 4);
  await waitForIdle(page);
  const live = page.getByTestId('guide-live-ipi-aware');
  await expect(live).toBeVisible();
  const rows = await live.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
  const expected: Record<string, string> = { baseline: '4762', 'ipi-aware': '3820', 'ipi-aware-no-relaxed': '4760', 'wanpeng-series': '3262' };
  expect(rows.map((r) => r[0])).toEqual(Object.keys(expected));
  for (const r of rows) expect(r[1], r[0]).toBe(expected[r[0]]);
  await page.screenshot({ path: 'artifacts/guide-ipi-aware.png' });
});
