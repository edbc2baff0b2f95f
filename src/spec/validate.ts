import { SpecError, type SpecIssue } from '../errors/index.js';
import { checkCrossFieldRules } from './cross-field-rules.js';
import { type ClusterSpec, clusterSpecSchema } from './schema.js';
import { type SpecPath, specView } from './spec-view.js';
import { stringRuleIssues } from './string-rules.js';
import type { PathLocator } from './yaml-source.js';
import { fromZodIssues, type PathIssue, specErrorMap } from './zod-issues.js';

/** Where a spec came from, so issues can name the file and line:column. */
export interface ValidateOptions {
  /** Shown in every issue: a file path, or the short-form string. */
  file: string;
  /** Finds a path's line:column in the source; absent for specs without a text (short forms). */
  locate?: PathLocator;
  /** Renames model paths into the caller's terms (the short form's parts). */
  mapPath?: (path: SpecPath) => string;
}

/**
 * The one validation path for every spec, YAML or short form: the schema (shape, strict keys,
 * defaults) and the cross-field rules, all problems at once.
 *
 * @throws SpecError with every issue, sorted by position, when anything is wrong.
 */
export function validateSpecInput(input: unknown, options: ValidateOptions): ClusterSpec {
  const { file, locate } = options;
  if (input === null || input === undefined) {
    throw new SpecError([
      {
        file,
        path: '',
        line: 1,
        column: 1,
        message: 'the spec is empty; expected a mapping with name, provider and nodes',
      },
    ]);
  }
  // jitless: zod compiles a fast path per object schema (new Function) on the first parse, which
  // pays back over many parses; a command parses one spec, and the compiling cost more than the
  // parse itself (#25: start-up).
  const parsed = clusterSpecSchema.safeParse(input, { error: specErrorMap, jitless: true });
  // Rules read the spec as written, so they also run when the schema found problems.
  const found = [
    ...(parsed.success ? [] : fromZodIssues(parsed.error.issues)),
    ...checkCrossFieldRules(specView(input)),
  ];
  // A field the schema already refused (say, an address with a newline) gets that one message.
  const reported = new Set(found.map((issue) => issue.path.join('\0')));
  found.push(...stringRuleIssues(input).filter((issue) => !reported.has(issue.path.join('\0'))));
  if (parsed.success && found.length === 0) return parsed.data;

  const issues = found.map(({ path, message, atKey }: PathIssue): SpecIssue => {
    const issue: SpecIssue = {
      file,
      path: options.mapPath ? options.mapPath(path) : path.join('.'),
      message,
    };
    const position = locate?.(path, { key: atKey === true });
    if (position) {
      issue.line = position.line;
      issue.column = position.column;
    }
    return issue;
  });
  throw new SpecError(sortIssues(issues));
}

/** Orders issues by line:column (stable; issues without a position keep their order, last). */
export function sortIssues(issues: SpecIssue[]): SpecIssue[] {
  const key = (i: SpecIssue) =>
    i.line === undefined ? Number.MAX_SAFE_INTEGER : i.line * 1e6 + (i.column ?? 0);
  return issues
    .map((issue, order) => ({ issue, order }))
    .sort((a, b) => key(a.issue) - key(b.issue) || a.order - b.order)
    .map(({ issue }) => issue);
}
