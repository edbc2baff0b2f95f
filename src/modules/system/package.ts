import { shQuote } from '../../quote/index.js';
import { oneOf, optionalBool, type RawArgs, rejectUnknown, stringList } from '../args.js';
import type { Module } from '../types.js';

/** Arguments of `package` (also accepted as `apt` and `dnf`). */
export interface PackageArgs {
  names: string[];
  state: 'present' | 'absent' | 'latest';
  updateCache: boolean;
  /** apt: install an older version than the installed one (ansible.builtin.apt `allow_downgrade`). */
  allowDowngrade: boolean;
  /** apt: change a package on hold (ansible.builtin.apt `allow_change_held_packages`). */
  allowChangeHeldPackages: boolean;
}

/**
 * One script: picks apt or dnf by probing, lists which packages need work, and (unless in
 * check mode) installs, upgrades or removes only those. Prints `__KMX_MGR__ apt|dnf` and
 * `__KMX_TODO__ names...` so the module can report honestly what changed.
 */
export function packageScript(args: PackageArgs, check: boolean): string {
  const names = args.names.map(shQuote).join(' ');
  const lines = [
    'set -e',
    'if command -v apt-get >/dev/null 2>&1; then mgr=apt; elif command -v dnf >/dev/null 2>&1; then mgr=dnf; else echo "package: no supported package manager found (apt-get or dnf)" >&2; exit 3; fi',
    'echo "__KMX_MGR__ $mgr"',
    'export DEBIAN_FRONTEND=noninteractive',
    // apt `name=version` pins: installed means that exact version is installed.
    `installed() { if [ "$mgr" = apt ]; then n=\${1%%=*}; v=; case "$1" in *=*) v=\${1#*=};; esac; s=$(dpkg-query -W -f='\${Status} \${Version}' "$n" 2>/dev/null) || return 1; case "$s" in "install ok installed"*) [ -z "$v" ] || [ "\${s##* }" = "$v" ];; *) return 1;; esac; else rpm -q "$1" >/dev/null 2>&1; fi; }`,
    `upgradable() { if [ "$mgr" = apt ]; then apt-get -s install --only-upgrade "\${1%%=*}" 2>/dev/null | grep -q "^Inst \${1%%=*} "; else dnf -q check-update "$1" >/dev/null 2>&1; [ $? -eq 100 ]; fi; }`,
    'todo=""',
  ];
  if (args.updateCache)
    lines.push(
      `if [ "$mgr" = apt ]; then ${check ? ':' : 'apt-get update -q >/dev/null'}; else ${check ? ':' : 'dnf -q makecache >/dev/null'}; fi`,
    );
  const test =
    args.state === 'absent'
      ? 'installed "$p"'
      : args.state === 'present'
        ? '! installed "$p"'
        : '! installed "$p" || upgradable "$p"';
  lines.push(`for p in ${names}; do if ${test}; then todo="$todo $p"; fi; done`, 'echo "__KMX_TODO__$todo"');
  if (!check) {
    // apt-get -y refuses a downgrade or a held package's change unless told (apt-private/private-install.cc).
    const aptAllow = `${args.allowDowngrade ? ' --allow-downgrades' : ''}${args.allowChangeHeldPackages ? ' --allow-change-held-packages' : ''}`;
    const action =
      args.state === 'absent'
        ? 'if [ "$mgr" = apt ]; then apt-get remove -y -q $todo; else dnf remove -y -q $todo; fi'
        : `if [ "$mgr" = apt ]; then apt-get install -y -q --no-install-recommends${aptAllow} $todo; else dnf install -y -q $todo; fi`;
    lines.push(`if [ -n "$todo" ]; then ${action}; fi`);
  }
  return lines.join('\n');
}

/** `package`: installs, upgrades or removes packages with apt or dnf, whichever the host has. */
export const packageModule: Module<PackageArgs> = {
  name: 'package',
  os: 'linux',
  parseArgs(raw: RawArgs) {
    rejectUnknown('package', raw, [
      'name',
      'pkg',
      'state',
      'update_cache',
      'use',
      'allow_downgrade',
      'allow_change_held_packages',
    ]);
    const names = stringList('package', { name: raw['name'] ?? raw['pkg'] }, 'name');
    if (!names || names.length === 0) throw new TypeError('package: "name" is required');
    for (const name of names)
      if (!/^[\w.+:=~-]+$/.test(name)) throw new TypeError(`package: "${name}" is not a valid package name`);
    const state =
      raw['state'] === 'installed' ? 'present' : raw['state'] === 'removed' ? 'absent' : raw['state'];
    return {
      names,
      state: oneOf('package', { state }, 'state', ['present', 'absent', 'latest'] as const, 'present'),
      updateCache: optionalBool('package', raw, 'update_cache') ?? false,
      allowDowngrade: optionalBool('package', raw, 'allow_downgrade') ?? false,
      allowChangeHeldPackages: optionalBool('package', raw, 'allow_change_held_packages') ?? false,
    };
  },
  *run(args, context) {
    const result = yield {
      kind: 'exec',
      command: packageScript(args, context.checkMode),
      timeoutMs: 1_800_000,
    };
    const manager = /^__KMX_MGR__ (\w+)$/m.exec(result.stdout)?.[1];
    const todo = (/^__KMX_TODO__(.*)$/m.exec(result.stdout)?.[1] ?? '').trim().split(/\s+/).filter(Boolean);
    const data = {
      manager,
      packages: todo,
      rc: result.exitCode,
      stdout: result.stdout,
      stderr: result.stderr,
    };
    if (result.failed)
      return {
        changed: false,
        failed: true,
        msg: result.stderr.trim().split('\n').slice(-3).join(' ') || `package: exit code ${result.exitCode}`,
        data,
      };
    const verb = args.state === 'absent' ? 'removed' : 'installed';
    return {
      changed: todo.length > 0,
      failed: false,
      msg:
        todo.length > 0
          ? `${context.checkMode ? 'would be ' : ''}${verb}: ${todo.join(' ')}`
          : 'nothing to do',
      data,
    };
  },
};

/** `apt` and `dnf`: the same module under the manager-specific names playbooks often use. */
export const aptModule: Module<PackageArgs> = { ...packageModule, name: 'apt' };
export const dnfModule: Module<PackageArgs> = { ...packageModule, name: 'dnf' };
