import { afterEach, describe, expect, it } from 'vitest';
import { AwsClients } from '../../../src/provider/ec2/client.js';

describe('AWS clients', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('without a region anywhere: one line saying where a region can be set, exit 2', async () => {
    for (const name of ['AWS_REGION', 'AWS_DEFAULT_REGION', 'AWS_PROFILE']) delete process.env[name];
    process.env['AWS_CONFIG_FILE'] = '/nonexistent/kubemix/config';
    process.env['AWS_SHARED_CREDENTIALS_FILE'] = '/nonexistent/kubemix/credentials';
    process.env['AWS_EC2_METADATA_DISABLED'] = 'true';
    const failure = await AwsClients.create({}).catch((e: Error & { exitCode?: number }) => e);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toBe(
      'no AWS region: set provider.region in the spec, AWS_REGION, or region in your AWS profile (~/.aws/config)',
    );
    expect((failure as { exitCode?: number }).exitCode).toBe(2);
  });

  it('takes the region of the SDK chain when the spec gives none', async () => {
    process.env['AWS_REGION'] = 'ap-southeast-2';
    const aws = await AwsClients.create({});
    try {
      expect(aws.region).toBe('ap-southeast-2');
      expect(await aws.ec2.config.region()).toBe('ap-southeast-2');
    } finally {
      aws.destroy();
    }
  });
});
