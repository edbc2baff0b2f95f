import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { linuxUserData, windowsUserData } from '../../../src/provider/ec2/user-data.js';
import { parsePowerShell } from '../../helpers/parse-powershell.js';

const KEY = 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 kubemix@lab';

describe('Linux user data (cloud-config)', () => {
  const text = linuxUserData({ hostnames: ['linux-01', 'linux-02'], publicKey: `${KEY}\n` });
  const config = parse(text) as {
    users: (string | Record<string, unknown>)[];
    runcmd: string[][];
  };

  it('is a #cloud-config that keeps the image default user and adds kubemix with the cluster key', () => {
    expect(text.startsWith('#cloud-config\n')).toBe(true);
    expect(config.users[0]).toBe('default');
    expect(config.users[1]).toMatchObject({
      name: 'kubemix',
      sudo: 'ALL=(ALL) NOPASSWD:ALL',
      lock_passwd: true,
      ssh_authorized_keys: [KEY],
    });
  });

  it('names each host after its launch index, names quoted for sh (the quote filter)', () => {
    const [command] = config.runcmd;
    expect(command?.slice(0, 2)).toEqual(['sh', '-c']);
    expect(linuxUserData({ hostnames: ["o'dd"], publicKey: KEY })).toContain(`set -- 'o'\\''dd';`);
    expect(command?.[2]).toBe(
      'set -- linux-01 linux-02; shift "$(cloud-init query ds.meta_data.ami_launch_index)"; hostnamectl set-hostname "$1"',
    );
  });
});

describe('Windows user data (<powershell>)', () => {
  const body = (text: string) => text.replace(/^<powershell>\n/, '').replace(/<\/powershell>\n$/, '');

  it('HTTP: the listener with Windows defaults (NTLM message encryption), never Basic or unencrypted', async () => {
    const text = windowsUserData({ computerNames: ['win-01', 'win-02'], winrm: 'http' });
    expect(text.startsWith('<powershell>\n')).toBe(true);
    expect(text.endsWith('</powershell>\n')).toBe(true);
    expect(await parsePowerShell(body(text))).toEqual([]);
    expect(text).toContain('Set-Item -Path WSMan:\\localhost\\Service\\AllowUnencrypted -Value $false');
    expect(text).toContain('Set-Item -Path WSMan:\\localhost\\Service\\Auth\\Basic -Value $false');
    expect(text).not.toMatch(/\$true/);
    expect(text).toContain('-LocalPort 5985');
    expect(text).not.toContain('5986');
    expect(text).toContain("$kmName = @('win-01', 'win-02')[$kmIndex]");
    expect(text).not.toContain('sshd');
  });

  it('HTTPS: imports the pinned certificate and listens on 5986 only', async () => {
    const text = windowsUserData({ computerNames: ['win-01'], winrm: 'https', certificatePfxBase64: 'TUlJ' });
    expect(await parsePowerShell(body(text))).toEqual([]);
    expect(text).toContain("[Convert]::FromBase64String('TUlJ')");
    expect(text).toContain('-Transport HTTPS -Address * -CertificateThumbPrint $kmCert.Thumbprint');
    expect(text).toContain('-LocalPort 5986');
    expect(text).not.toContain('-LocalPort 5985');
  });

  it('SSH groups: OpenSSH Server trusting the cluster key, file readable by Administrators and SYSTEM only', async () => {
    const text = windowsUserData({ computerNames: ['win-01'], winrm: 'http', sshPublicKey: KEY });
    expect(await parsePowerShell(body(text))).toEqual([]);
    expect(text).toContain('Add-WindowsCapability -Online -Name OpenSSH.Server~~~~0.0.1.0');
    expect(text).toContain(`Set-Content -Path $kmKeys -Value '${KEY}' -Encoding ascii`);
    expect(text).toContain("/inheritance:r /grant 'Administrators:F' /grant 'SYSTEM:F'");
    expect(text).toContain('-LocalPort 22 ');
  });

  it('refuses computer names Windows cannot take', () => {
    expect(() => windowsUserData({ computerNames: ['windows-workers-01'], winrm: 'http' })).toThrow(
      /not a Windows computer name/,
    );
  });
});
