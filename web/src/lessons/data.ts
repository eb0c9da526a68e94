// The bundled lessons: every lessons/*.json of the repository, parsed at build time, in file
// order (the files are named NN-id.json). A lesson that does not parse is left out and its
// error kept in LESSON_ERRORS (a unit test requires it to be empty).

import { parseLesson, type Lesson } from './model';

const files = import.meta.glob<unknown>('../../../lessons/*.json', { eager: true, import: 'default' });

const parsed = Object.entries(files)
  .sort(([a], [b]) => a.localeCompare(b))
  .map(([path, json]) => parseLesson(path.replace(/^.*\/lessons\//, 'lessons/'), json));

export const LESSONS: Lesson[] = parsed.flatMap((r) => (r.ok ? [r.lesson] : []));
export const LESSON_ERRORS: string[] = parsed.flatMap((r) => (r.ok ? [] : [r.error]));

export function findLesson(id: string): Lesson | undefined {
  return LESSONS.find((l) => l.id === id);
}
