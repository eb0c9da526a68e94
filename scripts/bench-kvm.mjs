// Issue 6's performance figure (prints, asserts nothing): 4 VMs x 16 vCPUs on 16 pCPUs,
// 1 s simulated, wall time natively (the `schedlab bench-kvm` CLI) and in wasm (the web
// build's module in Node's V8, the engine Chromium uses). Run after `npm run build`:
//   node scripts/bench-kvm.mjs [preset] [HOST...]
// HOST is passed to `schedlab gen wanpeng` and `schedlab bench-kvm`; default libvirt's layout
// (the table's): --placement unpinned --groups vcpu --layout-seed 1. The gallery's layout is
// `--placement index --groups vm`.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
const preset = process.argv[2] ?? 'vips';
const host = process.argv.length > 3 ? process.argv.slice(3) : ['--placement', 'unpinned', '--groups', 'vcpu', '--layout-seed', '1'];
const cli = `${root}target/release/schedlab`;
const text = execFileSync(cli, ['gen', 'wanpeng', '--vms', '4', '--preset', preset, ...host]).toString();
const mod = await import(`${root}web/src/generated/wasm/schedlab_wasm.js`);
mod.initSync({ module: readFileSync(`${root}web/src/generated/wasm/schedlab_wasm_bg.wasm`) });
const variants = { baseline: [], 'wanpeng-series': [['yield_to', 'debooster_v1'], ['kvm_on_spin', 'fixed'], ['kvm_ipi_aware', 'true']] };
for (const [name, overrides] of Object.entries(variants)) {
  const walls = [];
  let digest = '';
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const h = new mod.SimHandle();
    const r = JSON.parse(h.load('wanpeng.toml', text, JSON.stringify(overrides)));
    if (r.kind !== 'loaded') throw new Error(JSON.stringify(r.error));
    h.run_until(1e18);
    walls.push((performance.now() - t0) / 1000);
    digest = h.digest();
    h.free();
  }
  walls.sort((a, b) => a - b);
  console.log(`kvm bench ${preset} ${name} (${host.join(' ')}): 1 s simulated in ${walls[1].toFixed(2)} s wall (wasm, median of 3), digest=${digest}`);
}
console.log(execFileSync(cli, ['bench-kvm', '--preset', preset, ...host]).toString().trim());
