import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { SpecError } from '../errors/index.js';
import { secretReference } from '../executor/secret-reference.js';
import { isTemplate } from '../template/index.js';
import type {
  ConnectionKind,
  CredentialFields,
  HostCredentials,
  HostRole,
  InventoryHost,
  SecretRef,
} from '../types/inventory.js';
import { WINDOWS_VERSIONS, type WindowsVersion } from '../types/windows.js';
import { referenceVariableFor, SECRET_VARIABLE_NAMES } from './connection-secrets.js';
import { inventoryVarProblem } from './inventory-fields.js';
import type { Inventory, InventoryGroup } from './types.js';
import { YamlSource } from './yaml-source.js';

const GROUP_KEYS = ['hosts', 'vars', 'children'];
const ROLES: HostRole[] = ['control-plane', 'worker', 'hypervisor', 'controller'];
const CONNECTIONS: Record<string, ConnectionKind> = {
  ssh: 'ssh',
  paramiko: 'ssh',
  smart: 'ssh',
  local: 'local',
  winrm: 'winrm',
  psrp: 'winrm',
};

/** Expands Ansible host ranges: `web[01:03]` -> web01, web02, web03; `db-[a:c]` -> db-a, db-b, db-c. */
export function expandHostRange(name: string): string[] {
  const match = /^(.*)\[([0-9]+|[a-z]):([0-9]+|[a-z])(?::(\d+))?\](.*)$/.exec(name);
  if (!match) return [name];
  const [, head, from, to, stepText, tail] = match as unknown as [
    string,
    string,
    string,
    string,
    string | undefined,
    string,
  ];
  const step = stepText ? Number(stepText) : 1;
  const out: string[] = [];
  if (/^\d+$/.test(from)) {
    const width = from.length;
    for (let i = Number(from); i <= Number(to); i += step)
      out.push(`${head}${String(i).padStart(width, '0')}${tail}`);
  } else {
    for (let c = from.charCodeAt(0); c <= to.charCodeAt(0); c += step)
      out.push(`${head}${String.fromCharCode(c)}${tail}`);
  }
  return out.flatMap(expandHostRange);
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * Parses an Ansible YAML inventory (all/children/hosts/vars). Every problem is reported at
 * once as a SpecError with file, path and line:column. Passwords written inline
 * (`ansible_password: s3cret`) work as in Ansible, with one warning line in `warnings`.
 */
export function parseInventory(text: string, file = 'inventory.yml'): Inventory {
  const source = new YamlSource(file, text);
  const inlineSecrets: string[] = [];
  const checkVars = (vars: Record<string, unknown>, path: Array<string | number>) =>
    checkInventoryVars(source, vars, path, inlineSecrets);
  const root = source.value();
  const groups: Record<string, InventoryGroup> = {};
  const hostVars: Record<string, Record<string, unknown>> = {};
  const hostOrder: string[] = [];
  const firstGroup: Record<string, string> = {};
  const ensureGroup = (name: string) => (groups[name] ??= { name, hosts: [], children: [], vars: {} });
  ensureGroup('all');

  const visitGroup = (name: string, def: unknown, path: Array<string | number>) => {
    const group = ensureGroup(name);
    if (def === null || def === undefined) return;
    if (!isRecord(def)) {
      source.report(path, 'a group must be a mapping with hosts, vars and children');
      return;
    }
    for (const key of Object.keys(def)) {
      if (!GROUP_KEYS.includes(key))
        source.report([...path, key], `unknown group key "${key}" (expected hosts, vars or children)`, {
          key: true,
        });
    }
    if (def['vars'] !== undefined && def['vars'] !== null) {
      if (isRecord(def['vars'])) Object.assign(group.vars, checkVars(def['vars'], [...path, 'vars']));
      else source.report([...path, 'vars'], 'vars must be a mapping');
    }
    const hosts = def['hosts'];
    if (hosts !== undefined && hosts !== null) {
      if (!isRecord(hosts))
        source.report([...path, 'hosts'], 'hosts must be a mapping of host names to their variables');
      else {
        for (const [pattern, vars] of Object.entries(hosts)) {
          const hostPath = [...path, 'hosts', pattern];
          if (vars !== null && !isRecord(vars)) {
            source.report(hostPath, 'host variables must be a mapping (or empty)');
            continue;
          }
          for (const host of expandHostRange(pattern)) {
            if (!(host in hostVars)) {
              hostVars[host] = {};
              hostOrder.push(host);
            }
            if (name !== 'all' && !(host in firstGroup)) firstGroup[host] = name;
            if (!group.hosts.includes(host)) group.hosts.push(host);
            if (vars) Object.assign(hostVars[host]!, checkVars(vars, hostPath));
          }
        }
      }
    }
    const children = def['children'];
    if (children !== undefined && children !== null) {
      if (!isRecord(children))
        source.report([...path, 'children'], 'children must be a mapping of group names');
      else {
        for (const [child, childDef] of Object.entries(children)) {
          if (child === 'all') {
            source.report([...path, 'children', child], '"all" cannot be a child group', { key: true });
            continue;
          }
          if (!group.children.includes(child)) group.children.push(child);
          visitGroup(child, childDef, [...path, 'children', child]);
        }
      }
    }
  };

  if (root === null || root === undefined) {
    // An empty inventory is valid: no hosts.
  } else if (!isRecord(root)) {
    source.report([], 'an inventory must be a mapping of groups (usually starting with "all:")');
  } else {
    for (const [name, def] of Object.entries(root)) {
      visitGroup(name, def, [name]);
      if (name !== 'all' && !groups['all']!.children.includes(name)) groups['all']!.children.push(name);
    }
  }
  if (hasCycle(groups)) source.report([], 'group children form a cycle');
  if (source.issues.length > 0) throw new SpecError(source.issues);

  const ungrouped = ensureGroup('ungrouped');
  for (const host of hostOrder) if (!(host in firstGroup)) ungrouped.hosts.push(host);
  if (!groups['all']!.children.includes('ungrouped')) groups['all']!.children.push('ungrouped');

  const groupVars = Object.fromEntries(Object.values(groups).map((g) => [g.name, g.vars]));
  const inventory: Inventory = { hosts: [], groups, hostVars, groupVars };
  const warning = inlineSecretsWarning(file, inlineSecrets);
  if (warning) inventory.warnings = [warning];
  for (const name of hostOrder)
    inventory.hosts.push(
      toInventoryHost(name, effectiveVars(inventory, name), firstGroup[name] ?? 'ungrouped'),
    );
  return inventory;
}

/** Reads and parses an inventory file. */
export async function loadInventory(path: string): Promise<Inventory> {
  const absolute = resolve(path);
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch (error) {
    throw new SpecError([
      { file: path, path: '', message: `cannot read inventory: ${(error as Error).message}` },
    ]);
  }
  return parseInventory(text, path);
}

/**
 * One line for every inline secret of an inventory: where they are, and the reference forms that
 * keep them out of the file (Ansible's own docs say never to store them in plain text).
 */
function inlineSecretsWarning(file: string, paths: string[]): string | undefined {
  if (paths.length === 0) return undefined;
  const bases = [...new Set(paths.map((p) => referenceVariableFor(p.split('.').at(-1) ?? '')))];
  const forms = bases.map((b) => `${b}_env: VAR / ${b}_file: PATH`).join(', ');
  return `${file}: warning: inline password in ${paths.join(', ')}: anyone who can read the file can read it; use ${forms} or "{{ lookup('env', 'VAR') }}" instead`;
}

function checkInventoryVars(
  source: YamlSource,
  vars: Record<string, unknown>,
  path: Array<string | number>,
  inlineSecrets: string[],
): Record<string, unknown> {
  for (const [key, value] of Object.entries(vars)) {
    const fieldProblem = inventoryVarProblem(key, value);
    if (fieldProblem) source.report([...path, key], fieldProblem);
    // A template (a lookup, another variable) is evaluated when the run starts; a literal is inline.
    if (SECRET_VARIABLE_NAMES.has(key) && value !== null && !(typeof value === 'string' && isTemplate(value)))
      inlineSecrets.push([...path, key].join('.'));
    if (key === 'ansible_port' || key === 'ansible_ssh_port') {
      if (
        !(typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 65535) &&
        !(typeof value === 'string' && value.includes('{{'))
      ) {
        source.report([...path, key], `${key} must be a port number (1-65535)`);
      }
    }
    if (key === 'ansible_connection' && typeof value === 'string' && !(value in CONNECTIONS)) {
      source.report(
        [...path, key],
        `ansible_connection "${value}" is not supported (use ssh, local, winrm or psrp)`,
      );
    }
    if (key === 'kubemix_role' && !ROLES.includes(value as HostRole))
      source.report([...path, key], `kubemix_role must be one of ${ROLES.join(', ')}`);
  }
  return vars;
}

function hasCycle(groups: Record<string, InventoryGroup>): boolean {
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string): boolean => {
    if (state.get(name) === 'visiting') return true;
    if (state.get(name) === 'done') return false;
    state.set(name, 'visiting');
    const cyclic = (groups[name]?.children ?? []).some(visit);
    state.set(name, 'done');
    return cyclic;
  };
  return Object.keys(groups).some(visit);
}

/** Groups a host belongs to (directly or through children), without `all`. */
export function groupsOfHost(inventory: Inventory, host: string): string[] {
  const out: string[] = [];
  for (const group of Object.values(inventory.groups)) {
    if (group.name !== 'all' && groupHosts(inventory, group.name).includes(host)) out.push(group.name);
  }
  return out.sort();
}

/** Every host of a group, children included, in inventory order. */
export function groupHosts(inventory: Inventory, group: string): string[] {
  const seen = new Set<string>();
  const walk = (name: string, depth: number) => {
    const g = inventory.groups[name];
    if (!g || depth > 100) return;
    for (const h of g.hosts) seen.add(h);
    for (const child of g.children) walk(child, depth + 1);
  };
  // hostVars keeps file order and is complete while inventory.hosts is still being built.
  const names = Object.keys(inventory.hostVars);
  if (group === 'all') return names;
  walk(group, 0);
  return names.filter((h) => seen.has(h));
}

/** Depth of a group below `all` (Ansible applies shallower groups' vars first). */
function depthOf(inventory: Inventory, group: string): number {
  if (group === 'all') return 0;
  let best = Number.POSITIVE_INFINITY;
  const walk = (name: string, depth: number) => {
    if (depth > 100) return;
    if (name === group) best = Math.min(best, depth);
    for (const child of inventory.groups[name]?.children ?? []) walk(child, depth + 1);
  };
  walk('all', 0);
  return Number.isFinite(best) ? best : 1;
}

/**
 * A host's variables as Ansible merges them: `all` vars, then parent groups before child
 * groups (same depth: by name), then the host's own vars.
 */
export function effectiveVars(inventory: Inventory, host: string): Record<string, unknown> {
  const groups = ['all', ...groupsOfHost(inventory, host)].sort(
    (a, b) => depthOf(inventory, a) - depthOf(inventory, b) || (a < b ? -1 : 1),
  );
  const out: Record<string, unknown> = {};
  for (const g of groups) Object.assign(out, inventory.groups[g]?.vars ?? {});
  return Object.assign(out, inventory.hostVars[host] ?? {});
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== ''
    ? value
    : typeof value === 'number'
      ? String(value)
      : undefined;
}

/** Maps Ansible connection variables onto kubemix's InventoryHost. */
export function toInventoryHost(name: string, vars: Record<string, unknown>, group: string): InventoryHost {
  const connection = CONNECTIONS[str(vars['ansible_connection']) ?? 'ssh'] ?? 'ssh';
  const shell = str(vars['ansible_shell_type']);
  const os =
    str(vars['kubemix_os']) === 'windows' ||
    connection === 'winrm' ||
    shell === 'powershell' ||
    shell === 'cmd'
      ? 'windows'
      : 'linux';
  const host: InventoryHost = {
    name,
    address: str(vars['ansible_host']) ?? str(vars['ansible_ssh_host']) ?? name,
    os,
    connection,
    role: ROLES.includes(vars['kubemix_role'] as HostRole) ? (vars['kubemix_role'] as HostRole) : 'worker',
    group,
    vars,
  };
  const port = vars['ansible_port'] ?? vars['ansible_ssh_port'];
  if (typeof port === 'number') host.port = port;
  const credentials: HostCredentials = {};
  // The variable each credential came from, for messages about one that does not resolve.
  const fields: CredentialFields = {};
  const user = str(vars['ansible_user']) ?? str(vars['ansible_ssh_user']);
  if (user) credentials.user = user;
  const keyVariable = ['ansible_ssh_private_key_file', 'ansible_private_key_file'].find((v) => str(vars[v]));
  if (keyVariable) {
    const file = str(vars[keyVariable])!;
    credentials.privateKey = { file };
    // A templated path is only known when the run renders it: the transport reports that one.
    if (!file.includes('{{')) fields.privateKey = keyVariable;
  }
  const referenceField = (base: string, ref: SecretRef) => `${base}_${'env' in ref ? 'env' : 'file'}`;
  const password = secretReference(vars, 'ansible_password');
  if (password) {
    credentials.password = password;
    fields.password = referenceField('ansible_password', password);
  }
  const passphrase = secretReference(vars, 'ansible_ssh_private_key_passphrase');
  if (passphrase) {
    credentials.passphrase = passphrase;
    fields.passphrase = referenceField('ansible_ssh_private_key_passphrase', passphrase);
  }
  if (Object.keys(credentials).length > 0) host.credentials = credentials;
  if (Object.keys(fields).length > 0) host.credentialFields = fields;
  const policy = str(vars['kubemix_host_key_policy']);
  if (policy === 'strict' || policy === 'accept-new') host.hostKeyPolicy = policy;
  const windowsVersion = str(vars['kubemix_windows_version']);
  if ((WINDOWS_VERSIONS as readonly (string | undefined)[]).includes(windowsVersion))
    host.windowsVersion = windowsVersion as WindowsVersion;
  return host;
}
