import {
  oneOf,
  optionalBool,
  optionalNumber,
  optionalString,
  type RawArgs,
  rejectUnknown,
  requireString,
} from '../args.js';
import type { Module } from '../types.js';
import { moduleScript, outcomeFromResult } from './script.js';

const ALGORITHMS = ['md5', 'sha1', 'sha256', 'sha384', 'sha512'] as const;

/** Arguments of `win_get_url`. */
export interface WinGetUrlArgs {
  url: string;
  dest: string;
  /** Expected digest (hex, lower case), or undefined. */
  checksum?: string;
  checksumAlgorithm: (typeof ALGORITHMS)[number];
  force: boolean;
  /** Seconds for the request. */
  timeout: number;
}

/**
 * The PowerShell of win_get_url: the Windows host downloads the URL itself (Invoke-WebRequest)
 * into a temporary file, verifies the checksum, and replaces `dest` only when the content
 * differs. With `force: false` an existing file is kept (when it matches `checksum`, if one is given).
 */
export function winGetUrlScript(args: WinGetUrlArgs, check: boolean): string {
  return moduleScript({
    module: 'win_get_url',
    header: {
      url: args.url,
      dest: args.dest,
      checksum: args.checksum ?? null,
      checksum_algorithm: args.checksumAlgorithm,
      force: args.force,
      timeout: args.timeout,
      _check: check,
    },
    vars: {
      kmUrl: args.url,
      kmDest: args.dest,
      kmChecksum: args.checksum ?? null,
      kmAlgorithm: args.checksumAlgorithm.toUpperCase(),
      kmForce: args.force,
      kmTimeout: args.timeout,
      kmCheck: check,
    },
    initial: {
      url: args.url,
      dest: args.dest,
      status_code: null,
      checksum_dest: null,
      checksum_src: null,
      size: null,
    },
    body: [
      'if (Test-Path -LiteralPath $kmDest -PathType Container) {',
      '  $kmDest = Join-Path -Path $kmDest -ChildPath ([IO.Path]::GetFileName(([Uri]$kmUrl).AbsolutePath))',
      '  $kmResult.dest = $kmDest',
      '}',
      '$kmExisting = $null',
      'if (Test-Path -LiteralPath $kmDest -PathType Leaf) {',
      '  $kmExisting = (Get-FileHash -LiteralPath $kmDest -Algorithm $kmAlgorithm).Hash.ToLowerInvariant()',
      '  $kmResult.checksum_dest = $kmExisting',
      '}',
      'if ($kmExisting -and -not $kmForce -and (-not $kmChecksum -or $kmExisting -eq $kmChecksum)) {',
      `  $kmResult.msg = 'file already exists'`,
      '} elseif ($kmCheck) {',
      '  $kmResult.changed = $true',
      '} else {',
      '  $kmTmp = "$kmDest.kubemix-download"',
      '  try {',
      '    $kmResponse = Invoke-WebRequest -Uri $kmUrl -OutFile $kmTmp -UseBasicParsing -TimeoutSec $kmTimeout -PassThru',
      '  } catch {',
      '    KmFail "Error downloading $kmUrl to $($kmDest): $($_.Exception.Message)"',
      '  }',
      '  $kmResult.status_code = [int]$kmResponse.StatusCode',
      '  $kmNew = (Get-FileHash -LiteralPath $kmTmp -Algorithm $kmAlgorithm).Hash.ToLowerInvariant()',
      '  $kmResult.checksum_src = $kmNew',
      '  $kmResult.size = (Get-Item -LiteralPath $kmTmp).Length',
      '  if ($kmChecksum -and $kmNew -ne $kmChecksum) {',
      '    Remove-Item -LiteralPath $kmTmp -Force',
      '    KmFail "The checksum for $kmUrl did not match $($kmChecksum); it was $kmNew"',
      '  }',
      '  if ($kmExisting -eq $kmNew) {',
      '    Remove-Item -LiteralPath $kmTmp -Force',
      '  } else {',
      '    Move-Item -LiteralPath $kmTmp -Destination $kmDest -Force',
      '    $kmResult.changed = $true',
      '  }',
      '  $kmResult.checksum_dest = $kmNew',
      '}',
    ],
  });
}

/** `win_get_url`: the Windows host downloads a URL to `dest`, verified by checksum, replaced only when it changed. */
export const winGetUrlModule: Module<WinGetUrlArgs> = {
  name: 'win_get_url',
  os: 'windows',
  parseArgs(raw: RawArgs) {
    rejectUnknown('win_get_url', raw, ['url', 'dest', 'checksum', 'checksum_algorithm', 'force', 'timeout']);
    const url = requireString('win_get_url', raw, 'url');
    if (!/^(https?|ftp):\/\//i.test(url))
      throw new TypeError(`win_get_url: "url" must be an http(s) or ftp URL, got ${url}`);
    let algorithm = oneOf('win_get_url', raw, 'checksum_algorithm', ALGORITHMS, 'sha1');
    let checksum = optionalString('win_get_url', raw, 'checksum');
    // get_url's `algorithm:digest` form is accepted too.
    const prefixed = checksum ? /^(md5|sha1|sha256|sha384|sha512):(.+)$/i.exec(checksum) : null;
    if (prefixed) {
      algorithm = prefixed[1]!.toLowerCase() as WinGetUrlArgs['checksumAlgorithm'];
      checksum = prefixed[2]!;
    }
    if (checksum !== undefined && !/^[0-9a-fA-F]+$/.test(checksum))
      throw new TypeError(
        'win_get_url: "checksum" must be a hex digest (optionally prefixed by the algorithm, sha256:...)',
      );
    const args: WinGetUrlArgs = {
      url,
      dest: requireString('win_get_url', raw, 'dest'),
      checksumAlgorithm: algorithm,
      force: optionalBool('win_get_url', raw, 'force') ?? true,
      timeout: optionalNumber('win_get_url', raw, 'timeout', 1) ?? 30,
    };
    if (checksum) args.checksum = checksum.toLowerCase();
    return args;
  },
  *run(args, context) {
    const result = yield {
      kind: 'exec',
      command: winGetUrlScript(args, context.checkMode),
      display: `win_get_url: ${args.url.replace(/\/\/[^/@]*@/, '//***@')} -> ${args.dest}`,
      timeoutMs: (args.timeout + 60) * 1000,
    };
    return outcomeFromResult('win_get_url', result);
  },
};
