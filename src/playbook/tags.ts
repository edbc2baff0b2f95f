import type { Play, Task } from './types.js';

/**
 * Ansible's tag selection: a task's tags are its own plus its play's. `always` runs unless
 * skipped by name; `never` runs only when asked for; `all`, `tagged` and `untagged` are the
 * special selectors. `skipTags` wins over `tags`.
 */
export function taskSelected(
  task: Task,
  play: Play,
  options: { tags?: string[]; skipTags?: string[] },
): boolean {
  const tags = new Set([...task.tags, ...play.tags]);
  const wanted = options.tags && options.tags.length > 0 ? options.tags : ['all'];
  const skip = options.skipTags ?? [];
  const hits = (list: string[]) =>
    list.some(
      (t) => tags.has(t) || (t === 'tagged' && tags.size > 0) || (t === 'untagged' && tags.size === 0),
    );
  if (skip.length > 0 && (hits(skip) || (skip.includes('all') && !tags.has('always')))) return false;
  if (tags.has('always') && !skip.includes('always')) return true;
  if (tags.has('never') && !wanted.some((t) => t !== 'all' && tags.has(t))) return false;
  return wanted.includes('all') || hits(wanted);
}
