import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ec2IamActions, ec2IamPolicy } from '../../../src/provider/ec2/iam-policy.js';

const README = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

/** The first JSON block of README's AWS quickstart. */
function readmePolicy(): unknown {
  const section = README.slice(README.indexOf('## Quickstart: AWS'));
  const body = section.slice(0, section.indexOf('\n## ', 1));
  const block = /```json\n([\s\S]*?)\n```/.exec(body)?.[1];
  if (!block) throw new Error("README's AWS quickstart has no json block");
  return JSON.parse(block);
}

describe('the EC2 IAM policy', () => {
  it("README's AWS quickstart carries the policy generated from the provider's calls", () => {
    expect(readmePolicy()).toEqual(ec2IamPolicy());
  });

  it('maps each SDK client to its IAM service and adds CreateTags for tags given at creation', () => {
    const actions = ec2IamActions();
    expect(actions.map((a) => a.split(':')[0])).toEqual(
      expect.arrayContaining(['ec2', 'ssm', 'servicequotas']),
    );
    expect(actions.every((a) => /^(ec2|ssm|servicequotas):[A-Z]\w+$/.test(a))).toBe(true);
    expect(actions).toContain('ec2:CreateTags');
  });
});
