import { describe, expect, it } from 'vitest';
import {
  firstLogonCommandLine,
  firstLogonScript,
  generalizeScript,
  generateAdministratorPassword,
  installConfigFiles,
  NODE_FIREWALL_RULES,
  windowsComputerName,
} from '../../../../src/provider/libvirt/windows/index.js';
import { formatPowerShellErrors, parsePowerShell } from '../../../helpers/parse-powershell.js';

const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB0wWq kubemix cluster key (it's ours)";

async function expectParses(where: string, source: string) {
  expect(formatPowerShellErrors(where, await parsePowerShell(source))).toBe('');
}

/** The -Command argument of the FirstLogonCommands line (between the outer double quotes). */
function commandArgument(commandLine: string): string {
  const match = /-Command "(.*)"$/.exec(commandLine);
  if (!match) throw new Error(`no -Command "..." in ${commandLine}`);
  return match[1]!;
}

describe('first-logon script', () => {
  it('parses as PowerShell, with and without OpenSSH, and so do the command line and the generalize script', async () => {
    await expectParses('first-logon.ps1 (winrm)', firstLogonScript());
    await expectParses('first-logon.ps1 (ssh)', firstLogonScript({ sshAuthorizedKey: KEY }));
    await expectParses('FirstLogonCommands -Command', commandArgument(firstLogonCommandLine()));
    await expectParses('generalize.ps1', generalizeScript());
  });

  it('keeps WinRM at Windows defaults: Basic and AllowUnencrypted set false, never true', () => {
    const script = firstLogonScript({ sshAuthorizedKey: KEY });
    expect(script).toContain("Set-Item -Path 'WSMan:\\localhost\\Service\\AllowUnencrypted' -Value $false");
    expect(script).toContain("Set-Item -Path 'WSMan:\\localhost\\Service\\Auth\\Basic' -Value $false");
    expect(script).not.toMatch(
      /AllowUnencrypted[^\n]*\$true|Basic[^\n]*\$true|-Transport HTTPS|auth\/basic/i,
    );
    expect(script).toContain('Set-NetConnectionProfile -NetworkCategory Private');
  });

  it('opens kubelet, VXLAN and the NodePort range', () => {
    const script = firstLogonScript();
    expect(NODE_FIREWALL_RULES.map((r) => `${r.protocol} ${r.port}`)).toEqual([
      'TCP 10250',
      'UDP 4789',
      'TCP 30000-32767',
      'UDP 30000-32767',
    ]);
    for (const rule of NODE_FIREWALL_RULES)
      expect(script).toContain(`-Protocol ${rule.protocol} -LocalPort ${rule.port} -Action Allow`);
  });

  it('installs OpenSSH only for SSH groups, with the key quoted and the Administrators + SYSTEM ACL', () => {
    expect(firstLogonScript()).not.toContain('OpenSSH');
    const script = firstLogonScript({ sshAuthorizedKey: KEY });
    expect(script).toContain("Add-WindowsCapability -Online -Name 'OpenSSH.Server~~~~0.0.1.0'");
    // Server 2025 has sshd already, and its firewall rule for Domain and Private only.
    expect(script).toContain("if (-not (Get-Service -Name 'sshd' -ErrorAction SilentlyContinue)) {");
    expect(script).toContain("Set-NetFirewallRule -Name 'OpenSSH-Server-In-TCP' -Enabled True -Profile Any");
    // The key's quote is doubled inside a single-quoted literal (psQuote).
    expect(script).toContain("'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB0wWq kubemix cluster key (it''s ours)'");
    expect(script).toContain("/inheritance:r /grant '*S-1-5-32-544:F' /grant '*S-1-5-18:F'");
  });

  it('forgets the autologon password and the cached answer files', () => {
    const script = firstLogonScript();
    expect(script).toContain('-Name DefaultPassword');
    expect(script).toContain("'C:\\Windows\\Panther\\unattend.xml'");
  });

  it('holds no password: the config CD carries it in Autounattend.xml only', () => {
    const password = generateAdministratorPassword();
    const files = installConfigFiles({
      nodeName: 'windows-workers-01',
      computerName: windowsComputerName('windows-workers-01'),
      version: '2022',
      image: { index: 3 },
      administratorPassword: password,
      devices: 'emulated',
      sshAuthorizedKey: KEY,
    });
    expect(files.map((f) => f.path)).toEqual(['Autounattend.xml', 'kubemix/first-logon.ps1']);
    expect(files.filter((f) => f.content.includes(password)).map((f) => f.path)).toEqual([
      'Autounattend.xml',
    ]);
  });

  it('refuses a script name that would need quoting in the command line', () => {
    expect(() => firstLogonCommandLine("x'; Remove-Item C:\\ -Recurse; '")).toThrow(TypeError);
  });
});
