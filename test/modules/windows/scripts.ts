import type { Module, ModuleAction } from '../../../src/modules/types.js';
import { probeScript } from '../../../src/modules/windows/install-content.js';
import { winCommandModule } from '../../../src/modules/windows/win-command.js';
import { winFeatureModule } from '../../../src/modules/windows/win-feature.js';
import { winFileModule } from '../../../src/modules/windows/win-file.js';
import { winGetUrlModule } from '../../../src/modules/windows/win-get-url.js';
import { winPathModule } from '../../../src/modules/windows/win-path.js';
import {
  bootTimeScript,
  parseWinRebootArgs,
  scheduleRebootScript,
  testCommandScript,
} from '../../../src/modules/windows/win-reboot.js';
import { winServiceModule } from '../../../src/modules/windows/win-service.js';
import { winShellModule } from '../../../src/modules/windows/win-shell.js';
import { winWaitForModule } from '../../../src/modules/windows/win-wait-for.js';
import { windowsContext } from './helpers.js';

/** The first exec action a module yields for some arguments. */
// biome-ignore lint/suspicious/noExplicitAny: any module, whatever its argument type
function firstExec(module: Module<any>, raw: Record<string, unknown>, check = false): string {
  const run = module.run(module.parseArgs(raw), windowsContext({ checkMode: check }));
  const next = run.next();
  if (next.done || next.value.kind !== 'exec') throw new Error(`${module.name} yielded no exec action first`);
  return (next.value as Extract<ModuleAction, { kind: 'exec' }>).command;
}

/** Every script shape the Windows modules generate, with representative arguments (name -> script). */
export function representativeScripts(): Record<string, string> {
  const reboot = parseWinRebootArgs({ pre_reboot_delay: 0, msg: "it's time" });
  return {
    win_shell: firstExec(winShellModule, {
      cmd: 'Get-Service | Where-Object { $_.Status -eq "Running" }',
      creates: 'C:\\done',
    }),
    'win_shell executable': firstExec(winShellModule, {
      cmd: 'dir "C:\\Program Files" & ver',
      executable: 'cmd.exe',
    }),
    'win_shell removes': firstExec(winShellModule, { _raw_params: 'hostname', removes: "C:\\it's here" }),
    win_command: firstExec(winCommandModule, { cmd: 'C:\\k\\kubeadm.exe join "10.0.0.1:6443" --token abc' }),
    'win_command argv': firstExec(winCommandModule, { argv: ['icacls', 'C:\\x y', '/grant', 'Users:(R)'] }),
    'win_copy probe': probeScript(
      { module: 'win_copy', content: Buffer.from('x'), dest: 'C:\\etc\\a.txt', force: true },
      'ab',
      false,
    ),
    'win_copy probe dir': probeScript(
      { module: 'win_copy', content: Buffer.from('x'), dest: 'C:\\etc\\', srcName: 'b.conf', force: true },
      'ab',
      true,
    ),
    'win_file directory': firstExec(winFileModule, { path: 'C:\\k\\logs', state: 'directory' }),
    'win_file absent check': firstExec(winFileModule, { path: 'C:\\tmp', state: 'absent' }, true),
    'win_file touch': firstExec(winFileModule, { path: 'C:\\a.txt', state: 'touch' }),
    'win_file file': firstExec(winFileModule, { path: 'C:\\a.txt' }),
    win_get_url: firstExec(winGetUrlModule, {
      url: 'http://127.0.0.1:8080/a.zip',
      dest: 'C:\\a.zip',
      checksum: 'sha256:ABCDEF',
    }),
    'win_get_url plain': firstExec(
      winGetUrlModule,
      { url: 'https://example.org/x', dest: 'C:\\k\\', force: false },
      true,
    ),
    win_feature: firstExec(winFeatureModule, {
      name: ['Containers', 'Hyper-V'],
      include_management_tools: true,
      source: 'D:\\sources\\sxs',
    }),
    'win_feature absent': firstExec(winFeatureModule, { name: 'Containers', state: 'absent' }, true),
    'win_service create': firstExec(winServiceModule, {
      name: 'containerd',
      path: '"C:\\Program Files\\containerd\\containerd.exe" --run-service',
      start_mode: 'delayed',
      state: 'started',
      display_name: 'containerd',
      description: 'Container runtime',
      dependencies: ['hns'],
    }),
    'win_service absent': firstExec(winServiceModule, { name: 'kubelet', state: 'absent' }),
    'win_service restart check': firstExec(
      winServiceModule,
      { name: 'kubelet', state: 'restarted', start_mode: 'manual' },
      true,
    ),
    win_path: firstExec(winPathModule, { elements: ['%SystemRoot%\\system32', 'C:\\k'], scope: 'user' }),
    'win_path absent': firstExec(winPathModule, { elements: 'C:\\k', state: 'absent' }, true),
    'win_wait_for port': firstExec(winWaitForModule, { port: 6443, host: '10.0.0.1', timeout: 5 }),
    'win_wait_for path': firstExec(winWaitForModule, {
      path: 'C:\\k\\ready',
      state: 'present',
      regex: 'ok.*',
    }),
    'win_wait_for stopped': firstExec(winWaitForModule, { port: 10250, state: 'stopped' }),
    'win_reboot boot time': bootTimeScript(reboot),
    'win_reboot schedule': scheduleRebootScript(reboot),
    'win_reboot test': testCommandScript(reboot),
  };
}
