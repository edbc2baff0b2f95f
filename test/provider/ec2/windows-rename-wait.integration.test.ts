import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WindowsSimulator } from '../../../fixtures/windows-sim/simulator.js';
import {
  amiComputerName,
  type UserDataRename,
  userDataRename,
} from '../../../fixtures/windows-sim/user-data-rename.js';
import { type RunningWinrmServer, startWinrmServer } from '../../../fixtures/winrm-server/server.js';
import { runClusterPlan } from '../../../src/cluster/run-plan.js';
import { createTransportFactory } from '../../../src/executor/create-transport.js';
import { buildPlan } from '../../../src/plan/index.js';
import { clusterSpecSchema } from '../../../src/spec/schema.js';
import type { InventoryHost } from '../../../src/types/inventory.js';
import type { Plan } from '../../../src/types/plan.js';
import { loadVersions } from '../../../src/versions/versions.js';
import { testTempDir } from '../../helpers/temp.js';

// An EC2 Windows instance answers WinRM under its AMI's name, then its user data renames it and
// restarts it. The task after wait-for-hosts must find the host renamed and up: wait-for-hosts
// passing on the first answer lets it straddle the restart or see the old name.
const PASSWORD_ENV = 'KMX_RENAME_TEST_PASSWORD';
const PASSWORD = 'Rename-Test-Pa55';

let simulator: WindowsSimulator;
let server: RunningWinrmServer;
let rename: UserDataRename;

beforeAll(async () => {
  process.env[PASSWORD_ENV] = PASSWORD;
  simulator = new WindowsSimulator();
  const host = simulator.addHost({
    name: 'win-01',
    computerName: amiComputerName('i-0abc1234567'),
    rebootDownMs: 500,
  });
  // A few seconds after the first logon, longer than wait_for_connection and the probe take.
  rename = userDataRename(host, 'win-01', 3000);
  const serve = simulator.handlerFor('win-01');
  server = await startWinrmServer({
    users: { Administrator: PASSWORD },
    auth: ['ntlm'],
    host: '127.0.0.1',
    handler: (ctx) => {
      if (host.power === 'up') rename.loggedOn();
      return serve(ctx);
    },
  });
  host.on('power', (state) => {
    (state === 'down' ? server.pause() : server.resume()).catch(() => undefined);
  });
});

afterAll(async () => {
  rename?.dispose();
  await server?.stop();
  simulator?.dispose();
  delete process.env[PASSWORD_ENV];
});

describe('EC2 wait-for-hosts on a Windows instance its user data renames', () => {
  it('lets the next task start only once the host restarted under the node name', {
    timeout: 120_000,
  }, async () => {
    const spec = clusterSpecSchema.parse({
      name: 'rename',
      provider: { type: 'ec2', region: 'eu-west-1', operatorCidr: '127.0.0.0/8' },
      nodes: { controlPlane: { count: 1 }, workers: [{ name: 'win', os: 'windows', count: 1 }] },
    });
    const work = await testTempDir('rename-wait');
    const built = buildPlan({ spec, versions: loadVersions(), clusterDir: work });
    const planned = built.hosts.find((h) => h.name === 'win-01')!;
    // What create-hosts records for the instance, with the password given by reference here.
    const host: InventoryHost = {
      ...planned,
      address: server.host,
      port: server.port,
      credentials: { user: 'Administrator', password: { env: PASSWORD_ENV } },
    };
    const waitForHosts = built.tasks.find((t) => t.name === 'wait-for-hosts')!;
    const plan: Plan = {
      cluster: built.cluster,
      hosts: [host],
      vars: built.vars,
      tasks: [
        { ...waitForHosts, hosts: ['win-01'], needs: [] },
        {
          name: 'prepare-windows',
          description: 'the first task after wait-for-hosts',
          needs: ['wait-for-hosts'],
          hosts: ['win-01'],
          steps: [
            { name: 'computer name', module: 'win_shell', args: { cmd: 'hostname' }, register: 'seen_name' },
          ],
          implemented: true,
        },
      ],
    };
    const clusterDir = join(work, 'cluster');
    const summary = await runClusterPlan({
      plan,
      clusterDir,
      transports: createTransportFactory(),
    });
    expect(summary.error ?? '').toBe('');
    const state = JSON.parse(await readFile(join(clusterDir, 'state.json'), 'utf8')) as {
      outputs: Record<string, Record<string, unknown>>;
    };
    expect(state.outputs['win-01']?.['seen_name']).toBe('win-01');
  });
});
