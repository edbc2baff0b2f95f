import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
// vitest's own glob library (its dependency), so the matching below is the matching vitest does.
import { globSync } from 'tinyglobby';
import { describe, expect, it } from 'vitest';
import type { TestProjectInlineConfiguration } from 'vitest/config';
import { SLOWEST_FILES } from '../setup/slowest-first.js';
import config from '../vitest.config.js';

const projects = (config.test?.projects ?? []) as TestProjectInlineConfiguration[];

/** The files a project runs: its include globs minus its exclude globs, from the repository root. */
function filesOf(project: TestProjectInlineConfiguration): string[] {
  const { include = [], exclude = [] } = project.test ?? {};
  return globSync(include, { ignore: exclude, expandDirectories: false }).sort();
}

const allTestFiles = globSync(['test/**/*.test.ts'], { expandDirectories: false }).sort();
const byProject = new Map(projects.map((p) => [p.test?.name ?? '', filesOf(p)]));
const unitFiles = byProject.get('unit') ?? [];

/**
 * What a unit test must not do, as it shows in source: start a process, open a socket or a server,
 * or wait on a timer. A match is moved to the integration tier, never listed here as an exception.
 */
const FORBIDDEN_IN_UNIT: { what: string; pattern: RegExp }[] = [
  { what: 'child_process', pattern: /['"]node:child_process['"]/ },
  { what: 'execa', pattern: /from ['"]execa['"]|\bexeca(Sync)?\(/ },
  { what: 'spawn/execFile', pattern: /\b(spawn|spawnSync|execFile|execFileSync)\(/ },
  { what: 'a server', pattern: /\bcreateServer\(|\.listen\(/ },
  { what: 'a socket', pattern: /['"]node:(dgram|tls)['"]|\bnew Socket\(|\bcreateConnection\(/ },
  { what: 'a timer sleep', pattern: /\bsetTimeout\(|['"]node:timers\/promises['"]/ },
];

const forbiddenIn = (text: string) => FORBIDDEN_IN_UNIT.filter(({ pattern }) => pattern.test(text));

/**
 * The exported functions of a test helper (a file under test/) whose own body does a forbidden
 * thing: a unit file may import the helper's other exports, not these.
 */
function forbiddenHelpers(path: string): { name: string; what: string }[] {
  const text = readFileSync(path, 'utf8');
  const starts = [...text.matchAll(/^export (?:async )?function (\w+)/gm)];
  return starts.flatMap((start, i) => {
    const body = text.slice(start.index, starts[i + 1]?.index ?? text.length);
    return forbiddenIn(body).map(({ what }) => ({ name: start[1] ?? '', what }));
  });
}

/** What a unit file does that the unit tier forbids: in its own source, or through a helper it calls. */
function forbiddenUses(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const own = forbiddenIn(text).map(({ what }) => `${file}: ${what}`);
  const helpers = [...text.matchAll(/from ['"](\.{1,2}\/[^'"]+)\.js['"]/g)]
    .map((m) => normalize(join(dirname(file), `${m[1]}.ts`)))
    // Import-like text inside a test's own strings names no file: only files that exist count.
    .filter((path) => path.startsWith('test/') && !path.endsWith('.test.ts') && existsSync(path));
  const viaHelpers = helpers.flatMap((path) =>
    forbiddenHelpers(path)
      .filter(({ name }) => new RegExp(`\\b${name}\\b`).test(text))
      .map(({ name, what }) => `${file}: ${what} (${name} in ${path})`),
  );
  return [...own, ...viaHelpers];
}

describe('test tiers (test/vitest.config.ts)', () => {
  it('has the five projects', () => {
    expect([...byProject.keys()].sort()).toEqual(['e2e', 'integration', 'qemu', 'real', 'unit']);
  });

  it('runs the real-cluster tier after every other tier, one file at a time', () => {
    // Its emulated controller fell into a restart loop when other files shared the cores.
    const groupOrder = (p: TestProjectInlineConfiguration) => p.test?.sequence?.groupOrder ?? 0;
    const real = projects.find((p) => p.test?.name === 'real');
    const others = projects.filter((p) => p !== real);
    expect(real?.test?.maxWorkers).toBe(1);
    expect(others.map(groupOrder).filter((order) => order >= groupOrder(real ?? {}))).toEqual([]);
  });

  it('puts every test file in exactly one project', () => {
    expect(allTestFiles.length).toBeGreaterThan(0);
    const misplaced = allTestFiles
      .map((file) => ({
        file,
        in: [...byProject].filter(([, files]) => files.includes(file)).map(([name]) => name),
      }))
      .filter((entry) => entry.in.length !== 1);
    expect(misplaced).toEqual([]);
  });

  it('names only files that exist in its lists of e2e, qemu and real-cluster files', () => {
    for (const name of ['e2e', 'qemu', 'real']) {
      const project = projects.find((p) => p.test?.name === name);
      const literal = (project?.test?.include ?? []).filter((glob) => !glob.includes('*'));
      expect(literal.filter((path) => !allTestFiles.includes(path))).toEqual([]);
    }
  });

  it('orders first only files of the process tiers that exist (test/setup/slowest-first.ts)', () => {
    const processTierFiles = allTestFiles.filter((file) => !unitFiles.includes(file));
    expect(SLOWEST_FILES.filter((file) => !processTierFiles.includes(file))).toEqual([]);
    expect(new Set(SLOWEST_FILES).size).toBe(SLOWEST_FILES.length);
  });

  it('keeps processes, sockets and sleeps out of unit files and the helpers they call', () => {
    expect(unitFiles.length).toBeGreaterThan(0);
    expect(unitFiles.flatMap(forbiddenUses)).toEqual([]);
  });
});
