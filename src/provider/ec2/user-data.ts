// The one quoting helpers: POSIX as the playbooks' `quote` filter writes words, and PowerShell.
import { psQuote, shQuoteArgument } from '../../quote/index.js';
import { cloudInitYaml } from '../cloud-init-yaml.js';

/** The user cloud-init creates on Linux instances; kubemix logs in as it with the cluster key. */
export const LINUX_USER = 'kubemix';

/**
 * Linux user data of one instance group (one RunInstances, one user data for every instance): a
 * cloud-config (cloud-init docs, "Module reference": users, runcmd) that creates the kubemix user
 * with passwordless sudo and the cluster key, and names each host after its launch index
 * (`cloud-init query ds.meta_data.ami_launch_index`; cloud-init docs, "Instance metadata": keys
 * with hyphens are also given with underscores).
 */
export function linuxUserData(options: { hostnames: string[]; publicKey: string }): string {
  const names = options.hostnames.map(shQuoteArgument).join(' ');
  const config = {
    runcmd: [
      [
        'sh',
        '-c',
        `set -- ${names}; shift "$(cloud-init query ds.meta_data.ami_launch_index)"; hostnamectl set-hostname "$1"`,
      ],
    ],
    users: [
      'default',
      {
        name: LINUX_USER,
        gecos: 'kubemix',
        shell: '/bin/bash',
        sudo: 'ALL=(ALL) NOPASSWD:ALL',
        lock_passwd: true,
        ssh_authorized_keys: [options.publicKey.trim()],
      },
    ],
  };
  return `#cloud-config\n${cloudInitYaml(config)}`;
}

/** What a Windows instance's first boot sets up. */
export interface WindowsUserDataOptions {
  /** Computer names by launch index (<= 15 characters each: NetBIOS). */
  computerNames: string[];
  /** `http`: 5985, NTLM with message encryption (Windows' defaults); `https`: 5986 with `certificate`. */
  winrm: 'http' | 'https';
  /** PKCS#12 (no password) of the WinRM HTTPS certificate, base64; required for https. */
  certificatePfxBase64?: string;
  /** The cluster's public key: OpenSSH Server is installed and trusts it (groups over SSH). */
  sshPublicKey?: string;
}

/** NetBIOS computer names: at most 15 letters, digits and hyphens. */
export const isWindowsComputerName = (name: string): boolean => /^[A-Za-z0-9-]{1,15}$/.test(name);

const firewallRule = (name: string, protocol: 'TCP' | 'UDP', port: string) =>
  `New-NetFirewallRule -Name ${psQuote(name)} -DisplayName ${psQuote(name)} -Direction Inbound -Protocol ${protocol} -LocalPort ${port} -Action Allow -Profile Any | Out-Null`;

/**
 * Windows user data (`<powershell>`, run once by EC2Launch at first boot as Administrator/SYSTEM;
 * docs.aws.amazon.com/AWSEC2/latest/WindowsGuide/ec2-windows-user-data.html). It makes WinRM
 * ready for kubemix without ever enabling Basic or unencrypted traffic, opens the firewall for
 * kubemix and for cluster traffic (the security group limits both), installs OpenSSH Server with
 * the cluster key when asked, and renames the computer last (it needs a restart).
 */
export function windowsUserData(options: WindowsUserDataOptions): string {
  for (const name of options.computerNames)
    if (!isWindowsComputerName(name))
      throw new TypeError(`not a Windows computer name (<= 15 letters, digits, "-"): ${name}`);
  const lines = [
    '<powershell>',
    "$ErrorActionPreference = 'Stop'",
    // IMDSv2 (the instances require tokens): this instance's place in its RunInstances call.
    "$kmToken = Invoke-RestMethod -Method Put -Uri 'http://169.254.169.254/latest/api/token' -Headers @{ 'X-aws-ec2-metadata-token-ttl-seconds' = '300' }",
    "$kmIndex = [int](Invoke-RestMethod -Uri 'http://169.254.169.254/latest/meta-data/ami-launch-index' -Headers @{ 'X-aws-ec2-metadata-token' = $kmToken })",
    `$kmName = @(${options.computerNames.map(psQuote).join(', ')})[$kmIndex]`,
    // EC2 networks are classified Public; the listener must exist whatever the profile.
    'Enable-PSRemoting -Force -SkipNetworkProfileCheck | Out-Null',
    'Set-Item -Path WSMan:\\localhost\\Service\\AllowUnencrypted -Value $false',
    'Set-Item -Path WSMan:\\localhost\\Service\\Auth\\Basic -Value $false',
  ];
  if (options.winrm === 'https') {
    if (!options.certificatePfxBase64) throw new TypeError('winrm https needs the certificate');
    lines.push(
      `$kmPfx = Join-Path $env:TEMP 'kubemix-winrm.pfx'`,
      `[IO.File]::WriteAllBytes($kmPfx, [Convert]::FromBase64String(${psQuote(options.certificatePfxBase64)}))`,
      '$kmCert = Import-PfxCertificate -FilePath $kmPfx -CertStoreLocation Cert:\\LocalMachine\\My',
      'Remove-Item -Path $kmPfx -Force',
      'New-Item -Path WSMan:\\localhost\\Listener -Transport HTTPS -Address * -CertificateThumbPrint $kmCert.Thumbprint -Force | Out-Null',
      firewallRule('kubemix-winrm-https', 'TCP', '5986'),
    );
  } else {
    lines.push(firewallRule('kubemix-winrm-http', 'TCP', '5985'));
  }
  if (options.sshPublicKey !== undefined) {
    lines.push(
      'Add-WindowsCapability -Online -Name OpenSSH.Server~~~~0.0.1.0 | Out-Null',
      'Set-Service -Name sshd -StartupType Automatic',
      'Start-Service -Name sshd',
      `$kmKeys = 'C:\\ProgramData\\ssh\\administrators_authorized_keys'`,
      `Set-Content -Path $kmKeys -Value ${psQuote(options.sshPublicKey.trim())} -Encoding ascii`,
      // OpenSSH for Windows ignores the file unless only Administrators and SYSTEM can write it.
      "icacls.exe $kmKeys /inheritance:r /grant 'Administrators:F' /grant 'SYSTEM:F' | Out-Null",
      firewallRule('kubemix-ssh', 'TCP', '22'),
    );
  }
  lines.push(
    firewallRule('kubemix-kubelet', 'TCP', '10250'),
    firewallRule('kubemix-vxlan', 'UDP', '4789'),
    firewallRule('kubemix-nodeports', 'TCP', '30000-32767'),
    'if ($env:COMPUTERNAME -ne $kmName) {',
    '  Rename-Computer -NewName $kmName -Force',
    '  Restart-Computer -Force',
    '}',
    '</powershell>',
  );
  return `${lines.join('\n')}\n`;
}
