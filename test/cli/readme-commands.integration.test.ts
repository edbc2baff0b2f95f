import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseSpecText } from '../../src/spec/parse.js';
import { testTempDirSync } from '../helpers/temp.js';
import { helpOptions, type ReadmeBlock, type ReadmeLine, readmeBlocks } from './readme-blocks.js';
import { repoRoot, runCli, tempHome } from './run-cli.js';

// Every command README gives is run (issue 21 item 2): what can run here runs as written; what
// would make or touch machines is planned with the same spec and flags (`plan` exits 0), and each
// of its other flags must be one its command's --help lists. Files the reader is told to bring
// (ISOs, the SSH key) are stand-ins in a temporary HOME; spec files must be in the repository.

const README = new URL('../../README.md', import.meta.url);
const home = testTempDirSync('readme-home');
const blocks = readmeBlocks(README, home);
const kubemixLines = blocks.flatMap((block) =>
  block.lines.filter((line) => line.words[0] === 'kubemix').map((line) => ({ block, line })),
);

/** Commands that only read or print: run as README writes them. */
const RUNS_HERE = new Set(['plan', 'versions', 'schema']);
/** Commands that make, change or need machines: checked through `plan`. */
const PLANNED = new Set(['up', 'down', 'ci', 'verify', 'status', 'kubeconfig', 'artifacts']);

const helps = new Map<string, Map<string, boolean>>();
async function optionsOf(command: string): Promise<Map<string, boolean>> {
  if (!helps.has(command)) {
    const result = await runCli([command, '--help'], { home: tempHome() });
    expect(result.exitCode, `kubemix ${command} --help`).toBe(0);
    helps.set(command, helpOptions(result.stdout));
  }
  return helps.get(command)!;
}

/** The environment a block's reader has: its exports, the stand-in HOME. */
function readerEnv(block: ReadmeBlock): Record<string, string> {
  return { HOME: home, ...block.env };
}

/** A spec argument: a short form as is, a file through the block's copies, which must exist. */
function specArgument(word: string, block: ReadmeBlock, text: string): string {
  if (/^k8s-[a-z]+-\d/.test(word)) return word;
  const file = block.copies.get(word) ?? word;
  const path = isAbsolute(file) ? file : join(repoRoot, file);
  expect(existsSync(path), `README line \`${text}\` names ${word}, which is not in the repository`).toBe(
    true,
  );
  return file;
}

/** Stand-ins for what the reader brings under HOME: the ISOs a line names, the SSH key specs use. */
function bringReaderFiles(line: ReadmeLine): void {
  for (const word of line.words)
    if (word.startsWith(`${home}/`) && !existsSync(word)) {
      mkdirSync(dirname(word), { recursive: true });
      writeFileSync(word, `stand-in for ${word}: README asks the reader to download it\n`);
    }
}

/** `plan` with the line's spec and the flags plan shares; every other flag must be the command's own. */
async function planEquivalent(line: ReadmeLine, block: ReadmeBlock): Promise<string[]> {
  const [, command, ...rest] = line.words;
  const own = await optionsOf(command!);
  const plan = await optionsOf('plan');
  const args = ['plan'];
  let spec: string | undefined;
  for (let i = 0; i < rest.length; i += 1) {
    const word = rest[i]!;
    if (!word.startsWith('-')) {
      expect(spec, `README line \`${line.text}\` has one spec`).toBeUndefined();
      spec = specArgument(word, block, line.text);
      args.splice(1, 0, spec);
      continue;
    }
    const name = word.split('=')[0]!;
    expect(own.has(name), `README line \`${line.text}\`: kubemix ${command} --help lists ${name}`).toBe(true);
    const value = own.get(name) && !word.includes('=') ? rest[++i] : undefined;
    if (plan.has(name)) args.push(word, ...(value === undefined ? [] : [value]));
  }
  expect(spec, `README line \`${line.text}\` names a spec`).toBeDefined();
  return args;
}

beforeAll(() => {
  // The key the example specs reference (~/.ssh/id_ed25519), as the reader has it.
  mkdirSync(join(home, '.ssh'), { recursive: true, mode: 0o700 });
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(home, '.ssh/id_ed25519')]);
});

describe('README commands', () => {
  it('gives the commands of every quickstart', () => {
    const commands = new Set(kubemixLines.map(({ line }) => line.words[1]));
    for (const command of ['plan', 'up', 'down', 'ci', 'kubeconfig', 'verify', 'artifacts'])
      expect(commands, `README has a kubemix ${command} line`).toContain(command);
  });

  it.each(kubemixLines.map(({ block, line }) => [line.text, block, line] as const))(
    '%s',
    { timeout: 60_000 },
    async (_text, block, line) => {
      bringReaderFiles(line);
      const command = line.words[1]!;
      let args: string[];
      if (command.startsWith('-') || line.words.includes('--help')) args = line.words.slice(1);
      else if (RUNS_HERE.has(command)) {
        const spec = line.words[2];
        args = [command, ...line.words.slice(2)];
        if (spec && !spec.startsWith('-')) args[1] = specArgument(spec, block, line.text);
      } else if (PLANNED.has(command)) args = await planEquivalent(line, block);
      else throw new Error(`README line \`${line.text}\`: decide how this test checks kubemix ${command}`);
      const result = await runCli(args, { home: tempHome(), env: readerEnv(block) });
      expect(result.exitCode, `kubemix ${args.join(' ')}\n${result.stderr}`).toBe(0);
    },
  );
});

describe("README's spec example", () => {
  it('is a valid spec', () => {
    const block = /## The spec\n[\s\S]*?```yaml\n([\s\S]*?)\n```/.exec(readFileSync(README, 'utf8'))?.[1];
    expect(block, 'README has a yaml block under "The spec"').toBeDefined();
    const spec = parseSpecText(block!, 'README.md');
    expect(spec.provider.type).toBe('static');
    expect(spec.nodes.workers.map((g) => g.os)).toContain('windows');
  });
});

describe('README scripts', () => {
  const lines = blocks.flatMap((block) => block.lines);
  const scripts = lines.filter((l) => l.words[0] === 'bash' && l.words[1]?.startsWith('scripts/'));
  const npmRuns = lines.filter((l) => l.words[0] === 'npm' && l.words[1] === 'run');
  const packageScripts = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).scripts;

  it('names npm scripts package.json has', () => {
    expect(npmRuns.length).toBeGreaterThan(0);
    for (const l of npmRuns) expect(Object.keys(packageScripts), l.text).toContain(l.words[2]);
  });

  it.each(scripts.map((l) => [l.text, l] as const))(
    '%s exists and its try- scripts answer --help',
    async (_t, l) => {
      const script = join(repoRoot, l.words[1]!);
      expect(existsSync(script), `${l.words[1]} exists`).toBe(true);
      if (!/\/try-[\w-]+\.sh$/.test(script)) return;
      const help = await execa('bash', [script, '--help'], { reject: false });
      expect(help.exitCode, help.stderr).toBe(0);
      expect(help.stdout).toMatch(/^Usage: bash scripts\/try-/);
      // shellcheck comes with scripts/setup.sh (the example workflow's tests use it too).
      const lint = await execa('shellcheck', [script], { reject: false });
      expect(lint.exitCode, lint.stdout).toBe(0);
    },
  );

  it('try-ec2 plans its moto spec (its dry path)', { timeout: 60_000 }, async () => {
    const result = await execa('bash', [join(repoRoot, 'scripts/try-ec2.sh'), '--dry-run'], {
      reject: false,
      env: { KUBEMIX_HOME: tempHome(), CI: 'true' },
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/\btry-ec2\b/); // the cluster's name, whatever form plan's summary takes
  });
});

describe('README install', () => {
  it('npm install -g from the clone puts kubemix on PATH', { timeout: 120_000 }, async () => {
    const prefix = testTempDirSync('npm-prefix');
    const install = await execa(
      'npm',
      ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '.'],
      {
        cwd: repoRoot,
        reject: false,
      },
    );
    expect(install.exitCode, install.stderr).toBe(0);
    const help = await execa('kubemix', ['--help'], {
      cwd: home,
      reject: false,
      env: { PATH: `${join(prefix, 'bin')}:${process.env['PATH']}` },
    });
    expect(help.exitCode, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: kubemix <command>/m);
  });
});
