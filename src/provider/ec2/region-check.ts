import { DescribeRegionsCommand, type Region } from '@aws-sdk/client-ec2';
import { describeAwsError } from './client.js';
import type { Ec2Context } from './context.js';

/**
 * The region's own answer about itself: DescribeRegions (AllRegions) sent to the region's
 * endpoint, so an account whose policy denies every other region (IAM User Guide, "AWS: Denies
 * access to AWS based on the requested Region": aws:RequestedRegion) still passes. A region the
 * account has not enabled (OptInStatus `not-opted-in`; EC2 API Reference, DescribeRegions) is
 * refused with one line. Only when the region's endpoint gives no AWS answer at all (no DNS for
 * an unknown region; moto answers HTML) is the partition's home region asked whether the region
 * exists. Returns the problems (empty: the region is usable).
 */
export async function regionProblems(ctx: Ec2Context): Promise<string[]> {
  const region = ctx.aws.region;
  let listed: Region[];
  try {
    listed = (await ctx.aws.probeEc2().send(new DescribeRegionsCommand({ AllRegions: true }))).Regions ?? [];
  } catch (error) {
    if (answeredByAws(error)) {
      if ((error as { Code?: string }).Code === 'OptInRequired') return [notOptedIn(region)];
      throw describeAwsError(`prepare-provider: asking ${region} about itself`, error);
    }
    const home = await ctx.aws
      .homeEc2()
      .send(new DescribeRegionsCommand({ AllRegions: true }))
      .then((answer) => answer.Regions ?? [])
      .catch(() => undefined);
    // The home region cannot tell either: the region's own failure is the news.
    if (!home) throw describeAwsError(`prepare-provider: asking ${region} about itself`, error);
    listed = home;
    if (listed.some((r) => r.RegionName === region && r.OptInStatus !== 'not-opted-in'))
      throw describeAwsError(`prepare-provider: asking ${region} about itself`, error);
  }
  const mine = listed.find((r) => r.RegionName === region);
  if (!mine) return [`provider.region: unknown region ${region}`];
  if (mine.OptInStatus === 'not-opted-in') return [notOptedIn(region)];
  return [];
}

const notOptedIn = (region: string) =>
  `provider.region: ${region} is not enabled for this account (OptInStatus not-opted-in); enable it under Account > AWS Regions, or choose another region`;

/** True when AWS itself answered with an error code (an XML error document), not the network or a stranger. */
const answeredByAws = (error: unknown): boolean =>
  typeof (error as { Code?: unknown } | undefined)?.Code === 'string';
