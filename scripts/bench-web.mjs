// Web benchmark (prints figures; asserts nothing). Run after `npm run build`:
//   node scripts/bench-web.mjs
// 1. navigation → first lanes drawn, default scenario (median of 5 fresh pages);
// 2. frame times while panning the dense scenario zoomed out (≥ 100,000 run slices in view);
// 3. wasm and JS bundle sizes, gzipped;
// 4. wasm/native engine throughput on the same scenario (wasm in Node's V8, the browser's engine).
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';

const root = new URL('..', import.meta.url).pathname;
const PORT = 4174;
const base = `http://127.0.0.1:${PORT}/`;
const dense = `${root}e2e/fixtures/bench-dense.toml`;
const q = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

function bundleSizes() {
  const dir = `${root}web/dist/assets`;
  const out = { js: 0, jsGz: 0, wasm: 0, wasmGz: 0 };
  for (const f of readdirSync(dir)) {
    const b = readFileSync(`${dir}/${f}`);
    if (f.endsWith('.js')) (out.js += b.length), (out.jsGz += gzipSync(b).length);
    if (f.endsWith('.wasm')) (out.wasm += b.length), (out.wasmGz += gzipSync(b).length);
  }
  return out;
}

async function wasmThroughput() {
  const mod = await import(`${root}web/src/generated/wasm/schedlab_wasm.js`);
  mod.initSync({ module: readFileSync(`${root}web/src/generated/wasm/schedlab_wasm_bg.wasm`) });
  const text = readFileSync(dense, 'utf8');
  const runs = [];
  let digest = '';
  for (let i = 0; i < 5; i++) {
    const h = new mod.SimHandle();
    const r = JSON.parse(h.load('dense.toml', text, '[]'));
    if (r.kind !== 'loaded') throw new Error(JSON.stringify(r.error));
    const t0 = performance.now();
    h.run_until(1e18);
    runs.push((performance.now() - t0) / 1000);
    digest = h.digest();
    h.free();
  }
  return { wall: q(runs, 50), digest };
}

function nativeThroughput() {
  const runs = [];
  let digest = '';
  for (let i = 0; i < 5; i++) {
    const line = execFileSync(`${root}target/release/schedlab`, ['bench', dense]).toString();
    runs.push(Number(/wall=([\d.]+)s/.exec(line)[1]));
    digest = /digest=([0-9a-f]+)/.exec(line)[1];
  }
  return { wall: q(runs, 50), digest };
}

async function browserFigures() {
  const server = spawn('node', [`${root}node_modules/vite/bin/vite.js`, 'preview', '--config', `${root}web/vite.config.ts`, '--port', String(PORT), '--host', '127.0.0.1', '--strictPort'], { stdio: 'ignore' });
  try {
    for (let i = 0; i < 100; i++) {
      try {
        if ((await fetch(base)).ok) break;
      } catch {}
      await new Promise((r) => setTimeout(r, 100));
    }
    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const firstLanes = [];
    for (let i = 0; i < 5; i++) {
      const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      const page = await ctx.newPage();
      await page.goto(base);
      await page.waitForFunction(() => Number(document.querySelector('[data-testid="timeline-block"] canvas')?.getAttribute('data-slices-drawn') ?? 0) > 0, null, { polling: 'raf' });
      firstLanes.push(await page.evaluate(() => performance.now()));
      await ctx.close();
    }
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await ctx.newPage();
    await page.goto(base);
    await page.waitForFunction(() => !!window.__schedlab);
    await page.setInputFiles('[data-testid="file-input"]', { name: 'bench-dense.toml', mimeType: 'text/plain', buffer: readFileSync(dense) });
    await page.waitForFunction(() => window.__schedlab.state().scenario === 'inline', null, { timeout: 120000 });
    await page.evaluate(() => window.__schedlab.waitForIdle());
    // Zoom out to the whole run: every slice of every CPU is in view.
    for (let i = 0; i < 30; i++) await page.keyboard.press('s');
    await page.keyboard.press('w');
    await page.evaluate(() => window.__schedlab.waitForIdle());
    const st = await page.evaluate(() => window.__schedlab.state());
    const canvas = page.locator('[data-testid="timeline-block"] canvas').first();
    const box = await canvas.boundingBox();
    await page.evaluate(() => {
      window.__paints = [];
      const c = document.querySelector('[data-testid="timeline-block"] canvas');
      window.__cpuPaints = [];
      new MutationObserver(() => { window.__paints.push(Number(c.dataset.paintMs)); window.__cpuPaints.push(Number(c.dataset.cpuPaintMs)); }).observe(c, { attributes: true, attributeFilter: ['data-paint-ms'] });
      window.__frames = [];
      let last = performance.now();
      const f = (t) => {
        window.__frames.push(t - last);
        last = t;
        if (window.__frames.length < 2000) requestAnimationFrame(f);
      };
      requestAnimationFrame(f);
    });
    // Pan back and forth by dragging, one move per frame.
    await page.mouse.move(box.x + box.width / 2, box.y + 40);
    await page.mouse.down();
    for (let i = 0; i < 120; i++) {
      await page.mouse.move(box.x + box.width / 2 + 200 * Math.sin(i / 10), box.y + 40);
    }
    await page.mouse.up();
    const frames = (await page.evaluate(() => window.__frames)).slice(2);
    const paints = await page.evaluate(() => window.__paints);
    const cpuPaints = await page.evaluate(() => window.__cpuPaints);
    const drawn = Number(await canvas.getAttribute('data-slices-drawn'));
    await browser.close();
    return { firstLanes, frames, paints, cpuPaints, drawn, window: st.window_ns };
  } finally {
    server.kill();
  }
}

const sizes = bundleSizes();
const native = nativeThroughput();
const wasm = await wasmThroughput();
const b = await browserFigures();
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
console.log('schedlab web benchmark');
console.log(`first lanes drawn (default scenario, navigation start → first paint of lanes): median ${q(b.firstLanes, 50).toFixed(0)} ms, max ${Math.max(...b.firstLanes).toFixed(0)} ms (goal < 1500 ms)`);
console.log(`pan, dense scenario zoomed out (${(b.window[1] - b.window[0]) / 1e6} ms in view, ${b.drawn} slices drawn after pixel merging): frame time p50 ${q(b.frames, 50).toFixed(1)} ms, p95 ${q(b.frames, 95).toFixed(1)} ms over ${b.frames.length} frames (goal p95 < 16 ms)`);
const long = b.frames.filter((f) => f > 20).length;
console.log(`  frames longer than 20 ms (a missed vsync): ${long} of ${b.frames.length}, longest ${Math.max(...b.frames).toFixed(1)} ms (at 60 Hz a frame time cannot drop below ~16.7 ms)`);
console.log(`  canvas paint (script side, one variant block): p50 ${q(b.paints, 50).toFixed(1)} ms, p95 ${q(b.paints, 95).toFixed(1)} ms over ${b.paints.length} paints (CPU lanes p50 ${q(b.cpuPaints, 50).toFixed(1)} ms)`);
console.log(`bundle: wasm ${kb(sizes.wasm)} (${kb(sizes.wasmGz)} gz, goal < 500 KB gz), JS ${kb(sizes.js)} (${kb(sizes.jsGz)} gz, goal < 300 KB gz)`);
console.log(`engine on the dense scenario: native ${native.wall.toFixed(3)} s, wasm ${wasm.wall.toFixed(3)} s → wasm/native throughput ${(native.wall / wasm.wall).toFixed(2)} (goal ≥ 0.7); digests ${native.digest === wasm.digest ? 'identical' : `DIFFER ${native.digest} vs ${wasm.digest}`}`);
