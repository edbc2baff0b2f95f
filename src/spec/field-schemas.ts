import { z } from 'zod';
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

/** The spec's schemas for the field kinds of field-patterns.ts (addresses, users, versions, flags). */

/** A host to connect to: an IP address or a DNS name. */
export const hostAddressSchema = z.string().refine(isHostAddress, HOST_ADDRESS_MESSAGE);

/** A login user or Windows account. */
export const userNameSchema = z.string().refine(isUserName, USER_NAME_MESSAGE);

/** A load-balanced API endpoint `host[:port]`. */
export const endpointSchema = z.string().refine((v) => parseHostPort(v) !== undefined, ENDPOINT_MESSAGE);

/** Kubelet flags, `--name=value` each. */
export const kubeletArgsSchema = z.array(z.string().regex(KUBELET_ARG, KUBELET_ARG_MESSAGE));

/** `versions:` overrides: entry names of playbooks/versions.yaml and versions or references. */
export const versionOverridesSchema = z.record(
  z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'must be a versions.yaml entry name (a-z, 0-9, "-")'),
  z.string().regex(VERSION_OR_REF, VERSION_MESSAGE),
);

/** `vars:` names; the values are the playbooks' business (strings are checked for NUL elsewhere). */
export const varNameSchema = z.string().refine(isVarName, VAR_NAME_MESSAGE);
