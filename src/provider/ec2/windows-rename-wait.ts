import type { PlanStep } from '../../types/plan.js';

/**
 * The computer's active name (what `$env:COMPUTERNAME` and every new process sees: the name the
 * computer booted with) and the name it will boot with next (Rename-Computer writes it under
 * ComputerName\ComputerName; ActiveComputerName changes only at the restart). A constant: no
 * value of the spec reaches PowerShell, the comparison happens in the step's `failed_when`.
 */
export const COMPUTER_NAME_SCRIPT =
  "Write-Output ('{0} {1}' -f $env:COMPUTERNAME, (Get-ItemProperty -Path 'HKLM:\\SYSTEM\\CurrentControlSet\\Control\\ComputerName\\ComputerName').ComputerName)";

/**
 * wait-for-hosts on an EC2 Windows instance: its user data (src/provider/ec2/user-data.ts) renames
 * the computer to the node's name and restarts it, last. EC2Launch v2 runs the user data once at
 * launch (AWS, Amazon EC2 User Guide, "Run commands on your Windows instance at launch": user data
 * runs in EC2Launch v2's executeScript task, once unless `<persist>true</persist>`), and
 * Rename-Computer takes effect only after the restart (Microsoft Learn, Rename-Computer: "-Restart
 * ... A restart is often required to make the change effective"). WinRM answers before that under
 * the AMI's name, so a first successful command proves nothing: tasks started then straddle the
 * restart or see the old name (and a kubelet would register it). This step passes only once the
 * active name and the next boot's name are both the node's name (case-insensitive: NetBIOS names
 * are upper case), i.e. after the restart; a command lost to the restart fails and is retried.
 * About 9 minutes in all (5 s doubling to 60 s between attempts).
 */
export function windowsRenamedWaitStep(): PlanStep {
  return {
    name: 'Windows renamed and restarted by its user data (computer name = node name)',
    module: 'win_shell',
    os: 'windows',
    args: { cmd: COMPUTER_NAME_SCRIPT },
    retries: 12,
    delayMs: 5000,
    register: 'windows_computer_name',
    keywords: {
      changedWhen: false,
      failedWhen:
        "windows_computer_name.rc != 0 or (windows_computer_name.stdout | trim | upper) != ((inventory_hostname ~ ' ' ~ inventory_hostname) | upper)",
    },
  };
}
