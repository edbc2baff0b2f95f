import { describe, expect, it } from 'vitest';
import { formatPlanSummary } from '../../src/cli/plan-summary.js';
import { buildPlan, formatPlan, topologicalOrder } from '../../src/plan/index.js';
import { loadClusterPlaybooks, playbooksDir } from '../../src/playbook/cluster-playbooks.js';
import { parseShortForm } from '../../src/spec/short-form.js';
import { loadVersions } from '../../src/versions/versions.js';

/** A mixed cluster: long host lists, Windows steps with long arguments. */
async function mixedPlan() {
  const spec = parseShortForm('k8s-libvirt-1-2-1', {
    windowsWorkers: 1,
    windowsIso: 'https://isos.example/ws2022.iso',
    windowsIsoSha256: 'a'.repeat(64),
  });
  return buildPlan({
    spec,
    versions: loadVersions(),
    playbooks: await loadClusterPlaybooks(),
    playbookDir: playbooksDir(),
  });
}

describe('formatPlanSummary', () => {
  it('fits every line to the width, names every host and every task whole, and shows no module arguments', async () => {
    const plan = await mixedPlan();
    // The detailed text has the arguments this summary leaves out.
    expect(formatPlan(plan)).toMatch(/\{"/);
    for (const width of [40, 60, 80, 100, 140]) {
      const text = formatPlanSummary(plan, { width, headline: ['Kubernetes 1.2.3 (a support line)'] });
      const lines = text.split('\n');
      for (const line of lines) expect(line.length, `width ${width}: ${line}`).toBeLessThanOrEqual(width);
      // Narrower than the names themselves, only the width is promised.
      if (width < 60) continue;
      const tasks = lines.slice(lines.indexOf('Tasks, in order:'));
      for (const task of topologicalOrder(plan.tasks))
        expect(
          tasks.some((l) => l.startsWith(`  ${task.name} `) || l === `  ${task.name}`),
          `${width}: ${task.name}`,
        ).toBe(true);
      for (const host of plan.hosts) expect(text, `${width}: ${host.name}`).toContain(host.name);
      expect(text).not.toMatch(/\{"|\{\{|\{%/);
      expect(text).toContain('Kubernetes 1.2.3 (a support line)');
    }
  });

  it('lists the tasks in the order up runs them, with what each waits for, and what the run decides', async () => {
    const plan = await mixedPlan();
    const lines = formatPlanSummary(plan, { width: 200 }).split('\n');
    const tasks = lines.slice(
      lines.indexOf('Tasks, in order:') + 2,
      lines.indexOf('', lines.indexOf('Tasks, in order:')),
    );
    expect(tasks.map((l) => l.trim().split(/\s+/)[0])).toEqual(
      topologicalOrder(plan.tasks).map((t) => t.name),
    );
    expect(tasks.find((l) => l.startsWith('  join-windows-workers '))).toMatch(
      /^ {2}join-windows-workers +windows-workers-01 +prepare-windows, init-control-plane +kubeadm join/,
    );
    const later = lines.slice(lines.indexOf('Decided at run time:'));
    expect(later.find((l) => l.includes('join_command'))).toMatch(
      /join_command \(secret\) +init-control-plane +join-windows-workers, join-linux-workers$/,
    );
  });
});
