import { psQuote } from '../../../quote/index.js';
import { WINDOWS_VXLAN_PORT } from '../../../spec/spec-defaults.js';

/** Where the config CD-ROM keeps kubemix's scripts (found by scanning drives: letters vary). */
export const CONFIG_SCRIPT_DIR = 'kubemix';
/** File name of the first-logon script on the config CD-ROM. */
export const FIRST_LOGON_SCRIPT = 'first-logon.ps1';

/** Where the guest records how first logon went; wait-for-hosts reads these over WinRM or SSH. */
export const GUEST_STATE_DIR = 'C:\\ProgramData\\kubemix';
/** Written last, after every step succeeded. */
export const FIRST_LOGON_DONE_MARKER = `${GUEST_STATE_DIR}\\first-logon.done`;
/** Written when a step failed, with the error message (never a secret: the script holds none). */
export const FIRST_LOGON_FAILED_MARKER = `${GUEST_STATE_DIR}\\first-logon.failed`;

/** kubelet's port (Kubernetes "Ports and Protocols": worker nodes, TCP 10250). */
export const KUBELET_PORT = 10250;
/** The NodePort range (Kubernetes "Ports and Protocols": TCP and UDP 30000-32767). */
export const NODE_PORT_RANGE = '30000-32767';

/** Inbound firewall rules a Windows node needs beyond WinRM: name, protocol, local port(s). */
export const NODE_FIREWALL_RULES: readonly { name: string; protocol: 'TCP' | 'UDP'; port: string }[] = [
  { name: 'kubemix-kubelet', protocol: 'TCP', port: String(KUBELET_PORT) },
  { name: 'kubemix-vxlan', protocol: 'UDP', port: String(WINDOWS_VXLAN_PORT) },
  { name: 'kubemix-nodeports-tcp', protocol: 'TCP', port: NODE_PORT_RANGE },
  { name: 'kubemix-nodeports-udp', protocol: 'UDP', port: NODE_PORT_RANGE },
];

/** Options of {@link firstLogonScript}. */
export interface FirstLogonOptions {
  /** One OpenSSH public key line: install OpenSSH Server and authorize it for Administrators. */
  sshAuthorizedKey?: string;
}

// Autologon wrote the password into Winlogon's DefaultPassword (Microsoft-Windows-Shell-Setup |
// AutoLogon); Windows Setup caches answer files in %WINDIR%\Panther (Microsoft Learn, "Windows
// Setup Automation Overview"). Neither copy is needed once the first logon has happened.
const FORGET_SETUP_SECRETS = [
  "$winlogon = 'HKLM:\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon'",
  "Set-ItemProperty -LiteralPath $winlogon -Name AutoAdminLogon -Value '0'",
  'Remove-ItemProperty -LiteralPath $winlogon -Name DefaultPassword -ErrorAction SilentlyContinue',
  'Remove-ItemProperty -LiteralPath $winlogon -Name AutoLogonCount -ErrorAction SilentlyContinue',
  "foreach ($cached in @('C:\\Windows\\Panther\\unattend.xml', 'C:\\Windows\\Panther\\Unattend\\unattend.xml', 'C:\\Windows\\Panther\\Unattend\\Autounattend.xml')) {",
  '  Remove-Item -LiteralPath $cached -Force -ErrorAction SilentlyContinue',
  '}',
];

// WinRM keeps Windows' defaults: the HTTP listener on 5985 with Negotiate (NTLM/Kerberos) and
// message encryption; AllowUnencrypted and Basic stay false (Microsoft Learn, "Installation and
// configuration for Windows Remote Management": the defaults, and quickconfig's listener and
// firewall exception). quickconfig refuses Public networks, so the profile becomes Private first
// (Set-NetConnectionProfile, NetSecurity/NetConnection modules).
const NETWORK_AND_WINRM = [
  "Get-NetConnectionProfile | Where-Object { $_.NetworkCategory -ne 'DomainAuthenticated' } | Set-NetConnectionProfile -NetworkCategory Private",
  'Set-WSManQuickConfig -Force | Out-Null',
  "Set-Item -Path 'WSMan:\\localhost\\Service\\AllowUnencrypted' -Value $false",
  "Set-Item -Path 'WSMan:\\localhost\\Service\\Auth\\Basic' -Value $false",
  "Enable-NetFirewallRule -Name 'WINRM-HTTP-In-TCP'",
];

function firewallLines(): string[] {
  return NODE_FIREWALL_RULES.flatMap((rule) => [
    `if (-not (Get-NetFirewallRule -Name ${psQuote(rule.name)} -ErrorAction SilentlyContinue)) {`,
    `  New-NetFirewallRule -Name ${psQuote(rule.name)} -DisplayName ${psQuote(`${rule.name} (${rule.protocol} ${rule.port})`)} -Direction Inbound -Protocol ${rule.protocol} -LocalPort ${rule.port} -Action Allow -Profile Any | Out-Null`,
    '}',
  ]);
}

// OpenSSH Server as a Windows capability, sshd automatic, PowerShell as its shell, and the key in
// administrators_authorized_keys readable by Administrators and SYSTEM only, which sshd requires
// for that file (Microsoft Learn, "Get started with OpenSSH for Windows", "OpenSSH Server
// configuration for Windows" (DefaultShell), "Key-based authentication in OpenSSH for Windows"
// (administrators_authorized_keys and its icacls grants)). SIDs keep icacls language-neutral.
// Windows Server 2025 ships OpenSSH Server installed (sshd stopped) with its OpenSSH-Server-In-TCP
// rule enabled for the Domain and Private profiles only (OpenNebula/one-apps#345): the capability
// is added only where sshd is missing, and an existing rule is opened to every profile.
function openSshLines(authorizedKey: string): string[] {
  return [
    "if (-not (Get-Service -Name 'sshd' -ErrorAction SilentlyContinue)) {",
    "  Add-WindowsCapability -Online -Name 'OpenSSH.Server~~~~0.0.1.0' | Out-Null",
    '}',
    "Set-Service -Name 'sshd' -StartupType Automatic",
    "New-ItemProperty -Path 'HKLM:\\SOFTWARE\\OpenSSH' -Name DefaultShell -PropertyType String -Force -Value 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe' | Out-Null",
    "Start-Service -Name 'sshd'",
    "$keys = Join-Path $env:ProgramData 'ssh\\administrators_authorized_keys'",
    `[IO.File]::WriteAllText($keys, ${psQuote(authorizedKey.trim())} + [char]10, (New-Object Text.UTF8Encoding $false))`,
    "& icacls.exe $keys /inheritance:r /grant '*S-1-5-32-544:F' /grant '*S-1-5-18:F' | Out-Null",
    'if ($LASTEXITCODE -ne 0) { throw "icacls on $keys failed with exit code $LASTEXITCODE" }',
    "if (Get-NetFirewallRule -Name 'OpenSSH-Server-In-TCP' -ErrorAction SilentlyContinue) {",
    "  Set-NetFirewallRule -Name 'OpenSSH-Server-In-TCP' -Enabled True -Profile Any",
    '} else {',
    "  New-NetFirewallRule -Name 'OpenSSH-Server-In-TCP' -DisplayName 'OpenSSH Server (sshd)' -Direction Inbound -Protocol TCP -LocalPort 22 -Action Allow -Profile Any | Out-Null",
    '}',
  ];
}

/**
 * The script the first logon runs (FirstLogonCommands start it from the config CD-ROM): forget
 * the autologon password and cached answer files, set the network profile to Private, make sure
 * WinRM listens with Windows' defaults (never Basic, never unencrypted), open the node's
 * firewall ports, install OpenSSH Server with the cluster key when the group uses SSH, and
 * leave a done (or failed) marker for wait-for-hosts. It holds no password.
 */
export function firstLogonScript(options: FirstLogonOptions = {}): string {
  const steps = [
    ...FORGET_SETUP_SECRETS,
    ...NETWORK_AND_WINRM,
    ...firewallLines(),
    ...(options.sshAuthorizedKey === undefined ? [] : openSshLines(options.sshAuthorizedKey)),
    `Set-Content -LiteralPath ${psQuote(FIRST_LOGON_DONE_MARKER)} -Value (Get-Date -Format o)`,
  ];
  return [
    '# kubemix first-logon v1',
    "$ErrorActionPreference = 'Stop'",
    "$ProgressPreference = 'SilentlyContinue'",
    `New-Item -ItemType Directory -Force -Path ${psQuote(GUEST_STATE_DIR)} | Out-Null`,
    `Remove-Item -LiteralPath ${psQuote(FIRST_LOGON_FAILED_MARKER)} -Force -ErrorAction SilentlyContinue`,
    'try {',
    ...steps.map((line) => `  ${line}`),
    '} catch {',
    `  Set-Content -LiteralPath ${psQuote(FIRST_LOGON_FAILED_MARKER)} -Value ($_ | Out-String)`,
    '  exit 1',
    '}',
    '',
  ].join('\r\n');
}

/**
 * The FirstLogonCommands command line: find `kubemix\first-logon.ps1` on whichever drive the
 * config CD-ROM got and run it (Kubeinit and rgl/windows-vagrant scan drives the same way).
 * It carries no value from the spec; CommandLine is limited to 1024 characters (Microsoft-
 * Windows-Shell-Setup | FirstLogonCommands | SynchronousCommand | CommandLine).
 */
export function firstLogonCommandLine(script = FIRST_LOGON_SCRIPT): string {
  if (!/^[\w.-]+$/.test(script)) throw new TypeError(`not a plain script file name: ${script}`);
  const relative = `${CONFIG_SCRIPT_DIR}\\${script}`;
  const find = [
    `$s = Get-PSDrive -PSProvider FileSystem | ForEach-Object { Join-Path $_.Root '${relative}' }`,
    'Where-Object { Test-Path -LiteralPath $_ } | Select-Object -First 1',
  ].join(' | ');
  return `powershell.exe -NoProfile -NonInteractive -ExecutionPolicy Bypass -Command "${find}; if (-not $s) { exit 3 }; & $s; exit $LASTEXITCODE"`;
}
