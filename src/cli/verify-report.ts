import { join } from 'node:path';
import { readState } from '../engine/index.js';
import { writePrivateFile } from '../fs/private-files.js';
import type { Plan } from '../types/plan.js';
import { type CheckResult, checksToJson, formatCheckTable, parseCheckResults } from '../verify/checks.js';
import { out } from './output.js';

/**
 * After a run that included `verify`: the checks as JSON in the cluster directory (verify.json)
 * for CI. Returns the results, or undefined when verify has not produced any.
 */
export async function collectVerifyChecks(
  plan: Plan,
  clusterDir: string,
): Promise<CheckResult[] | undefined> {
  const verify = plan.tasks.find((t) => t.name === 'verify');
  const host = verify?.hosts[0];
  const state = await readState(clusterDir);
  if (!host || !state) return undefined;
  const results = parseCheckResults(state.outputs[host] ?? {});
  if (results.length === 0) return undefined;
  await writePrivateFile(verifyJsonPath(clusterDir), checksToJson(results));
  return results;
}

/** Where {@link collectVerifyChecks} writes the checks. */
export const verifyJsonPath = (clusterDir: string) => join(clusterDir, 'verify.json');

/**
 * {@link collectVerifyChecks}, then the checks as a table for people. Returns false when verify
 * has not produced results.
 */
export async function reportVerifyChecks(plan: Plan, clusterDir: string): Promise<boolean> {
  const results = await collectVerifyChecks(plan, clusterDir);
  if (!results) return false;
  printVerifyChecks(results, clusterDir);
  return true;
}

/** The check table and where the JSON went. */
export function printVerifyChecks(results: readonly CheckResult[], clusterDir: string): void {
  out(`\n${formatCheckTable(results)}\nchecks written to ${verifyJsonPath(clusterDir)}`);
}
