// The AWS SDK loads only when an EC2 step runs, not with every kubemix command.
const lifecycle = () => import('../lifecycle.js');

import type { RawArgs } from '../../../modules/args.js';
import { immediate } from '../../../modules/immediate.js';
import { stepBuilder } from '../../../modules/step-builder.js';
import type { Module, ModuleRun } from '../../../modules/types.js';
import { winrmCertificates } from '../winrm-certificates.js';
import { type Ec2Args, ec2Call, mappingArg, parseEc2Args, readClusterKey } from './common.js';

/** `ec2_preflight`: prepare-provider; every input problem at once (exit 2), creates nothing. */
export const ec2PreflightModule: Module<Ec2Args> = {
  name: 'ec2_preflight',
  os: 'any',
  parseArgs: (raw: RawArgs) => parseEc2Args('ec2_preflight', raw),
  *run(args): ModuleRun {
    const call = ec2Call('check the region, zones, instance types, AMIs and subnet', args, async (ctx) => {
      const checked = await (await lifecycle()).prepareProvider(ctx, args.spec);
      const images = Object.fromEntries([...checked.images].map(([group, image]) => [group, image.imageId]));
      return { changed: false, data: { availabilityZone: checked.availabilityZone, images } };
    });
    yield call.action;
    return call.outcome();
  },
};

/** `ec2_network`: create-network (VPC, subnet, gateway, routes unless the spec names a subnet; security group; key pair). */
export const ec2NetworkModule: Module<Ec2Args> = {
  name: 'ec2_network',
  os: 'any',
  parseArgs: (raw: RawArgs) => parseEc2Args('ec2_network', raw),
  *run(args): ModuleRun {
    const call = ec2Call('create the network, security group and key pair', args, async (ctx) => {
      const { publicKey } = await readClusterKey(args.keyFile);
      const network = await (await lifecycle()).createNetworkTask(ctx, args.spec, publicKey);
      return { changed: true, data: { ...network } };
    });
    yield call.action;
    return call.outcome();
  },
};

/**
 * `ec2_winrm_certificates`: the WinRM HTTPS certificate of each Windows group (PKCS#12, base64),
 * made once and returned as data for a secret `register` (secrets.json, 0600; never state.json or
 * the logs); a resumed run keeps the ones it finds (`known`), so the certificate it pins and the
 * user data it sends again are the ones the instances were launched with. No AWS call.
 */
export const ec2WinrmCertificatesModule: Module<Ec2Args & { known: Record<string, unknown> }> = {
  name: 'ec2_winrm_certificates',
  os: 'any',
  parseArgs: (raw: RawArgs) => ({
    ...parseEc2Args('ec2_winrm_certificates', raw, ['known']),
    known: mappingArg('ec2_winrm_certificates', raw, 'known'),
  }),
  run(args) {
    const made = winrmCertificates(args.spec, args.known);
    const changed = Object.keys(made).some((group) => args.known[group] !== made[group]);
    return immediate({ changed, failed: false, data: made });
  },
};

/**
 * `ec2_instances`: create-hosts. Launches each group once, waits for the instances and records
 * each host's address in the state (later tasks connect to it). Its failures are shown whole.
 */
export const ec2InstancesModule: Module<Ec2Args & { certificates: Record<string, unknown> }> = {
  name: 'ec2_instances',
  os: 'any',
  parseArgs: (raw: RawArgs) => ({
    ...parseEc2Args('ec2_instances', raw, ['certificates']),
    certificates: mappingArg('ec2_instances', raw, 'certificates'),
  }),
  *run(args): ModuleRun {
    const call = ec2Call(
      'launch the instances and wait for their addresses and passwords',
      args,
      async (ctx) => {
        const key = await readClusterKey(args.keyFile);
        const certificates = Object.fromEntries(
          Object.entries(args.certificates).filter(
            (entry): entry is [string, string] => typeof entry[1] === 'string',
          ),
        );
        const created = await (await lifecycle()).createHostsTask(ctx, args.spec, { ...key, certificates });
        await ctx.ledger.record({ hosts: created.hosts });
        return { changed: true };
      },
    );
    yield call.action;
    return call.outcome();
  },
};

/**
 * `ec2_windows_passwords`: the Administrator password of every Windows node, from the instances
 * create-hosts recorded, returned as data for a secret `register` (secrets.json only).
 */
export const ec2WindowsPasswordsModule: Module<Ec2Args> = {
  name: 'ec2_windows_passwords',
  os: 'any',
  parseArgs: (raw: RawArgs) => parseEc2Args('ec2_windows_passwords', raw),
  *run(args): ModuleRun {
    const call = ec2Call('wait for the Windows Administrator passwords', args, async (ctx) => {
      const { privateKeyPem } = await readClusterKey(args.keyFile);
      const passwords = await (await lifecycle()).windowsPasswordsTask(ctx, args.spec, { privateKeyPem });
      return { changed: passwords.size > 0, data: Object.fromEntries(passwords) };
    });
    yield call.action;
    return call.outcome();
  },
};

/** `ec2_destroy`: the EC2 part of `down`, in dependency order. */
export const ec2DestroyModule: Module<Ec2Args> = {
  name: 'ec2_destroy',
  os: 'any',
  parseArgs: (raw: RawArgs) => parseEc2Args('ec2_destroy', raw),
  *run(args): ModuleRun {
    const call = ec2Call('terminate the instances and delete the network', args, async (ctx) => {
      await (await lifecycle()).destroyTask(ctx, args.spec);
      return { changed: true };
    });
    yield call.action;
    return call.outcome();
  },
};

/** `ec2_leak_check`: fails naming every resource still tagged with the cluster. */
export const ec2LeakCheckModule: Module<Ec2Args> = {
  name: 'ec2_leak_check',
  os: 'any',
  parseArgs: (raw: RawArgs) => parseEc2Args('ec2_leak_check', raw),
  *run(args): ModuleRun {
    const call = ec2Call('look for anything still tagged with the cluster', args, async (ctx) => {
      await (await lifecycle()).leakCheckTask(ctx);
      return { changed: false };
    });
    yield call.action;
    return call.outcome();
  },
};

/** `ec2_inspect`: what of the cluster exists on EC2 now (read only; `kubemix status`). */
export const ec2InspectModule: Module<Ec2Args> = {
  name: 'ec2_inspect',
  os: 'any',
  parseArgs: (raw: RawArgs) => parseEc2Args('ec2_inspect', raw),
  *run(args): ModuleRun {
    const call = ec2Call(
      'find what of the cluster exists on EC2',
      args,
      async (ctx) => {
        const { inspectCluster } = await import('../inspect.js');
        const { planEc2 } = await import('../plan.js');
        const found = await inspectCluster(ctx, planEc2(args.spec));
        return { changed: false, data: { location: ctx.aws.region, found } };
      },
      { readOnly: true },
    );
    yield call.action;
    return call.outcome();
  },
};

// The plan's builders (ec2-provider.ts): arguments of each module's own type.
/** An ec2_preflight plan step. */
export const ec2PreflightStep = stepBuilder(ec2PreflightModule);
/** An ec2_network plan step. */
export const ec2NetworkStep = stepBuilder(ec2NetworkModule);
/** An ec2_winrm_certificates plan step (`known` may be left out). */
export const ec2WinrmCertificatesStep = stepBuilder(ec2WinrmCertificatesModule, ['known']);
/** An ec2_instances plan step (`certificates` may be left out). */
export const ec2InstancesStep = stepBuilder(ec2InstancesModule, ['certificates']);
/** An ec2_windows_passwords plan step. */
export const ec2WindowsPasswordsStep = stepBuilder(ec2WindowsPasswordsModule);
/** An ec2_destroy plan step. */
export const ec2DestroyStep = stepBuilder(ec2DestroyModule);
/** An ec2_leak_check plan step. */
export const ec2LeakCheckStep = stepBuilder(ec2LeakCheckModule);
/** An ec2_inspect plan step. */
export const ec2InspectStep = stepBuilder(ec2InspectModule);
