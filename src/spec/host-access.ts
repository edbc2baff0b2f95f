import { z } from 'zod';
import { ENV_NAME_MESSAGE, isEnvName } from './field-patterns.js';
import { userNameSchema } from './field-schemas.js';

/** How kubemix reaches a host: the connection kind and the credentials (secrets by reference). */

/** The message for any secret that is not a reference. It never repeats the value. */
export const SECRET_REF_MESSAGE =
  'must be a reference { env: VAR } or { file: PATH }; secrets are never written inline';

/** A secret is always a reference: an environment variable or a file, never the value itself. */
export const secretRefSchema = z
  .union([z.strictObject({ env: z.string().min(1) }), z.strictObject({ file: z.string().min(1) })], {
    error: SECRET_REF_MESSAGE,
  })
  .superRefine((ref, ctx) => {
    if ('env' in ref && !isEnvName(ref.env))
      ctx.addIssue({ code: 'custom', path: ['env'], message: ENV_NAME_MESSAGE });
  })
  .describe('A secret given by reference: { env: NAME } or { file: PATH }.');

export const credentialsSchema = z
  .strictObject({
    user: userNameSchema.optional().describe('Login user (ssh) or account (winrm).'),
    privateKey: secretRefSchema.optional().describe('SSH private key file (use { file: ... }).'),
    passphrase: secretRefSchema.optional(),
    password: secretRefSchema.optional().describe('WinRM password or sudo password.'),
    agent: z.boolean().optional().describe('Use the ssh-agent at $SSH_AUTH_SOCK.'),
  })
  .describe('Credentials; secret parts are references.');

export const connectionSchema = z.enum(['local', 'ssh', 'winrm']);
/** How kubemix reaches a host. */
export type Connection = z.output<typeof connectionSchema>;
