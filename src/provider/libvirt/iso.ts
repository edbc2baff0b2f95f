import { shQuote } from '../../quote/index.js';

/** Options of {@link isoScript}. */
export interface IsoOptions {
  /** Directory whose files become the ISO's root; removed once the ISO is written (or not). */
  source: string;
  output: string;
  /** Volume label (`cidata` for cloud-init's NoCloud, `KUBEMIX` for Windows). */
  label: string;
  /**
   * The files hold a secret (a Windows Administrator password): the ISO is written under umask
   * 077, so it is 0600 from its first byte; else it is 0644.
   */
  secret: boolean;
}

/**
 * One POSIX shell script that makes an ISO 9660 image with Rock Ridge and Joliet (long names:
 * without Joliet Windows sees only the 8.3 name AUTOUNAT.XML and Setup finds no answer file)
 * from a directory, with whichever tool the hypervisor has: genisoimage, mkisofs or
 * `xorriso -as mkisofs` (genisoimage(1): -output, -volid, -joliet, -joliet-long, -rock). The
 * source directory is removed whatever happened. Every path is quoted.
 */
export function isoScript(options: IsoOptions): string {
  const source = shQuote(options.source);
  const output = shQuote(options.output);
  return [
    `trap 'rm -rf -- ${source}' EXIT`,
    ...(options.secret ? ['umask 077'] : []),
    'if command -v genisoimage >/dev/null 2>&1; then set -- genisoimage',
    'elif command -v mkisofs >/dev/null 2>&1; then set -- mkisofs',
    'else set -- xorriso -as mkisofs; fi',
    `"$@" -quiet -output ${output} -volid ${shQuote(options.label)} -joliet -joliet-long -rock ${source}`,
    `chmod ${options.secret ? '0600' : '0644'} -- ${output}`,
  ].join('\n');
}
