import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { stringify } from 'yaml';
import type { ClusterContext } from '../../cluster/index.js';
import { writePrivateFile } from '../../engine/index.js';
import { formatPlan } from '../../plan/index.js';
import type { Plan } from '../../types/plan.js';
import { kubemixVersion } from '../version.js';

/** kubemix, Node.js and every pinned version (playbooks/versions.yaml after the spec's overrides). */
export function versionsUsed(context: ClusterContext): Record<string, string> {
  return { kubemix: kubemixVersion(), node: process.version, ...context.versions };
}

/**
 * What the run was asked to do, written before it starts: `plan.txt` (the build and teardown
 * plans as `kubemix plan` prints them), the spec as given (`spec/<file>`) and as kubemix read it
 * (`spec.resolved.yaml`, defaults filled in), and `versions.json`.
 */
export async function writeInputs(outDir: string, context: ClusterContext, plans: { up: Plan; down: Plan }) {
  await writePrivateFile(
    join(outDir, 'plan.txt'),
    `${formatPlan(plans.up)}\n\nTeardown (kubemix down):\n${formatPlan(plans.down)}\n`,
  );
  if (existsSync(context.source))
    await writePrivateFile(
      join(outDir, 'spec', basename(context.source)),
      await readFile(context.source, 'utf8'),
    );
  await writePrivateFile(
    join(outDir, 'spec.resolved.yaml'),
    `# ${context.source}, as kubemix read it (defaults filled in)\n${stringify(context.spec)}`,
  );
  await writePrivateFile(
    join(outDir, 'versions.json'),
    `${JSON.stringify(versionsUsed(context), null, 2)}\n`,
  );
}
