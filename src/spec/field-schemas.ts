import { z } from 'zod';
import { parseKubernetesVersion } from '../versions/kubernetes-support.js';
import { parseCidr } from './cidr.js';
import {
  ENDPOINT_MESSAGE,
  HOST_ADDRESS_MESSAGE,
  isHostAddress,
  isUserName,
  isVarName,
  KUBELET_ARG,
  KUBELET_ARG_MESSAGE,
  parseHostPort,
  USER_NAME_MESSAGE,
  VAR_NAME_MESSAGE,
  VERSION_MESSAGE,
  VERSION_OR_REF,
} from './field-patterns.js';

/**
 * The spec's schemas for single fields: names, CIDRs, versions and the field kinds of
 * field-patterns.ts (addresses, users, versions, flags).
 */

/** Cluster, host, group and pool names. */
export const dnsLabelSchema = z
  .string()
  .regex(
    /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/,
    'must be a lower-case DNS label (a-z, 0-9, "-"), at most 63 characters',
  );

// abort: a string that is not CIDR-shaped gets one message, not two.
export const cidrSchema = z
  .string()
  .regex(/^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/, {
    message: 'must be an IPv4 CIDR such as 10.244.0.0/16',
    abort: true,
  })
  .refine((v) => parseCidr(v) !== undefined, 'must be an IPv4 CIDR with octets <= 255 and a prefix <= 32');

/**
 * A Kubernetes version such as 1.37.2, or a pre-release such as 1.37.0-rc.1 (a leading v is
 * accepted). Whether kubemix builds it is decided with the plan (src/versions/buildable.ts).
 */
export const kubernetesVersionSchema = z
  .string()
  .refine(
    (v) => parseKubernetesVersion(v) !== undefined,
    'must be a version such as 1.37.2 (or a pre-release such as 1.37.0-rc.1)',
  );

/** A host to connect to: an IP address or a DNS name. */
export const hostAddressSchema = z.string().refine(isHostAddress, HOST_ADDRESS_MESSAGE);

/** A login user or Windows account. */
export const userNameSchema = z.string().refine(isUserName, USER_NAME_MESSAGE);

/** A load-balanced API endpoint `host[:port]`. */
export const endpointSchema = z.string().refine((v) => parseHostPort(v) !== undefined, ENDPOINT_MESSAGE);

/** Kubelet flags, `--name=value` or a bare `--name` (true) each. */
export const kubeletArgsSchema = z.array(z.string().regex(KUBELET_ARG, KUBELET_ARG_MESSAGE));

/**
 * `versions:` overrides: entry names of playbooks/versions.yaml and versions or references. A
 * digest entry (`<entry>-sha256`) is 64 hex digits, or empty for a file trusted on first download
 * (src/versions/versions.ts: the rule that a pinned file's override brings its digest).
 */
export const versionOverridesSchema = z
  .record(
    // Entry names hold dots too: containerd-minimum-1.37.
    z.string().regex(/^[a-z0-9][a-z0-9.-]*$/, 'must be a versions.yaml entry name (a-z, 0-9, ".", "-")'),
    z.string(),
  )
  .superRefine((overrides, ctx) => {
    for (const [key, value] of Object.entries(overrides)) {
      const digest = key.endsWith('-sha256');
      // containerd's minimum rows list one X.Y.Z per release branch, space-separated (versions.yaml).
      const row = key.startsWith('containerd-minimum-');
      const ok = digest
        ? /^([0-9a-f]{64})?$/.test(value)
        : row
          ? /^\d+\.\d+\.\d+( \d+\.\d+\.\d+)*$/.test(value)
          : VERSION_OR_REF.test(value);
      if (!ok)
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: digest
            ? 'must be a SHA-256 (64 lower-case hex digits), or empty to trust on first download'
            : row
              ? 'must be containerd versions X.Y.Z, one per release branch, separated by spaces (e.g. "2.4.0 2.3.0")'
              : VERSION_MESSAGE,
        });
    }
  });

/** `vars:` names; the values are the playbooks' business (strings are checked for NUL elsewhere). */
export const varNameSchema = z.string().refine(isVarName, VAR_NAME_MESSAGE);

/**
 * EC2 names: region codes such as eu-west-1 or us-gov-west-1 (AWS "Regions and Availability
 * Zones"), resource IDs as prefix + 8 or 17 hex digits (EC2 User Guide, "Resource IDs"), and
 * instance types family.size (EC2 "Amazon EC2 instance type naming conventions").
 */
export const ec2RegionSchema = z
  .string()
  .regex(/^[a-z]{2}(?:-[a-z]+)+-\d+$/, 'must be an AWS region code such as eu-west-1');
export const ec2IdSchema = (prefix: 'vpc' | 'subnet') =>
  z
    .string()
    .regex(
      new RegExp(`^${prefix}-(?:[0-9a-f]{8}|[0-9a-f]{17})$`),
      `must be an EC2 ID such as ${prefix}-0123456789abcdef0`,
    );
export const ec2InstanceTypeSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]*\.[a-z0-9]+$/, 'must be an EC2 instance type such as m5.large');
