// Import layering of web/src, checked as an allowlist: base → engine → state → timeline → lessons →
// panels → app. A module may import only from its own layer and the layers before it; only
// engine/ talks to the worker (and to the generated wasm).
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = dirname(fileURLToPath(import.meta.url));
const LAYERS = ['base', 'engine', 'state', 'timeline', 'lessons', 'panels', 'app'];
/** Type-only imports of the protocol's data shapes are allowed from anywhere. */
const TYPE_ONLY_OK = new Set(['engine/protocol']);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return f === 'generated' ? [] : files(p);
    return /\.(ts|tsx)$/.test(f) && !/\.test\.ts$/.test(f) ? [p] : [];
  });
}

describe('import layering', () => {
  it('each layer imports only from itself and earlier layers', () => {
    const violations: string[] = [];
    for (const file of files(SRC)) {
      const rel = relative(SRC, file);
      const layer = rel.split('/')[0];
      const li = LAYERS.indexOf(layer);
      if (li < 0) continue;
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/^import\s+(type\s+)?[^'"]*from\s+'(\.[^']+)'/gm)) {
        const target = relative(SRC, resolve(dirname(file), m[2]));
        const tl = LAYERS.indexOf(target.split('/')[0]);
        if (target.startsWith('generated')) {
          if (layer !== 'engine') violations.push(`${rel} imports the generated wasm (only engine/ may)`);
          continue;
        }
        if (tl < 0) continue;
        if (tl > li && !(m[1] && TYPE_ONLY_OK.has(target))) violations.push(`${rel} (${layer}) imports ${target} (${LAYERS[tl]})`);
      }
    }
    expect(violations).toEqual([]);
  });
});
