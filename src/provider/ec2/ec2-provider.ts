import type { ClusterSpec } from '../../spec/schema.js';
import type { InventoryHost } from '../../types/inventory.js';
import { LOCALHOST } from '../localhost.js';
import { defaultPort } from '../node-defaults.js';
import type { NodeRequest, Provider, ProviderContext, ProviderPlan, ProviderTeardown } from '../types.js';

/**
 * EC2 instances (not built yet: its tasks plan as not implemented). Addresses are assigned by
 * AWS when instances start: create-hosts records them in the state, so the planned nodes have none.
 */
export class Ec2Provider implements Provider {
  readonly type = 'ec2' as const;

  plan(_spec: ClusterSpec, requests: NodeRequest[], _context: ProviderContext): ProviderPlan {
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
      };
      const port = defaultPort(node.connection);
      if (port !== undefined) host.port = port;
      if (node.credentials) host.credentials = node.credentials;
      if (node.windowsVersion) host.windowsVersion = node.windowsVersion;
      return host;
    });
    const localhost = [LOCALHOST];
    return {
      providerHosts: [],
      nodes,
      prepare: {
        description: 'Check EC2 access: region, VPC, subnet, key pair, AMIs',
        hosts: localhost,
        steps: undefined,
      },
      createNetwork: {
        description: 'Create the security group (6443, 10250, UDP 4789, NodePorts)',
        hosts: localhost,
        steps: undefined,
      },
      createHosts: { description: 'Create the cluster instances', hosts: localhost, steps: undefined },
      waitTimeoutSec: 900,
      waitSteps: [],
    };
  }

  inspect(): undefined {
    return undefined;
  }

  teardown(): ProviderTeardown {
    const localhost = [LOCALHOST];
    return {
      tasks: [
        {
          name: 'destroy-hosts',
          description: 'Terminate the cluster instances',
          hosts: localhost,
          steps: undefined,
        },
        {
          name: 'destroy-network',
          description: 'Remove the security group and network',
          hosts: localhost,
          steps: undefined,
        },
      ],
    };
  }
}
