import { z } from 'zod';

/** The spec's image sources (libvirt base images and ISOs). */

const hex = (length: number, what: string) =>
  z
    .string()
    .regex(new RegExp(`^[0-9a-fA-F]{${length}}$`), `must be ${length} hexadecimal digits (a ${what} digest)`)
    .transform((v) => v.toLowerCase());

/** True for the http(s) URLs an image may be downloaded from; anything else is a local path. */
export const isImageUrl = (source: string): boolean => /^https?:\/\//.test(source);

/**
 * A disk image or ISO: a local path (copied to each hypervisor) or an http(s) URL (downloaded by
 * each hypervisor once, into its cache). A URL needs a digest: every download is verified.
 */
export const imageSourceSchema = z
  .strictObject({
    source: z.string().min(1).describe('Local path, or an http(s) URL.'),
    sha256: hex(64, 'SHA-256').optional(),
    sha512: hex(128, 'SHA-512').optional().describe('Debian publishes SHA-512 digests (SHA512SUMS).'),
  })
  .superRefine((image, context) => {
    if (image.sha256 !== undefined && image.sha512 !== undefined)
      context.addIssue({ code: 'custom', path: ['sha512'], message: 'give sha256 or sha512, not both' });
    if (isImageUrl(image.source) && image.sha256 === undefined && image.sha512 === undefined)
      context.addIssue({
        code: 'custom',
        path: ['sha256'],
        message: 'is required with a URL: kubemix verifies every download (sha256sum FILE prints it)',
      });
  });

export type ImageSource = z.output<typeof imageSourceSchema>;
