// The bundled scenario gallery: every scenarios/**/*.toml of the repository, imported as
// text at build time. Ids are the path under scenarios/ without the extension.

import { contentHash } from '../base/hash';

export interface GalleryEntry {
  id: string;
  file: string;
  text: string;
  hash: string;
  description: string;
}

const files = import.meta.glob<string>('../../../scenarios/**/*.toml', { query: '?raw', import: 'default', eager: true });

function describe(text: string): string {
  const m = /^description\s*=\s*"([^"]*)"/m.exec(text);
  return m ? m[1] : '';
}

export const GALLERY: GalleryEntry[] = Object.entries(files)
  .map(([path, text]) => {
    const id = path.replace(/^.*\/scenarios\//, '').replace(/\.toml$/, '');
    return { id, file: `scenarios/${id}.toml`, text, hash: contentHash(text), description: describe(text) };
  })
  .sort((a, b) => a.id.localeCompare(b.id));

export const DEFAULT_SCENARIO = 'gallery/sleeper-vs-hog';

export function findScenario(id: string): GalleryEntry | undefined {
  return GALLERY.find((g) => g.id === id);
}
