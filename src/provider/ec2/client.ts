import { EC2Client } from '@aws-sdk/client-ec2';
import { ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { SSMClient } from '@aws-sdk/client-ssm';
import type {
  DeserializeMiddleware,
  InitializeMiddleware,
  MetadataBearer,
  MiddlewareStack,
} from '@smithy/types';
import { KubemixError } from '../../errors/index.js';

/** Where the EC2 and SSM clients point and how hard they retry. */
export interface AwsClientOptions {
  /** The spec's region; absent: the SDK's chain (AWS_REGION, the profile's region). */
  region?: string | undefined;
  /** The spec's endpoint (every service); AWS_ENDPOINT_URL, _EC2, _SSM and _SERVICE_QUOTAS are read by the SDK itself. */
  endpoint?: string | undefined;
  /** Attempts per call, throttling and 5xx included (adaptive retry). Default 10. */
  maxAttempts?: number;
}

/** API calls made, per `Service.Operation`: commands (retries not counted) and HTTP attempts. */
export interface CallCounts {
  commands: Record<string, number>;
  attempts: Record<string, number>;
}

/**
 * The real AWS SDK v3 clients for one region, with adaptive retry (client-side rate limiting
 * plus retries of throttling errors such as RequestLimitExceeded and of HTTP 5xx) and a count
 * of every call. Credentials come from the SDK's default chain, never from kubemix.
 */
export class AwsClients {
  readonly ec2: EC2Client;
  readonly ssm: SSMClient;
  readonly counts: CallCounts = { commands: {}, attempts: {} };
  private home?: EC2Client;
  private probe?: EC2Client;
  private quotas?: ServiceQuotasClient;

  private constructor(
    readonly region: string,
    private readonly options: AwsClientOptions,
  ) {
    this.ec2 = new EC2Client(this.config(region));
    this.ssm = new SSMClient(this.config(region));
    this.count(this.ec2, 'EC2');
    this.count(this.ssm, 'SSM');
  }

  private config(region: string) {
    return {
      region,
      retryMode: 'adaptive',
      maxAttempts: this.options.maxAttempts ?? 10,
      ...(this.options.endpoint ? { endpoint: this.options.endpoint } : {}),
    };
  }

  /** Service Quotas in the spec's region (prepare-provider reads the vCPU, VPC and gateway quotas). */
  serviceQuotas(): ServiceQuotasClient {
    if (!this.quotas) {
      this.quotas = new ServiceQuotasClient(this.config(this.region));
      this.count(this.quotas, 'ServiceQuotas');
    }
    return this.quotas;
  }

  /**
   * EC2 in the spec's region with few attempts: prepare-provider's first question, whose
   * failure (no such endpoint, a non-AWS answer) means a wrong region more often than a busy one.
   */
  probeEc2(): EC2Client {
    if (!this.probe) {
      this.probe = new EC2Client({ ...this.config(this.region), maxAttempts: 3 });
      this.count(this.probe, 'EC2');
    }
    return this.probe;
  }

  /**
   * EC2 in the home region of the region's partition (us-east-1, cn-north-1, us-gov-west-1): it
   * answers DescribeRegions even when the spec's region does not exist (whose endpoint has no DNS).
   */
  homeEc2(): EC2Client {
    if (!this.home) {
      const home = this.region.startsWith('cn-')
        ? 'cn-north-1'
        : this.region.startsWith('us-gov-')
          ? 'us-gov-west-1'
          : 'us-east-1';
      this.home = new EC2Client(this.config(home));
      this.count(this.home, 'EC2');
    }
    return this.home;
  }

  /**
   * Clients for the spec's region, or the SDK's. Fails with one line when no region is set
   * anywhere. Credentials are resolved lazily, at the first call (see {@link describeAwsError}).
   */
  static async create(options: AwsClientOptions): Promise<AwsClients> {
    // The SDK warns on Node < 22 about its releases after January 2027; kubemix's lock file
    // pins the SDK, so the notice would only interrupt the task list. An explicit setting wins.
    process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
    let region = options.region;
    if (!region) {
      const probe = new EC2Client({});
      region = await probe.config.region().catch(() => undefined);
      probe.destroy();
    }
    if (!region)
      throw new KubemixError(
        'no AWS region: set provider.region in the spec, AWS_REGION, or region in your AWS profile (~/.aws/config)',
        { exitCode: 2 },
      );
    return new AwsClients(region, options);
  }

  /** Total commands and HTTP attempts so far. */
  totals(): { commands: number; attempts: number } {
    const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
    return { commands: sum(this.counts.commands), attempts: sum(this.counts.attempts) };
  }

  destroy(): void {
    this.ec2.destroy();
    this.ssm.destroy();
    this.home?.destroy();
    this.probe?.destroy();
    this.quotas?.destroy();
  }

  private count(client: EC2Client | SSMClient | ServiceQuotasClient, service: string): void {
    const bump = (table: Record<string, number>) => (commandName: unknown) => {
      const key = `${service}.${String(commandName).replace(/Command$/, '')}`;
      table[key] = (table[key] ?? 0) + 1;
    };
    const counter =
      (record: (commandName: unknown) => void): InitializeMiddleware<object, MetadataBearer> =>
      (next, context) =>
      async (args) => {
        record(context.commandName);
        return next(args);
      };
    // initialize runs once per command; deserialize once per HTTP attempt (inside the retry loop).
    const stack = client.middlewareStack as unknown as MiddlewareStack<object, MetadataBearer>;
    stack.add(counter(bump(this.counts.commands)), { step: 'initialize', name: 'kubemixCountCommands' });
    stack.add(
      counter(bump(this.counts.attempts)) as unknown as DeserializeMiddleware<object, MetadataBearer>,
      {
        step: 'deserialize',
        name: 'kubemixCountAttempts',
      },
    );
  }
}

/** The error code of an AWS SDK error (`InvalidInstanceID.NotFound`...), if it is one. */
export function awsErrorCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { Code?: unknown }).Code;
  return typeof code === 'string' ? code : error.name;
}

/** True for the error codes that mean "already gone" (deletes tolerate them). */
export function isNotFound(error: unknown): boolean {
  const code = awsErrorCode(error) ?? '';
  return /NotFound$|\.NotFound|^InvalidKeyPair\.NotFound$/.test(code);
}

/** Where the SDK looked for credentials (its default chain, in order). */
export const CREDENTIAL_CHAIN =
  'environment (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY), SSO, shared files ~/.aws/credentials and ~/.aws/config (AWS_PROFILE), credential_process, web identity, ECS and EC2 instance metadata';

/**
 * One line for an AWS failure: what kubemix was doing, the AWS error code and message. Never a
 * credential (AWS messages do not carry secrets; request signatures are never shown).
 */
export function describeAwsError(doing: string, error: unknown): KubemixError {
  if (error instanceof KubemixError) return error;
  const code = awsErrorCode(error);
  if (code === 'CredentialsProviderError' || /Could not load credentials/.test(String(error)))
    return new KubemixError(`${doing}: no AWS credentials found; tried ${CREDENTIAL_CHAIN}`, { exitCode: 2 });
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  const input = code !== undefined && INPUT_ERRORS.test(code);
  return new KubemixError(`${doing}: ${code && code !== 'Error' ? `${code}: ` : ''}${message}`, {
    exitCode: input ? 2 : 1,
    cause: error,
  });
}

// AWS answers that mean the request (i.e. the spec or the account setup) is wrong, not the run.
// A NotFound of an id kubemix itself just created is EC2's eventual consistency instead: those
// calls go through consistency.ts (withOwnIds), which waits it out and never lands here with it.
const INPUT_ERRORS =
  /^(AuthFailure|UnauthorizedOperation|InvalidClientTokenId|UnrecognizedClientException|OptInRequired|InvalidAMIID\.\w+|InvalidSubnetID\.NotFound|InvalidVpcID\.NotFound|InvalidParameterValue|Unsupported)$/;
