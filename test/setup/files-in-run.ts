import { resolve } from 'node:path';
import type { TestProject } from 'vitest/node';

/**
 * The project's test files this run will run (absolute paths), after the command line's file
 * filters: a project's global setup starts what its files share only when one of them runs.
 */
export async function projectFilesInRun(project: TestProject): Promise<string[]> {
  // vitest keeps the command line's filters here (not part of its typed API).
  const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern ?? [];
  const { testFiles } = await project.globTestFiles(filters);
  return testFiles.map((file) => resolve(file));
}
