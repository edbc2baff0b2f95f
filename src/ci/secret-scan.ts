import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { REDACTED } from '../engine/redactor.js';
import type { SecretFinding } from './summary-types.js';

/**
 * A kind of secret the scan recognises: `pattern` matches where one is; the secret itself is the
 * named group `secret` (or the whole match), which is what gets replaced.
 */
interface SecretPattern {
  kind: string;
  pattern: RegExp;
}

/**
 * What the scan looks for, each from its source. Contextual where the bare form would match public
 * values too (a certificate key is 64 hex digits, like every SHA-256 digest in versions.json).
 */
export const SECRET_PATTERNS: readonly SecretPattern[] = [
  // Bootstrap tokens `[a-z0-9]{6}.[a-z0-9]{16}`: kubernetes.io/docs/reference/access-authn-authz/bootstrap-tokens/ ("Token Format").
  {
    kind: 'kubeadm join token',
    pattern: /(?<![A-Za-z0-9.])(?<secret>[a-z0-9]{6}\.[a-z0-9]{16})(?![A-Za-z0-9])/g,
  },
  // The key `kubeadm init --upload-certs` / `init phase upload-certs` prints and `join --certificate-key`
  // takes: 32 bytes as hex (kubernetes.io/docs/reference/setup-tools/kubeadm/kubeadm-join/, "--certificate-key").
  {
    kind: 'kubeadm certificate key',
    pattern:
      /(?:certificate[-_ ]?key["']?\s*[:= ]\s*["']?|Using certificate key:\s*)(?<secret>[0-9a-fA-F]{64})(?![0-9a-fA-F])/gi,
  },
  // kubeconfig credentials (kubernetes.io/docs/reference/config-api/kubeconfig.v1/, AuthInfo).
  {
    kind: 'kubeconfig credential',
    pattern:
      /(?<![A-Za-z0-9])(?:client-key-data|token)["']?[ \t]*:[ \t]*["']?(?<secret>[A-Za-z0-9+/=._-]{16,})/g,
  },
  // AWS access key IDs: AKIA (long-term) and ASIA (temporary) + 16 characters
  // (docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html, "Understand unique ID prefixes").
  { kind: 'AWS access key ID', pattern: /(?<![A-Z0-9])(?<secret>(?:AKIA|ASIA)[A-Z0-9]{16})(?![A-Z0-9])/g },
  // Secret access keys: 40 characters of base64, named as the CLI's config and environment name them
  // (docs.aws.amazon.com/cli/latest/userguide/cli-configure-envvars.html).
  {
    kind: 'AWS secret access key',
    pattern: /aws_?secret_?access_?key["']?\s*[:=]\s*["']?(?<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
  },
  // A password spelled out on one line: `password: x`, `WINDOWS_PASSWORD=x`, `"password": "x"`, or
  // PowerShell's `-Password x` (not a reference such as `password: { env: NAME }`, nor `***`).
  {
    kind: 'password',
    pattern:
      /(?<![A-Za-z0-9_-])(?:[A-Za-z0-9]+_)*(?:password|passwd)["']?[ \t]*[:=][ \t]*["']?(?<secret>(?![{[*<$(]|(?:null|true|false|none)\b)[^\s"',;{}]{4,})/gi,
  },
  {
    kind: 'password',
    pattern: /(?<![A-Za-z0-9_])-(?:Password|PlainPassword)[ \t]+["']?(?<secret>(?![{[*<$(])[^\s"',;{}]{4,})/g,
  },
  // Last, as it spans lines. PEM private keys (RFC 7468 labels: PRIVATE KEY, RSA/EC PRIVATE KEY, ENCRYPTED PRIVATE KEY;
  // OpenSSH's "OPENSSH PRIVATE KEY"). The body is the secret; the armour lines stay to say what was there.
  {
    kind: 'private key',
    pattern: /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY-----(?<secret>[\s\S]*?)-----END \1PRIVATE KEY-----/g,
  },
];

/** What scanning one text found: the findings and the text with them replaced. */
export interface TextScan {
  redacted: string;
  findings: { line: number; kind: string }[];
}

/**
 * Finds the patterns and the run's own known secret values (join tokens, certificate keys and
 * passwords the engine learnt, as `secretFragments` cuts them) in a text, and replaces each with
 * `***`. Known values come first: they are exact.
 */
export function scanText(text: string, knownSecrets: readonly string[]): TextScan {
  const found: { line: number; kind: string }[] = [];
  let redacted = text;
  const known = [...new Set(knownSecrets)].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  for (const secret of known) {
    let at = redacted.indexOf(secret);
    while (at >= 0) {
      found.push({ line: lineOf(redacted, at), kind: 'secret value of this run' });
      redacted = redacted.slice(0, at) + REDACTED + redacted.slice(at + secret.length);
      at = redacted.indexOf(secret, at + REDACTED.length);
    }
  }
  for (const { kind, pattern } of SECRET_PATTERNS) {
    const before = redacted;
    redacted = redacted.replace(pattern, (...args: unknown[]) => {
      const match = args[0] as string;
      const offset = args.at(-3) as number;
      const groups = args.at(-1) as { secret?: string } | undefined;
      const secret = groups?.secret ?? match;
      if (secret.trim() === '' || secret === REDACTED) return match;
      found.push({ line: lineOf(before, offset), kind });
      const start = match.lastIndexOf(secret);
      return match.slice(0, start) + REDACTED + match.slice(start + secret.length);
    });
  }
  return { redacted, findings: found.sort((a, b) => a.line - b.line) };
}

// Line numbers stay right: every replacement before the last (multi-line) pattern keeps the lines.
const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

/**
 * Scans every file under `dir` (recursively) and rewrites the ones with findings redacted.
 * Returns what was found (file relative to `dir`, line, kind; never the value).
 */
export async function scanDirectory(
  dir: string,
  knownSecrets: readonly string[],
): Promise<{ filesScanned: number; findings: SecretFinding[] }> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  const findings: SecretFinding[] = [];
  for (const path of files.sort()) {
    const text = await readFile(path, 'utf8');
    const scan = scanText(text, knownSecrets);
    if (scan.findings.length === 0) continue;
    await writeFile(path, scan.redacted);
    for (const finding of scan.findings) findings.push({ file: relative(dir, path), ...finding });
  }
  return { filesScanned: files.length, findings };
}
