import type { ClusterSpec } from '../../spec/schema.js';
import { credentialFieldsAt, type HostCredentials, type InventoryHost } from '../../types/inventory.js';
import { LOCALHOST } from '../../types/localhost.js';
import type { PlanStep } from '../../types/plan.js';
import { cloudInitWaitStep } from '../cloud-init-wait.js';
import { clusterKeyPath } from '../cluster-key.js';
import { defaultPort } from '../node-defaults.js';
import type {
  NodeRequest,
  Provider,
  ProviderContext,
  ProviderPlan,
  ProviderTask,
  ProviderTeardown,
} from '../types.js';
import {
  ec2DestroyStep,
  ec2InspectStep,
  ec2InstancesStep,
  ec2LeakCheckStep,
  ec2NetworkStep,
  ec2PreflightStep,
  ec2WindowsPasswordsStep,
  ec2WinrmCertificatesStep,
} from './modules/modules.js';
import { planEc2 } from './plan.js';
import { LINUX_USER } from './user-data.js';
import { windowsRenamedWaitStep } from './windows-rename-wait.js';

/** The cluster's key pair for EC2 (RSA: EC2 encrypts Windows passwords with it), in the cluster directory. */
export const EC2_KEY_FILE = 'id_rsa';

/** The secret output create-hosts registers: Windows Administrator passwords by node name. */
export const WINDOWS_PASSWORDS_OUTPUT = 'ec2_windows_passwords';

/**
 * The secret output of the WinRM HTTPS certificates (PKCS#12 by Windows group): made once, so a
 * resumed create-hosts pins the certificate its running instances hold.
 */
export const WINRM_CERTIFICATES_OUTPUT = 'ec2_winrm_certificates';

/**
 * EC2 instances through the AWS SDK, run on the machine running kubemix. Addresses are assigned by
 * AWS when instances start: create-hosts records them in the state, so the planned nodes have none.
 * Linux nodes are reached as the `kubemix` user cloud-init creates with the cluster key; Windows
 * nodes as Administrator with the password GetPasswordData gives (kept in secrets.json only), or
 * over SSH with the cluster key.
 */
export class Ec2Provider implements Provider {
  readonly type = 'ec2' as const;

  plan(spec: ClusterSpec, requests: NodeRequest[], context: ProviderContext): ProviderPlan {
    const keyFile = clusterKeyPath(context.clusterDir, EC2_KEY_FILE);
    const plan = planEc2(spec);
    const winrmPort = plan.winrm === 'https' ? 5986 : 5985;
    const nodes = requests.map((node): InventoryHost => {
      const host: InventoryHost = {
        name: node.name,
        address: '',
        os: node.os,
        connection: node.connection,
        role: node.role,
        group: node.group,
        hostKeyPolicy: 'accept-new',
        createdBy: 'ec2',
        vars: { ...node.vars, kubemix_address: 'pending' },
        credentials: credentialsFor(node, keyFile),
      };
      const port = node.connection === 'winrm' ? winrmPort : defaultPort(node.connection);
      if (port !== undefined) host.port = port;
      if (node.os === 'windows' && node.connection === 'winrm')
        host.vars = { ...host.vars, kubemix_password_secret: `${WINDOWS_PASSWORDS_OUTPUT}.${node.name}` };
      if (node.windowsVersion) host.windowsVersion = node.windowsVersion;
      // Only what the spec gave: the key file is the cluster's own, made by up.
      const credentialFields =
        node.credentialsPath && credentialFieldsAt(node.credentials, node.credentialsPath);
      if (credentialFields) host.credentialFields = credentialFields;
      return host;
    });
    const args = { spec, keyFile };
    const localhost = [LOCALHOST];
    const windows = plan.groups.some((g) => g.os === 'windows');
    const https = plan.winrm === 'https' && windows;
    return {
      providerHosts: [],
      nodes,
      prepare: {
        description: `Check EC2 ${spec.provider.type === 'ec2' ? (spec.provider.region ?? '(SDK region)') : ''}: region, zone, instance types, AMIs, subnet; nothing is created`,
        hosts: localhost,
        steps: [ec2PreflightStep(args, { name: 'check the region, zones, instance types, AMIs and subnet' })],
      },
      createNetwork: {
        description:
          plan.network.kind === 'create'
            ? `Create VPC ${plan.network.vpcCidr}, subnet, internet gateway, route table, security group, key pair`
            : `Create the security group and key pair in subnet ${plan.network.subnetId}`,
        hosts: localhost,
        steps: [ec2NetworkStep(args, { name: 'create the network, security group and key pair' })],
      },
      createHosts: {
        description: `Launch ${plan.groups.map((g) => `${g.nodes.length} x ${g.instanceType} (${g.group})`).join(', ')}`,
        hosts: localhost,
        steps: [
          ...(https
            ? [
                {
                  // register and secret after args: the plan JSON's order since the first release.
                  ...ec2WinrmCertificatesStep(
                    { ...args, known: `{{ outputs.${WINRM_CERTIFICATES_OUTPUT} | default({}) }}` },
                    {
                      name: 'WinRM HTTPS certificates of the Windows groups (made once, kept in secrets.json)',
                    },
                  ),
                  register: WINRM_CERTIFICATES_OUTPUT,
                  secret: true,
                },
              ]
            : []),
          ec2InstancesStep(
            {
              ...args,
              ...(https ? { certificates: `{{ outputs.${WINRM_CERTIFICATES_OUTPUT} | default({}) }}` } : {}),
            },
            { name: 'launch the instances and wait for their addresses' },
          ),
          ...(windows
            ? [
                {
                  ...ec2WindowsPasswordsStep(args, { name: 'wait for the Windows Administrator passwords' }),
                  register: WINDOWS_PASSWORDS_OUTPUT,
                  secret: true,
                },
              ]
            : []),
        ],
      },
      // Windows instances take minutes before EC2Launch has set the password and WinRM answers.
      waitTimeoutSec: 1200,
      // Windows: not before the user data's rename and restart are done (windows-rename-wait.ts).
      waitSteps: [cloudInitWaitStep(), windowsRenamedWaitStep()],
    };
  }

  inspect(spec: ClusterSpec, context: ProviderContext): ProviderTask {
    return {
      description: 'What of the cluster exists on EC2 (by its tags)',
      hosts: [LOCALHOST],
      steps: [
        ec2InspectStep(
          { spec, keyFile: clusterKeyPath(context.clusterDir, EC2_KEY_FILE) },
          { name: 'find what of the cluster exists on EC2' },
        ),
      ],
    };
  }

  teardown(spec: ClusterSpec, _input: unknown, context: ProviderContext): ProviderTeardown {
    const args = { spec, keyFile: clusterKeyPath(context.clusterDir, EC2_KEY_FILE) };
    const localhost = [LOCALHOST];
    // Teardown works from tags as well as from the state, so it also runs when the state
    // recorded nothing (a crash before the first record): a leak check always follows.
    const task = (name: 'destroy-hosts' | 'check-leaks', description: string, steps: PlanStep[]) =>
      ({ name, description, hosts: localhost, steps }) satisfies ProviderTask & { name: string };
    return {
      tasks: [
        task(
          'destroy-hosts',
          'Terminate the instances, then delete the security group, key pair, subnet, route table, internet gateway and VPC kubemix created',
          [ec2DestroyStep(args, { name: 'terminate the instances and delete the network' })],
        ),
        task('check-leaks', 'Nothing tagged with the cluster remains', [
          ec2LeakCheckStep(args, { name: 'look for anything still tagged with the cluster' }),
        ]),
      ],
    };
  }
}

function credentialsFor(node: NodeRequest, keyFile: string): HostCredentials {
  if (node.os === 'linux') return { user: LINUX_USER, privateKey: { file: keyFile }, ...node.credentials };
  if (node.connection === 'ssh')
    return { user: 'Administrator', privateKey: { file: keyFile }, ...node.credentials };
  return { user: 'Administrator', ...node.credentials };
}
