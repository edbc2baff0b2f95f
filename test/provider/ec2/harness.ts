import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { testClusterKey } from '../../../fixtures/ec2-proxy/cluster-key.js';
import { MemoryLedger } from '../../../fixtures/ec2-proxy/memory-ledger.js';
import { MOTO_ENV, type Moto, startMoto } from '../../../fixtures/ec2-proxy/moto.js';
import { taggedWithCluster } from '../../../fixtures/ec2-proxy/moto-data.js';
import { Ec2FaultProxy, type FaultPlan } from '../../../fixtures/ec2-proxy/proxy.js';
import { AwsClients } from '../../../src/provider/ec2/client.js';
import type { Ec2Context } from '../../../src/provider/ec2/context.js';
import { realClock } from '../../../src/provider/ec2/context.js';
import { createHostsTask, createNetworkTask, prepareProvider } from '../../../src/provider/ec2/lifecycle.js';
import { parseSpecText } from '../../../src/spec/parse.js';
import type { ClusterSpec } from '../../../src/spec/schema.js';
import { runCli, tempHome } from '../../cli/run-cli.js';

/** AMIs moto ships (moto/ec2/resources/amis.json): an x86_64 Amazon Linux 2 and a Windows Server 2016. */
export const MOTO_LINUX_AMI = 'ami-04681a1dbd79675a5';
export const MOTO_WINDOWS_AMI = 'ami-b7e93bce';

/** What {@link ec2SpecText} writes: an EC2 cluster against `endpoint` with explicit AMIs. */
export interface Ec2SpecOptions {
  name: string;
  endpoint: string;
  linuxWorkers?: number;
  windowsWorkers?: number;
  /** Default eu-west-1; `null` leaves the region out (the AWS SDK's own choice then applies). */
  region?: string | null;
  winrm?: 'http' | 'https';
  /** Default {@link MOTO_LINUX_AMI}. */
  linuxImage?: string;
  /** More `provider:` lines, indented by two spaces. */
  extra?: string[];
}

/** A spec for moto as YAML text (what a user's spec file holds): the default connectVia (public), the given workers. */
export function ec2SpecText(options: Ec2SpecOptions): string {
  const lines = [
    `name: ${options.name}`,
    'provider:',
    '  type: ec2',
    ...(options.region === null ? [] : [`  region: ${options.region ?? 'eu-west-1'}`]),
    '  operatorCidr: 127.0.0.0/8',
    ...(options.winrm === undefined ? [] : [`  winrm: ${options.winrm}`]),
    `  endpoint: ${options.endpoint}`,
    `  images: { linux: ${options.linuxImage ?? MOTO_LINUX_AMI}, windows: ${MOTO_WINDOWS_AMI} }`,
    ...(options.extra ?? []),
    'nodes:',
    '  workers:',
    `    - { name: linux, os: linux, count: ${options.linuxWorkers ?? 1} }`,
    `    - { name: win, os: windows, count: ${options.windowsWorkers ?? 1} }`,
  ];
  return lines.join('\n');
}

/** {@link ec2SpecText}, parsed as kubemix parses a spec file. */
export function ec2Spec(options: Ec2SpecOptions): ClusterSpec {
  return parseSpecText(ec2SpecText(options), 'spec.yaml');
}

/** An EC2 context against `endpoint` (`dispose` closes its clients). */
export async function ec2Context(options: {
  cluster: string;
  endpoint: string;
  ledger?: MemoryLedger;
  fastClock?: boolean;
  region?: string;
}): Promise<Ec2Context & { ledger: MemoryLedger; progressLines: string[]; dispose(): Promise<void> }> {
  const aws = await AwsClients.create({
    region: options.region ?? 'eu-west-1',
    endpoint: options.endpoint,
    maxAttempts: 10,
  });
  const progressLines: string[] = [];
  // Waits poll moto, which answers at once: shorten the pauses between polls, not the bounds.
  const clock =
    options.fastClock === false
      ? realClock
      : { now: realClock.now, sleep: (ms: number, s?: AbortSignal) => realClock.sleep(Math.min(ms, 20), s) };
  return {
    aws,
    cluster: options.cluster,
    ledger: options.ledger ?? new MemoryLedger(),
    progress: (line) => progressLines.push(line),
    progressLines,
    clock,
    dispose: async () => {
      aws.destroy();
    },
  };
}

export { MemoryLedger };

/** An EC2 context of the harness: its ledger, the progress lines it printed, `dispose` to close it. */
export type Ec2TestContext = Awaited<ReturnType<typeof ec2Context>>;

let clusterKey: ReturnType<typeof testClusterKey> | undefined;
/** The test file's cluster key (made once, as `kubemix up` makes it for EC2). */
export const testKey = () => {
  clusterKey ??= testClusterKey();
  return clusterKey;
};

/** prepare-provider, create-network and create-hosts, as `up` runs them, with {@link testKey}. */
export async function upToHosts(
  ctx: Ec2TestContext,
  spec: ClusterSpec,
  options: { instancesTimeoutMs?: number } = {},
) {
  const key = await testKey();
  await prepareProvider(ctx, spec);
  await createNetworkTask(ctx, spec, key.publicKey);
  return createHostsTask(ctx, spec, {
    publicKey: key.publicKey,
    privateKeyPem: key.privateKeyPem,
    ...options,
  });
}

/** A kubemix home holding an EC2 spec file, `kubemix` run with them, and the fault proxy the spec points at. */
export interface CliCluster {
  home: string;
  /** The spec file's path. */
  spec: string;
  /** The cluster directory `up` makes. */
  dir: string;
  proxy: Ec2FaultProxy;
  /** Runs the built CLI with this home and moto's credentials (plus `env`). */
  cli(args: string[], env?: Record<string, string>): ReturnType<typeof runCli>;
}

/**
 * `kubemix up <spec> --stop-after create-hosts`, SIGKILLed once EC2 (moto behind the proxy) has
 * carried out the `nth` `action`: the call reached EC2, kubemix dies before it hears back.
 */
export async function upKilledAt(c: CliCluster, action: string, nth = 1) {
  const up = c.cli(['up', c.spec, '--stop-after', 'create-hosts']);
  let seen = 0;
  c.proxy.onAction = (done) => {
    if (done === action && ++seen === nth) up.kill('SIGKILL');
  };
  const killed = await up;
  c.proxy.onAction = undefined;
  return killed;
}

/** What {@link useMoto} gives a test file; whatever a test makes through it goes after the test. */
export interface MotoHarness {
  /** moto's URL (known once the file's beforeAll has run). */
  readonly url: string;
  /** The resources moto holds tagged with `cluster`'s name, as "Kind id" lines; only those of `kind` if given. */
  tagged(cluster: string, kind?: string): Promise<string[]>;
  /** An EC2 context against `endpoint` (default: moto itself). */
  context(
    cluster: string,
    options?: { endpoint?: string; region?: string; ledger?: MemoryLedger },
  ): Promise<Ec2TestContext>;
  /** The fault proxy in front of moto, started: EC2's manners moto lacks (fixtures/ec2-proxy/README.md). */
  faultProxy(faults?: FaultPlan): Promise<{ proxy: Ec2FaultProxy; endpoint: string }>;
  /** {@link faultProxy}, an EC2 context for `cluster` through it, and the cluster's spec ({@link ec2Spec}) against it. */
  clusterBehindProxy(
    cluster: string,
    faults?: FaultPlan,
  ): Promise<{ ctx: Ec2TestContext; spec: ClusterSpec; proxy: Ec2FaultProxy; endpoint: string }>;
  /** A fresh kubemix home with `<name>.yaml` written from `spec` against a new {@link faultProxy}, and a runner of the built CLI for it. */
  cliCluster(spec: Omit<Ec2SpecOptions, 'endpoint'>, faults?: FaultPlan): Promise<CliCluster>;
  /** Runs `cleanup` after the test, the last registered first. */
  afterTest(cleanup: () => Promise<void> | void): void;
}

/**
 * One moto for the calling test file: started before its tests, stopped after them, and reset
 * after each test once what the test made through the harness is closed. Call it at the top
 * level of the file; it also gives this process moto's dummy credentials (MOTO_ENV).
 */
export function useMoto(): MotoHarness {
  Object.assign(process.env, MOTO_ENV);
  let moto: Moto | undefined;
  const cleanups: (() => Promise<void> | void)[] = [];
  beforeAll(async () => {
    moto = await startMoto();
  });
  afterAll(async () => {
    await moto?.stop();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await moto?.reset();
  });
  const url = () => {
    if (!moto) throw new Error('moto is not started yet: use the harness inside a test or hook');
    return moto.url;
  };
  const afterTest = (cleanup: () => Promise<void> | void) => {
    cleanups.push(cleanup);
  };
  return {
    get url() {
      return url();
    },
    async tagged(cluster, kind) {
      const found = await taggedWithCluster(url(), cluster);
      return kind === undefined ? found : found.filter((r) => r.startsWith(`${kind} `));
    },
    async context(cluster, options = {}) {
      const ctx = await ec2Context({ cluster, ...options, endpoint: options.endpoint ?? url() });
      afterTest(ctx.dispose);
      return ctx;
    },
    async faultProxy(faults = {}) {
      const proxy = new Ec2FaultProxy(url(), faults);
      const endpoint = await proxy.start();
      afterTest(() => proxy.stop());
      return { proxy, endpoint };
    },
    async clusterBehindProxy(cluster, faults = {}) {
      const { proxy, endpoint } = await this.faultProxy(faults);
      const ctx = await this.context(cluster, { endpoint });
      return { ctx, spec: ec2Spec({ name: cluster, endpoint }), proxy, endpoint };
    },
    async cliCluster(spec, faults = {}) {
      const { proxy, endpoint } = await this.faultProxy(faults);
      const home = tempHome();
      afterTest(() => rmSync(home, { recursive: true, force: true }));
      const file = join(home, `${spec.name}.yaml`);
      writeFileSync(file, ec2SpecText({ ...spec, endpoint }));
      return {
        home,
        spec: file,
        dir: join(home, 'clusters', spec.name),
        proxy,
        cli: (args, env = {}) => runCli(args, { home, env: { ...MOTO_ENV, ...env } }),
      };
    },
    afterTest,
  };
}
