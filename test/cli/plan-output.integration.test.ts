import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { EXIT } from '../../src/errors/index.js';
import { MIXED_SHORT_FORM, runCli, tempHome } from './run-cli.js';

// `plan` and `versions` as a user at an 80-column terminal (or with COLUMNS=80 before a pipe) sees them.
const WIDTH = 80;
const SPEC = MIXED_SHORT_FORM;
// One KUBEMIX_HOME for all: the plan's cluster_dir lies under it, and -o json and -o yaml are compared.
const home = tempHome();
const plan = (args: string[]) =>
  runCli(['plan', ...SPEC, ...args], { home, env: { COLUMNS: String(WIDTH) } });

async function planData(): Promise<{
  tasks: { name: string; hosts: string[]; steps: { name: string }[] }[];
}> {
  const json = await plan(['-o', 'json']);
  expect(json.exitCode, json.stderr).toBe(EXIT.ok);
  return JSON.parse(json.stdout);
}

describe('kubemix plan output modes', () => {
  it('the summary: every line within COLUMNS, every task named, no module arguments, a one-line versions headline', async () => {
    const [summary, data] = await Promise.all([plan([]), planData()]);
    expect(summary.exitCode, summary.stderr).toBe(EXIT.ok);
    const lines = summary.stdout.trimEnd().split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(WIDTH);
    for (const task of data.tasks)
      expect(
        lines.some((l) => l.startsWith(`  ${task.name} `)),
        task.name,
      ).toBe(true);
    expect(summary.stdout).not.toMatch(/\{"|\{\{|"cmd"/);
    expect(summary.stdout).toMatch(/^Kubernetes \d+\.\d+\.\d+ \(supported Kubernetes: /m);
    expect(summary.stdout).toContain('kubemix versions');
    // The versions table is not in the summary.
    expect(summary.stdout).not.toContain('INSTALLED ON');
  });

  it('--detail: the versions table and every step with its arguments', async () => {
    const detail = await plan(['--detail']);
    expect(detail.exitCode, detail.stderr).toBe(EXIT.ok);
    expect(detail.stdout).toContain('INSTALLED ON');
    expect(detail.stdout).toMatch(/^ {4}- .*\{".*\}/m);
    expect(detail.stdout).toContain('Plan for cluster k8s-libvirt-1-2-1');
  });

  it('-o yaml is the same data as -o json', async () => {
    const [yaml, data] = await Promise.all([plan(['-o', 'yaml']), planData()]);
    expect(yaml.exitCode, yaml.stderr).toBe(EXIT.ok);
    expect(parse(yaml.stdout)).toEqual(data);
  });

  it('--list-tasks and --list-hosts: ansible-playbook-shaped lists, every line within COLUMNS', async () => {
    const [both, data] = await Promise.all([plan(['--list-tasks', '--list-hosts']), planData()]);
    expect(both.exitCode, both.stderr).toBe(EXIT.ok);
    const lines = both.stdout.split('\n');
    expect(lines[1]).toBe('plan: k8s-libvirt-1-2-1 (kubemix up)');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(WIDTH);
    data.tasks.forEach((task) => {
      const at = lines.findIndex(
        (l) => /^ {2}task #\d+ \(/.test(l) && l.includes(`): ${task.name}  AFTER: [`),
      );
      expect(at, task.name).toBeGreaterThan(0);
      expect(lines[at + 1]).toBe(`    hosts (${task.hosts.length}):`);
      expect(lines.slice(at + 2, at + 2 + task.hosts.length)).toEqual(task.hosts.map((h) => `      ${h}`));
      expect(lines[at + 2 + task.hosts.length]).toBe('    steps:');
    });
    const steps = data.tasks.flatMap((t) => t.steps.map((s) => s.name.slice(0, WIDTH - 8)));
    for (const step of steps.slice(0, 20)) expect(both.stdout).toContain(`      ${step}`);
  });

  it('--list-tasks with --down lists the teardown tasks', async () => {
    const down = await plan(['--down', '--list-tasks']);
    expect(down.exitCode, down.stderr).toBe(EXIT.ok);
    expect(down.stdout.split('\n')[1]).toBe('plan: k8s-libvirt-1-2-1 (kubemix down)');
    expect(down.stdout).toContain('    steps:');
  });

  it('refuses text modes with data output and a typo with the flag it looks like, exit 2', async () => {
    const mixed = await plan(['--detail', '-o', 'json']);
    expect(mixed.exitCode).toBe(EXIT.badInput);
    expect(mixed.stderr.trim()).toBe(
      'kubemix plan: --detail is text output and cannot be combined with -o json',
    );
    const typo = await plan(['--list-task']);
    expect(typo.exitCode).toBe(EXIT.badInput);
    expect(typo.stderr.trim()).toBe('kubemix plan: unknown option --list-task (did you mean --list-tasks?)');
  });
});

describe('kubemix versions text', () => {
  it('fits COLUMNS by wrapping cells, losing no word', async () => {
    const [text, json] = await Promise.all([
      runCli(['versions'], { home: tempHome(), env: { COLUMNS: String(WIDTH) } }),
      runCli(['versions', '-o', 'json'], { home: tempHome() }),
    ]);
    expect(text.exitCode, text.stderr).toBe(EXIT.ok);
    for (const line of text.stdout.trimEnd().split('\n'))
      expect(line.length, line).toBeLessThanOrEqual(WIDTH);
    const report = JSON.parse(json.stdout) as { components: { component: string }[] };
    // A component name of one word is never broken, whatever the width.
    const squeezed = text.stdout.replace(/\s+/g, '');
    for (const row of report.components)
      expect(squeezed).toContain(row.component.split(' ')[0]!.replace(/,$/, ''));
  });
});
