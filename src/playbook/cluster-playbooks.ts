import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../fs/package-root.js';
import { parsedPackageFile } from '../fs/parsed-files.js';
import type { PlanStep } from '../types/plan.js';
import { parseTaskFile } from './parse-playbook.js';
import { planStepFromTask } from './plan-step.js';

/** The playbooks directory shipped with kubemix. */
export function playbooksDir(): string {
  return join(packageRoot(), 'playbooks');
}

/**
 * Reads every task file in playbooks/cluster (`<name>.yml`) as plan steps, keyed by file stem
 * (`prepare-linux`, `cleanup-windows`, ...). The planner decides which files a task needs.
 * A file with problems is a SpecError naming the file, line and column. The shipped files come
 * from the build's parsed copy while unchanged (src/fs/parsed-files.ts).
 */
export async function loadClusterPlaybooks(
  dir = join(playbooksDir(), 'cluster'),
): Promise<Record<string, PlanStep[]>> {
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.yml')).sort();
  const loaded: Record<string, PlanStep[]> = {};
  for (const file of files) {
    const path = join(dir, file);
    const text = await readFile(path, 'utf8');
    loaded[file.slice(0, -'.yml'.length)] = parsedPackageFile(path, text, () =>
      parseTaskFile(text, path).map((task) => planStepFromTask(task)),
    );
  }
  return loaded;
}
