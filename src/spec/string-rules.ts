import { plainTextProblem } from './field-patterns.js';
import type { SpecPath } from './spec-view.js';
import type { PathIssue } from './zod-issues.js';

/**
 * Rules for every string of a spec as written, whatever field it is in: no control characters
 * and no template markers (field-patterns.ts `plainTextProblem`), and no NUL anywhere, `vars`
 * included (`vars` values may be multi-line text and templates, as in ansible-playbook -e, but a
 * NUL can reach no program). Mapping keys are checked like values. Never repeats a value.
 */
export function stringRuleIssues(input: unknown): PathIssue[] {
  const issues: PathIssue[] = [];
  const visit = (value: unknown, path: SpecPath, inVars: boolean) => {
    if (typeof value === 'string') {
      const problem = inVars
        ? value.includes('\0')
          ? 'must not contain a NUL character'
          : undefined
        : plainTextProblem(value);
      if (problem) issues.push({ path, message: problem });
      return;
    }
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) visit(item, [...path, index], inVars);
      return;
    }
    if (value && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        const keyProblem = plainTextProblem(key);
        if (keyProblem) issues.push({ path: [...path, key], message: `key ${keyProblem}`, atKey: true });
        visit(item, [...path, key], inVars || (path.length === 0 && key === 'vars'));
      }
    }
  };
  visit(input, [], false);
  return issues;
}
