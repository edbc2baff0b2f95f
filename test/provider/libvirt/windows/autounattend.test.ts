import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  autounattendXml,
  generalizeUnattendXml,
  generateAdministratorPassword,
  specializeUnattendXml,
  type WindowsGuest,
  windowsComputerName,
} from '../../../../src/provider/libvirt/windows/index.js';
import { checkUnattend, type FoundComponent } from '../../../helpers/unattend-reference.js';

const guest = (over: Partial<WindowsGuest> = {}): WindowsGuest => ({
  nodeName: 'windows-workers-01',
  computerName: windowsComputerName('windows-workers-01'),
  version: '2022',
  image: { name: 'Windows Server 2022 SERVERDATACENTERCORE' },
  administratorPassword: generateAdministratorPassword(),
  devices: 'virtio',
  ...over,
});

const component = (found: FoundComponent[], pass: string, name: string) => {
  const c = found.find((f) => f.pass === pass && f.name === name);
  if (!c) throw new Error(`no ${name} in ${pass}`);
  // biome-ignore lint/suspicious/noExplicitAny: parsed answer-file settings, navigated by the reference's names
  return c.settings as Record<string, any>;
};

const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

describe('Autounattend.xml', () => {
  it('conforms to the unattend reference: each component and setting in a pass the reference allows', () => {
    for (const [devices, version] of [
      ['virtio', '2022'],
      ['emulated', '2022'],
      ['virtio', '2025'],
      ['emulated', '2025'],
    ] as const) {
      const image = { name: `Windows Server ${version} SERVERDATACENTERCORE` };
      const { problems, components } = checkUnattend(autounattendXml(guest({ devices, version, image })));
      expect(problems).toEqual([]);
      expect(components.map((c) => `${c.pass}:${c.name}`)).toEqual([
        'windowsPE:Microsoft-Windows-International-Core-WinPE',
        ...(devices === 'virtio' ? ['windowsPE:Microsoft-Windows-PnpCustomizationsWinPE'] : []),
        'windowsPE:Microsoft-Windows-Setup',
        'specialize:Microsoft-Windows-Shell-Setup',
        'oobeSystem:Microsoft-Windows-Shell-Setup',
        'oobeSystem:Microsoft-Windows-International-Core',
      ]);
    }
  });

  it('puts the virtio drivers of the right OS folder in DriverPaths, and none without virtio', () => {
    for (const [version, folder] of [
      ['2019', '2k19'],
      ['2022', '2k22'],
      ['2025', '2k25'],
    ] as const) {
      const { components } = checkUnattend(autounattendXml(guest({ version })));
      const items = component(components, 'windowsPE', 'Microsoft-Windows-PnpCustomizationsWinPE').DriverPaths
        .PathAndCredentials as { Path: string; '@_wcm:keyValue': string }[];
      expect(items.map((i) => i.Path)).toEqual([
        `E:\\viostor\\${folder}\\amd64`,
        `E:\\NetKVM\\${folder}\\amd64`,
      ]);
      expect(new Set(items.map((i) => i['@_wcm:keyValue'])).size).toBe(items.length);
    }
    const emulated = autounattendXml(guest({ devices: 'emulated' }));
    expect(emulated).not.toContain('DriverPaths');
  });

  it('selects the image by name or index, with no product key, on an MBR layout installed to partition 2', () => {
    const byIndex = checkUnattend(autounattendXml(guest({ image: { index: 4 } }))).components;
    const setup = component(byIndex, 'windowsPE', 'Microsoft-Windows-Setup');
    expect(setup.ImageInstall.OSImage.InstallFrom.MetaData).toMatchObject({
      Key: '/IMAGE/INDEX',
      Value: '4',
    });
    expect(setup.ImageInstall.OSImage.InstallTo).toEqual({ DiskID: '0', PartitionID: '2' });
    expect(setup.UserData.ProductKey).toEqual({ WillShowUI: 'Never' });
    expect(setup.UserData.AcceptEula).toBe('true');
    const [system, windows] = setup.DiskConfiguration.Disk.ModifyPartitions.ModifyPartition;
    expect(system).toMatchObject({ PartitionID: '1', Active: 'true', Format: 'NTFS' });
    expect(windows).toMatchObject({ PartitionID: '2', Letter: 'C', Format: 'NTFS' });
    const byName = checkUnattend(autounattendXml(guest())).components;
    expect(
      component(byName, 'windowsPE', 'Microsoft-Windows-Setup').ImageInstall.OSImage.InstallFrom.MetaData,
    ).toMatchObject({ Key: '/IMAGE/NAME', Value: 'Windows Server 2022 SERVERDATACENTERCORE' });
  });

  it('names the computer in specialize and logs on once in oobeSystem, running the first-logon script', () => {
    const g = guest();
    const { components } = checkUnattend(autounattendXml(g));
    expect(component(components, 'specialize', 'Microsoft-Windows-Shell-Setup').ComputerName).toBe(
      g.computerName,
    );
    const oobe = component(components, 'oobeSystem', 'Microsoft-Windows-Shell-Setup');
    expect(oobe.AutoLogon).toMatchObject({ Username: 'Administrator', Enabled: 'true', LogonCount: '1' });
    const command = oobe.FirstLogonCommands.SynchronousCommand;
    expect(command).toMatchObject({ Order: '1', RequiresUserInput: 'false' });
    // SynchronousCommand/CommandLine: "a string with a maximum length of 1024 characters".
    expect(command.CommandLine.length).toBeLessThanOrEqual(1024);
    expect(command.CommandLine).toContain('kubemix\\first-logon.ps1');
  });

  it('writes the password exactly where Windows needs it and nowhere else, escaped as XML', () => {
    const password = `Pa<ss>&"word'${'x'.repeat(8)}`;
    const xml = autounattendXml(guest({ administratorPassword: password }));
    expect(xml).not.toContain(password);
    const { problems, components } = checkUnattend(xml);
    expect(problems).toEqual([]);
    const oobe = component(components, 'oobeSystem', 'Microsoft-Windows-Shell-Setup');
    expect(oobe.UserAccounts.AdministratorPassword).toEqual({ Value: password, PlainText: 'true' });
    expect(oobe.AutoLogon.Password).toEqual({ Value: password, PlainText: 'true' });
    const generated = guest();
    expect(occurrences(autounattendXml(generated), generated.administratorPassword)).toBe(2);
  });

  describe('while being built', () => {
    const written: string[] = [];
    beforeEach(() => {
      written.length = 0;
      for (const stream of [process.stdout, process.stderr])
        vi.spyOn(stream, 'write').mockImplementation((chunk: unknown) => {
          written.push(String(chunk));
          return true;
        });
      for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const)
        vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
          written.push(args.map(String).join(' '));
        });
    });
    afterEach(() => vi.restoreAllMocks());

    it('logs nothing (so no password reaches a log)', () => {
      const g = guest({ sshAuthorizedKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB kubemix' });
      autounattendXml(g);
      specializeUnattendXml({ computerName: g.computerName, administratorPassword: g.administratorPassword });
      expect(written).toEqual([]);
    });
  });
});

describe('golden image answer files', () => {
  it('specialize file: only specialize and oobeSystem, new name and new password', () => {
    const password = generateAdministratorPassword();
    const xml = specializeUnattendXml({ computerName: 'win-b2c4', administratorPassword: password });
    const { problems, components } = checkUnattend(xml);
    expect(problems).toEqual([]);
    expect([...new Set(components.map((c) => c.pass))]).toEqual(['specialize', 'oobeSystem']);
    expect(component(components, 'specialize', 'Microsoft-Windows-Shell-Setup').ComputerName).toBe(
      'win-b2c4',
    );
    expect(occurrences(xml, password)).toBe(2);
  });

  it('generalize file keeps the installed drivers (PnpSysprep in generalize)', () => {
    const { problems, components } = checkUnattend(generalizeUnattendXml());
    expect(problems).toEqual([]);
    expect(component(components, 'generalize', 'Microsoft-Windows-PnpSysprep')).toMatchObject({
      PersistAllDeviceInstalls: 'true',
      DoNotCleanUpNonPresentDevices: 'true',
    });
  });
});

describe('the reference check itself', () => {
  it('refuses a setting in a pass the reference does not allow, and a list item without wcm:action', () => {
    const xml = autounattendXml(guest())
      .replace('<settings pass="specialize">', '<settings pass="windowsPE">')
      .replace('<SynchronousCommand wcm:action="add">', '<SynchronousCommand>');
    const { problems } = checkUnattend(xml);
    expect(problems).toContain(
      'windowsPE/Microsoft-Windows-Shell-Setup: ComputerName is not valid in pass windowsPE (valid: offlineServicing, specialize)',
    );
    expect(problems).toContain(
      'oobeSystem/Microsoft-Windows-Shell-Setup/FirstLogonCommands/SynchronousCommand: list item without wcm:action="add"',
    );
  });
});
