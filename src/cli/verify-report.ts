import { join } from 'node:path';
import { readState } from '../engine/index.js';
import { writePrivateFile } from '../fs/private-files.js';
import type { Plan } from '../types/plan.js';
import { checksToJson, formatCheckTable, parseCheckResults } from '../verify/checks.js';
import { out } from './output.js';

/**
 * After a run that included `verify`: the checks as a table for people and as JSON in the
 * cluster directory (verify.json) for CI. Returns false when verify has not produced results.
 */
export async function reportVerifyChecks(plan: Plan, clusterDir: string): Promise<boolean> {
  const verify = plan.tasks.find((t) => t.name === 'verify');
  const host = verify?.hosts[0];
  const state = await readState(clusterDir);
  if (!host || !state) return false;
  const results = parseCheckResults(state.outputs[host] ?? {});
  if (results.length === 0) return false;
  const path = join(clusterDir, 'verify.json');
  await writePrivateFile(path, checksToJson(results));
  out(`\n${formatCheckTable(results)}\nchecks written to ${path}`);
  return true;
}
