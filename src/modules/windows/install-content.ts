import { createHash } from 'node:crypto';
import type { ModuleOutcome, ModuleRun } from '../types.js';
import { moduleScript, outcomeFromResult } from './script.js';

/** What win_copy and win_template place on a host. */
export interface WindowsContentRequest {
  module: 'win_copy' | 'win_template';
  content: Buffer;
  dest: string;
  /** File name used when `dest` is a directory (the src basename). */
  srcName?: string;
  force: boolean;
  /** Shown as `src` in the result. */
  src?: string;
}

/** SHA-1 hex, the checksum Ansible's win_copy reports and compares. */
export const sha1 = (data: Buffer) => createHash('sha1').update(data).digest('hex');

/**
 * The read-only probe: resolves the final path (a directory `dest` plus the src name) and
 * reports whether a file is there and its SHA-1. The content itself never enters the script.
 */
export function probeScript(request: WindowsContentRequest, checksum: string, check: boolean): string {
  return moduleScript({
    module: request.module,
    header: { dest: request.dest, src_name: request.srcName ?? null, checksum, _check: check },
    vars: { kmDest: request.dest, kmSrcName: request.srcName ?? null },
    initial: { dest: request.dest, exists: false, checksum: null, is_dir: false },
    body: [
      "if ((Test-Path -LiteralPath $kmDest -PathType Container) -or $kmDest.EndsWith('\\') -or $kmDest.EndsWith('/')) {",
      '  if ($kmSrcName) {',
      '    $kmDest = Join-Path -Path $kmDest -ChildPath $kmSrcName',
      '    $kmResult.dest = $kmDest',
      '  } else {',
      '    $kmResult.is_dir = $true',
      '  }',
      '}',
      'if (Test-Path -LiteralPath $kmDest -PathType Leaf) {',
      '  $kmResult.exists = $true',
      '  $kmResult.checksum = (Get-FileHash -LiteralPath $kmDest -Algorithm SHA1).Hash.ToLowerInvariant()',
      '} elseif (Test-Path -LiteralPath $kmDest) {',
      '  $kmResult.is_dir = $true',
      '}',
    ],
  });
}

/**
 * Places content at `dest` only when the SHA-1 differs (Ansible's win_copy idempotence):
 * probe, then the transport's own hash-checked put. In check mode only the probe runs.
 */
export function* installWindowsContent(request: WindowsContentRequest, check: boolean): ModuleRun {
  const checksum = sha1(request.content);
  const probed = yield {
    kind: 'exec',
    command: probeScript(request, checksum, check),
    display: `${request.module}: check ${request.dest}`,
  };
  const probe = outcomeFromResult(request.module, probed);
  if (probe.failed) return probe;
  const found = probe.data ?? {};
  const dest = typeof found['dest'] === 'string' ? found['dest'] : request.dest;
  const data: Record<string, unknown> = {
    dest,
    checksum,
    size: request.content.length,
    operation: 'file_copy',
  };
  if (request.src !== undefined) data['src'] = request.src;
  if (found['is_dir'] === true)
    return {
      changed: false,
      failed: true,
      msg: `${request.module}: dest ${dest} is a directory; give a file path (or src, whose name is used)`,
      data,
    };
  if (found['exists'] === true && (found['checksum'] === checksum || !request.force))
    return { changed: false, failed: false, data };
  if (check) return { changed: true, failed: false, data };
  const put = yield { kind: 'put', remotePath: dest, content: request.content };
  const outcome: ModuleOutcome = { changed: !put.failed, failed: put.failed, data };
  if (put.failed)
    outcome.msg = `${request.module}: copying to ${dest} failed: ${put.stderr.trim() || `exit code ${put.exitCode}`}`;
  return outcome;
}
