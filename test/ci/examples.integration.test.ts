import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { ciHelp } from '../../src/cli/commands/ci.js';
import { loadSpec, parseSpecText } from '../../src/spec/index.js';
import { testTempDir } from '../helpers/temp.js';
import { formatManifestProblems, validateManifestObjects } from '../helpers/validate-manifests.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const workflowPath = join(repo, 'scripts/ci-examples/github-actions/kubemix-nightly.yml');
const cronJobPath = join(repo, 'scripts/ci-examples/kubernetes/kubemix-nightly-cronjob.yaml');

/** actionlint as scripts/setup.sh installs it (`go install`, into GOPATH/bin), or from PATH. */
async function actionlint(): Promise<string> {
  const go =
    (await execa('sh', ['-c', 'command -v go'], { reject: false })).stdout.trim() || '/usr/local/go/bin/go';
  const gopath = (await execa(go, ['env', 'GOPATH'], { reject: false })).stdout.trim();
  const installed = gopath ? join(gopath, 'bin', 'actionlint') : '';
  if (installed && existsSync(installed)) return installed;
  const onPath = await execa('sh', ['-c', 'command -v actionlint'], { reject: false });
  if (onPath.exitCode === 0) return onPath.stdout.trim();
  throw new Error('actionlint is not installed: run bash scripts/setup.sh');
}

describe('the GitHub Actions example', () => {
  it('passes actionlint (workflow syntax, expressions, action inputs, shellcheck on run: scripts)', async () => {
    const result = await execa(await actionlint(), [workflowPath], { reject: false });
    expect(`${result.stdout}${result.stderr}`).toBe('');
    expect(result.exitCode).toBe(0);
  });

  it('is checked by an actionlint that rejects a broken workflow', async () => {
    const dir = await testTempDir('actionlint');
    try {
      const broken = (await readFile(workflowPath, 'utf8')).replace(
        'if-no-files-found:',
        'if-no-file-found:',
      );
      await writeFile(join(dir, 'broken.yml'), broken);
      const result = await execa(await actionlint(), [join(dir, 'broken.yml')], { reject: false });
      expect(result.exitCode).toBe(1);
      expect(result.stdout).toContain(
        'input "if-no-file-found" is not defined in action "actions/upload-artifact@v4"',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('runs nightly over a matrix of specs that load (Windows Server 2019 and 2022), and publishes its results', async () => {
    const workflow = parseYaml(await readFile(workflowPath, 'utf8')) as {
      on: { schedule: { cron: string }[] };
      jobs: {
        reproduce: {
          strategy: { matrix: { include: { name: string; spec: string }[] } };
          steps: { uses?: string; run?: string; if?: string }[];
        };
      };
    };
    expect(workflow.on.schedule).toHaveLength(1);
    const job = workflow.jobs.reproduce;
    const versions: string[] = [];
    for (const entry of job.strategy.matrix.include) {
      const { spec } = await loadSpec(join(repo, entry.spec));
      versions.push(
        ...spec.nodes.workers.filter((w) => w.os === 'windows').map((w) => w.windowsVersion ?? ''),
      );
    }
    expect(versions.sort()).toEqual(['2019', '2022']);
    const uses = job.steps.filter((s) => s.if === 'always()').map((s) => s.uses?.split('@')[0]);
    expect(uses).toEqual(['actions/cache/save', 'actions/upload-artifact', 'mikepenz/action-junit-report']);
    // A cancelled job's teardown is finished by a step that still runs after the cancellation.
    expect(job.steps.find((s) => s.if === 'cancelled()')?.run).toBe(
      'node dist/bundle/kubemix.js down "$SPEC"',
    );
    // Every flag it passes to kubemix ci is one kubemix ci has.
    const run = job.steps.find((s) => s.run?.includes(' ci '))?.run ?? '';
    const flags = [...run.matchAll(/ (--[a-z-]+)/g)].map((m) => m[1]!);
    expect(flags).toEqual(['--out', '--timeout', '--history']);
    for (const flag of flags) expect(ciHelp).toContain(`  ${flag} `);
  });
});

describe('the Kubernetes CronJob example', () => {
  it('is valid against the Kubernetes schemas, and its spec is a valid kubemix spec', async () => {
    const docs = parseAllDocuments(await readFile(cronJobPath, 'utf8')).map((d) => d.toJS());
    expect(docs.map((d) => d.kind)).toEqual([
      'Namespace',
      'ServiceAccount',
      'PersistentVolumeClaim',
      'ConfigMap',
      'CronJob',
    ]);
    const problems = validateManifestObjects(docs);
    expect(formatManifestProblems(problems)).toBe('');
    const configMap = docs.find((d) => d.kind === 'ConfigMap');
    const cronJob = docs.find((d) => d.kind === 'CronJob');
    const args = cronJob.spec.jobTemplate.spec.template.spec.containers[0].args as string[];
    const specFile = args[1]!.split('/').at(-1)!;
    const spec = parseSpecText(configMap.data[specFile], specFile);
    expect(spec.nodes.workers.find((w) => w.os === 'windows')?.windowsVersion).toBe('2022');
    // The grace period lets the teardown run after SIGTERM; the deadline sits above the budget.
    const pod = cronJob.spec.jobTemplate.spec.template.spec;
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(600);
    expect(cronJob.spec.jobTemplate.spec.activeDeadlineSeconds).toBeGreaterThan(120 * 60);
  });

  it('is checked by a validator that rejects an invalid CronJob: schema and API-server rules', () => {
    const invalid = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'x' },
      spec: { schedule: 5 },
    };
    expect(validateManifestObjects([invalid]).map((p) => p.path)).toContain('/spec/schedule');
    const pod = {
      restartPolicy: 'Never',
      containers: [{ name: 'c', image: 'i', volumeMounts: [{ name: 'missing', mountPath: '/m' }] }],
    };
    const undeclared = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'x' },
      spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: pod } } } },
    };
    expect(formatManifestProblems(validateManifestObjects([undeclared]))).toBe(
      'CronJob x /spec/jobTemplate/spec/template/spec/containers: container "c" mounts undeclared volume "missing"',
    );
  });
});
