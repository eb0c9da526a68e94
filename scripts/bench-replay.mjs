// Issue 18's shadow re-simulation figure (prints, asserts nothing): each linux-6.18-smp capture's
// `trace.dat` read into the wasm ReplayHandle the web worker uses (in Node's V8, Chromium's
// engine), then `run()` (the shadow with the tasks free, and the per-decision and placement
// replay along the trace); then the same natively (`schedlab replay --json`). Run after
// `npm run build` and `cargo build --release -p schedlab-cli`:
//   node scripts/bench-replay.mjs [CAPTURE...]       (default: all five)
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
const cli = `${root}target/release/schedlab`;
const captures = process.argv.slice(2).length
  ? process.argv.slice(2)
  : ['three-hogs-two-cpus', 'nice-imbalance-smp', 'pipe-pair-and-hog', 'sleepers-and-hogs-smp', 'cgroup-shares-smp'];
const mod = await import(`${root}web/src/generated/wasm/schedlab_wasm.js`);
mod.initSync({ module: readFileSync(`${root}web/src/generated/wasm/schedlab_wasm_bg.wasm`) });
const best = (n, f) => Math.min(...Array.from({ length: n }, () => f()));
for (const c of captures) {
  const path = `${root}traces/linux-6.18-smp/${c}/trace.dat`;
  const bytes = readFileSync(path);
  let report;
  const wasmMs = best(3, () => {
    const t = performance.now();
    const h = new mod.ReplayHandle(bytes.length);
    for (let off = 0; off < bytes.length; off += 4 << 20) h.feed(bytes.subarray(off, off + (4 << 20)));
    h.finish();
    while (h.step(5000));
    report = JSON.parse(h.run(`replay/${c}`, '', '', '[]'));
    h.free();
    return performance.now() - t;
  });
  const nativeMs = best(3, () => {
    const t = performance.now();
    execFileSync(cli, ['replay', path, '--json'], { maxBuffer: 1 << 28 });
    return performance.now() - t;
  });
  const p = report.report?.decisions.placements;
  console.log(
    `${c.padEnd(24)} ${(bytes.length / 2 ** 20).toFixed(2)} MiB .dat: wasm ${wasmMs.toFixed(0)} ms, native ${nativeMs.toFixed(0)} ms (whole process), ` +
      `wasm/native ${(wasmMs / nativeMs).toFixed(2)}; placements ${p?.agreed}/${p?.scored}`,
  );
}
