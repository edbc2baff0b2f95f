import { isIP } from 'node:net';

/**
 * What a spec (or inventory) value may look like, by kind. Values become command arguments,
 * file names, kubelet flags and PowerShell arguments on hosts and on the machine running
 * kubemix; quoting keeps them literal, and these patterns refuse what is never a real address,
 * user, version or flag. Plain predicates and messages: the spec schema and the inventory
 * reader share them. Messages never repeat the value (it may be close to a secret).
 */

/** RFC 1123 section 2.1 host names (RFC 952 relaxed to allow a leading digit): dot-separated labels of letters, digits and inner hyphens, at most 63 each, 253 in all. */
const DNS_NAME =
  /^(?=.{1,253}\.?$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

/**
 * True for an IPv4 address, an IPv6 address (RFC 4291 section 2.2 text forms, no zone) or a DNS
 * host name. A name whose last label is all digits must be an IP address (RFC 1123 section 2.1:
 * the highest-level label of a host name is alphabetic), so `256.1.1.1` is refused.
 */
export function isHostAddress(value: string): boolean {
  if (isIP(value) !== 0) return true;
  return DNS_NAME.test(value) && !/(^|\.)\d+\.?$/.test(value);
}

export const HOST_ADDRESS_MESSAGE =
  'must be an IPv4 or IPv6 address or a DNS name (letters, digits, "-" and ".")';

/**
 * `host[:port]` with an IPv6 host in brackets (`[fd00::1]:6443`), as kubeadm's
 * controlPlaneEndpoint takes it. Returns undefined when it is not one.
 */
export function parseHostPort(value: string): { host: string; port?: number } | undefined {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(value);
  const plain = /^([^:[\]]+)(?::(\d{1,5}))?$/.exec(value);
  const match = bracketed ?? plain;
  if (!match) return isIP(value) === 6 ? { host: value } : undefined;
  const host = match[1]!;
  if (bracketed ? isIP(host) !== 6 : !isHostAddress(host)) return undefined;
  if (match[2] === undefined) return { host };
  const port = Number(match[2]);
  return port >= 1 && port <= 65535 ? { host, port } : undefined;
}

export const ENDPOINT_MESSAGE =
  'must be host[:port]: an IP address or DNS name, IPv6 in brackets ([fd00::1]:6443), port 1-65535';

/**
 * POSIX portable user names: characters of the portable filename character set (A-Z a-z 0-9
 * . _ -), not starting with "-" (POSIX.1-2017 Base Definitions 3.437 "User Name" and 3.282
 * "Portable Filename Character Set").
 */
const POSIX_USER = /^[A-Za-z0-9._][A-Za-z0-9._-]{0,31}$/;

/**
 * Windows account names as kubemix accepts them: `name`, `DOMAIN\name` (down-level logon name)
 * or `name@dns.domain` (UPN), per Microsoft "User Name Formats"
 * (learn.microsoft.com/windows/win32/secauthn/user-name-formats). The name part follows
 * SAM-Account-Name (learn.microsoft.com/windows/win32/adschema/a-samaccountname: at most 20
 * characters, none of " / \ [ ] : ; | = , + * ? < >), narrowed to letters, digits, ".", "_",
 * "-" and inner spaces; the NetBIOS domain to 15 characters ("Naming conventions in Active
 * Directory", learn.microsoft.com/troubleshoot/windows-server/active-directory/naming-conventions-for-computer-domain-site-ou).
 */
const WINDOWS_NAME = '[A-Za-z0-9._](?:[A-Za-z0-9._ -]{0,18}[A-Za-z0-9._-])?';
const WINDOWS_USER = new RegExp(
  String.raw`^(?:(?:[A-Za-z0-9][A-Za-z0-9._-]{0,14})\\)?${WINDOWS_NAME}$|^${WINDOWS_NAME}@[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$`,
);

/** True for a POSIX portable user name or a Windows account name (plain, DOMAIN\name, name@domain). */
export function isUserName(value: string): boolean {
  return POSIX_USER.test(value) || WINDOWS_USER.test(value);
}

export const USER_NAME_MESSAGE =
  'must be a user name: letters, digits, ".", "_", "-" (not first), or a Windows account as name, DOMAIN\\name or name@domain';

/**
 * Versions and pinned references: Kubernetes and containerd versions, Debian package versions
 * (Debian Policy 5.6.12: A-Z a-z 0-9 . + ~ : -), git commits, and OCI image references
 * (distribution/reference grammar: lower-case names, "/", ":" tags, "@sha256:" digests).
 */
export const VERSION_OR_REF = /^[A-Za-z0-9][A-Za-z0-9._+~:/@-]{0,254}$/;

export function isVersionOrRef(value: string): boolean {
  return VERSION_OR_REF.test(value);
}

export const VERSION_MESSAGE =
  'must be a version, commit or image reference (letters, digits and . _ + ~ : / @ -)';

/**
 * A kubelet flag as `--name=value`, or a bare `--name` (a boolean flag switched on: kubeadm gets
 * the value "true", src/spec/kubelet-args.ts). The value keeps to characters that neither a POSIX
 * shell nor PowerShell acts on in an unquoted argument, because on Windows sig-windows-tools'
 * StartKubelet.ps1 (written by hostprocess/PrepareNode.ps1 at 6308ea8, lines 89-93) reads
 * kubeadm-flags.env into a double-quoted string and runs it with Invoke-Expression, and systemd
 * splits the Linux kubelet's $KUBELET_KUBEADM_ARGS at spaces.
 */
export const KUBELET_ARG = /^--[a-z0-9]+(?:-[a-z0-9]+)*(?:=[A-Za-z0-9._,:=/%+*@~-]*)?$/;

export function isKubeletArg(value: string): boolean {
  return KUBELET_ARG.test(value);
}

export const KUBELET_ARG_MESSAGE =
  'must be a kubelet flag --name=value (or --name for true), the value made of letters, digits and . _ , : = / % + * @ ~ - (the Windows kubelet starts through PowerShell Invoke-Expression, so nothing it would evaluate)';

/**
 * Environment variable names as POSIX.1-2017 Base Definitions 8.1 describes the portable ones:
 * letters, digits and underscore, not starting with a digit.
 */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function isEnvName(value: string): boolean {
  return ENV_NAME.test(value);
}

export const ENV_NAME_MESSAGE =
  'must be an environment variable name (letters, digits and _, not starting with a digit)';

/** Playbook variable names (Ansible's rule: a Python identifier, ASCII). */
const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function isVarName(value: string): boolean {
  return VAR_NAME.test(value);
}

export const VAR_NAME_MESSAGE = 'must be a variable name (letters, digits and _, not starting with a digit)';

/** C0 control characters and DEL: a newline or NUL in a name, path or address is never meant. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

/** `{{`, `{%`, `{#`: spec values are data, never templates (the plan's own steps are templates). */
const TEMPLATE_MARKER = /\{[{%#]/;

/** Why a plain spec string (a path, a name) cannot be used, or undefined when it can. */
export function plainTextProblem(value: string): string | undefined {
  if (CONTROL.test(value)) return 'must not contain control characters (newline, tab, NUL, ...)';
  if (TEMPLATE_MARKER.test(value))
    return 'must not contain {{, {% or {#: spec values are data, not templates (put templates in vars)';
  return undefined;
}
