import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The IAM policy `kubemix up`, `down` and `status` need on EC2, generated from the calls the
 * provider makes: every `new <Name>Command(` in this folder's files, mapped through the file's
 * imports to its SDK client and so to the IAM action (`@aws-sdk/client-ec2` DescribeVpcsCommand
 * → `ec2:DescribeVpcs`). README's EC2 section carries a copy that a test keeps equal.
 */

/** IAM service prefix of each SDK client the provider uses. */
const SERVICE_PREFIX: Record<string, string> = {
  '@aws-sdk/client-ec2': 'ec2',
  '@aws-sdk/client-ssm': 'ssm',
  '@aws-sdk/client-service-quotas': 'servicequotas',
  '@aws-sdk/client-eks': 'eks',
};

// eks.ts is not wired into `kubemix up` yet (README, "Joining EKS"): its call is no permission a
// build needs. This file itself names commands only in comments.
const NOT_CALLED_BY_A_BUILD = new Set(['eks', 'iam-policy']);

/** An IAM policy document. */
export interface PolicyDocument {
  Version: '2012-10-17';
  Statement: { Effect: 'Allow'; Action: string[]; Resource: '*' }[];
}

/** The IAM actions of the provider's SDK calls, sorted. */
export function ec2IamActions(dir = dirname(fileURLToPath(import.meta.url))): string[] {
  const actions = new Set<string>();
  for (const file of readdirSync(dir)) {
    const match = /^(.+)\.(ts|js)$/.exec(file);
    if (!match || file.endsWith('.d.ts') || NOT_CALLED_BY_A_BUILD.has(match[1]!)) continue;
    const source = readFileSync(join(dir, file), 'utf8');
    const origin = importedFrom(source);
    for (const call of source.matchAll(/new (\w+)Command\(/g)) {
      const prefix = SERVICE_PREFIX[origin.get(`${call[1]}Command`) ?? ''];
      if (!prefix) throw new Error(`${file}: ${call[1]}Command comes from no SDK client kubemix maps to IAM`);
      actions.add(`${prefix}:${call[1]}`);
    }
    // Tags given at creation (TagSpecifications) need ec2:CreateTags as well (EC2 User Guide,
    // "Grant permission to tag Amazon EC2 resources during creation").
    if (/TagSpecifications/.test(source)) actions.add('ec2:CreateTags');
  }
  return [...actions].sort();
}

/** The policy document for {@link ec2IamActions}. */
export function ec2IamPolicy(dir?: string): PolicyDocument {
  return {
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action: ec2IamActions(dir), Resource: '*' }],
  };
}

/** Names imported (statically or dynamically) from each SDK client package, by name. */
function importedFrom(source: string): Map<string, string> {
  const origin = new Map<string, string>();
  const statements = source.matchAll(
    /(?:import\s*(?:type\s*)?\{([^}]*)\}\s*from|const\s*\{([^}]*)\}\s*=\s*await\s+import\()\s*['"](@aws-sdk\/[\w-]+)['"]/g,
  );
  for (const statement of statements) {
    const names = (statement[1] ?? statement[2] ?? '').split(',');
    for (const name of names) {
      const local = name
        .replace(/^\s*type\s+/, '')
        .trim()
        .split(/\s+as\s+/)[0];
      if (local) origin.set(local, statement[3]!);
    }
  }
  return origin;
}
