import { MemoryLedger } from '../../../fixtures/ec2-proxy/memory-ledger.js';
import { AwsClients } from '../../../src/provider/ec2/client.js';
import type { Ec2Context } from '../../../src/provider/ec2/context.js';
import { realClock } from '../../../src/provider/ec2/context.js';
import { parseSpecText } from '../../../src/spec/parse.js';
import type { ClusterSpec } from '../../../src/spec/schema.js';

/** AMIs moto ships (moto/ec2/resources/amis.json): an x86_64 Amazon Linux 2 and a Windows Server 2016. */
export const MOTO_LINUX_AMI = 'ami-04681a1dbd79675a5';
export const MOTO_WINDOWS_AMI = 'ami-b7e93bce';

/** A spec for moto: explicit AMIs, private addresses, the given workers. */
export function ec2Spec(options: {
  name: string;
  endpoint: string;
  linuxWorkers?: number;
  windowsWorkers?: number;
  extra?: string[];
}): ClusterSpec {
  const lines = [
    `name: ${options.name}`,
    'provider:',
    '  type: ec2',
    '  region: eu-west-1',
    '  operatorCidr: 127.0.0.0/8',
    '  connectVia: private',
    `  endpoint: ${options.endpoint}`,
    `  images: { linux: ${MOTO_LINUX_AMI}, windows: ${MOTO_WINDOWS_AMI} }`,
    ...(options.extra ?? []),
    'nodes:',
    '  workers:',
    `    - { name: linux, os: linux, count: ${options.linuxWorkers ?? 1} }`,
    `    - { name: win, os: windows, count: ${options.windowsWorkers ?? 1} }`,
  ];
  return parseSpecText(lines.join('\n'), 'spec.yaml');
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
