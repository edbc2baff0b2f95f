import { z } from 'zod';
import * as field from './field-schemas.js';
import { connectionSchema, credentialsSchema } from './host-access.js';

/** The static provider: hosts that exist already, reached over ssh, winrm or locally. */

export const staticHostSchema = z.strictObject({
  name: field.dnsLabelSchema.describe('Inventory and node name.'),
  address: field.hostAddressSchema.describe('IP address or DNS name to connect to.'),
  port: z.number().int().min(1).max(65535).optional(),
  group: z.string().min(1).describe('Node group: "control-plane" or the name of a worker group.'),
  connection: connectionSchema.optional().describe('Defaults to the group connection.'),
  credentials: credentialsSchema.optional(),
});

export const staticProviderSchema = z.strictObject({
  type: z.literal('static'),
  hosts: z.array(staticHostSchema).min(1, 'must list at least one host'),
  knownHosts: z
    .string()
    .min(1)
    .optional()
    .describe(
      "known_hosts file with the listed hosts' SSH keys (default ~/.ssh/known_hosts); checked strictly.",
    ),
});
