import { DescribeImagesCommand, type Image } from '@aws-sdk/client-ec2';
import { GetParametersCommand } from '@aws-sdk/client-ssm';
import { describeAwsError } from './client.js';
import type { Ec2Context } from './context.js';
import type { InstanceGroupPlan } from './plan.js';

/** The AMI a group launches, as EC2 describes it. */
export interface ResolvedImage {
  imageId: string;
  architecture: string;
  platform: 'windows' | 'linux';
  name: string;
  /** Device name of the root volume (sized by diskGiB). */
  rootDeviceName?: string;
  /** Snapshot of the root volume (named again when kubemix overrides the root volume's settings). */
  rootSnapshotId?: string;
  /** Size of the root volume in the AMI's block device mapping: diskGiB may not be smaller. */
  rootVolumeGiB?: number;
}

/** Images by group, and every problem found (one line each, naming the spec field). */
export interface ImageResolution {
  images: Map<string, ResolvedImage>;
  problems: string[];
}

const imageField = (group: InstanceGroupPlan) => `provider.images.${group.os}`;

/**
 * The AMI of every group: an explicit id; else the SSM parameter (one GetParameters call for all,
 * up to 10 names a call); a default parameter that does not answer falls back to DescribeImages
 * by owner and name pattern (newest available x86_64). Then one DescribeImages of every id
 * checks that each exists and fits its group's OS. Nothing is created.
 */
export async function resolveImages(ctx: Ec2Context, groups: InstanceGroupPlan[]): Promise<ImageResolution> {
  const problems: string[] = [];
  const ids = new Map<string, string>();
  const parameters = [...new Set(groups.flatMap((g) => (g.image.kind === 'id' ? [] : [g.image.parameter])))];
  const values = new Map<string, string>();
  for (let i = 0; i < parameters.length; i += 10) {
    const batch = parameters.slice(i, i + 10);
    try {
      const answer = await ctx.aws.ssm.send(new GetParametersCommand({ Names: batch }));
      for (const p of answer.Parameters ?? []) if (p.Name && p.Value) values.set(p.Name, p.Value);
    } catch (error) {
      throw describeAwsError('prepare-provider: reading the AMI parameters from SSM', error);
    }
  }
  for (const group of groups) {
    const image = group.image;
    if (image.kind === 'id') ids.set(group.group, image.imageId);
    else if (values.has(image.parameter)) ids.set(group.group, values.get(image.parameter)!);
    else if (image.kind === 'parameter')
      problems.push(`${imageField(group)}: SSM parameter ${image.parameter} not found in ${ctx.aws.region}`);
    else {
      const found = await newestImage(ctx, image.owner, image.namePattern);
      if (found) ids.set(group.group, found);
      else
        problems.push(
          `${imageField(group)}: no image found for the default (SSM ${image.parameter}, or ${image.namePattern} owned by ${image.owner}) in ${ctx.aws.region}; give an AMI id`,
        );
    }
  }
  const described = await describeImages(ctx, [...new Set(ids.values())]);
  const images = new Map<string, ResolvedImage>();
  for (const group of groups) {
    const id = ids.get(group.group);
    if (id === undefined) continue;
    const image = described.get(id);
    if (!image?.ImageId) {
      problems.push(`${imageField(group)}: AMI ${id} not found in ${ctx.aws.region}`);
      continue;
    }
    const platform = String(image.Platform ?? '').toLowerCase() === 'windows' ? 'windows' : 'linux';
    if (platform !== group.os) {
      problems.push(
        `${imageField(group)}: AMI ${id} is a ${platform} image; group ${group.group} runs ${group.os}`,
      );
      continue;
    }
    images.set(group.group, {
      imageId: id,
      architecture: image.Architecture ?? 'x86_64',
      platform,
      name: image.Name ?? id,
      ...(image.RootDeviceName ? { rootDeviceName: image.RootDeviceName } : {}),
      ...rootSnapshot(image),
    });
  }
  return { images, problems };
}

async function describeImages(ctx: Ec2Context, ids: string[]): Promise<Map<string, Image>> {
  const found = new Map<string, Image>();
  if (ids.length === 0) return found;
  // Filtering by image-id never fails on a missing one (ImageIds would, naming only the first).
  try {
    const answer = await ctx.aws.ec2.send(
      new DescribeImagesCommand({ Filters: [{ Name: 'image-id', Values: ids }] }),
    );
    for (const image of answer.Images ?? []) if (image.ImageId) found.set(image.ImageId, image);
  } catch (error) {
    throw describeAwsError('prepare-provider: describing the AMIs', error);
  }
  return found;
}

async function newestImage(ctx: Ec2Context, owner: string, namePattern: string): Promise<string | undefined> {
  try {
    const answer = await ctx.aws.ec2.send(
      new DescribeImagesCommand({
        Owners: [owner],
        Filters: [
          { Name: 'name', Values: [namePattern] },
          { Name: 'state', Values: ['available'] },
          { Name: 'architecture', Values: ['x86_64'] },
        ],
      }),
    );
    const sorted = (answer.Images ?? []).sort((a, b) =>
      (b.CreationDate ?? '').localeCompare(a.CreationDate ?? ''),
    );
    return sorted[0]?.ImageId;
  } catch (error) {
    throw describeAwsError(`prepare-provider: searching AMIs ${namePattern}`, error);
  }
}

function rootSnapshot(image: Image): { rootSnapshotId?: string; rootVolumeGiB?: number } {
  const root = image.BlockDeviceMappings?.find((m) => m.DeviceName === image.RootDeviceName);
  return {
    ...(root?.Ebs?.SnapshotId ? { rootSnapshotId: root.Ebs.SnapshotId } : {}),
    ...(root?.Ebs?.VolumeSize ? { rootVolumeGiB: root.Ebs.VolumeSize } : {}),
  };
}
