import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startWindowsLab, type WindowsLab } from '../../fixtures/windows-sim/lab.js';
import { type Lab, startLab } from '../../scripts/lab/lab.js';
import { EXIT } from '../../src/errors/index.js';
import { SshTransport } from '../../src/transport/ssh/index.js';
import { runCli, tempHome } from '../cli/run-cli.js';
import { testTempDir } from '../helpers/temp.js';

// Ansible users' inventories as they are: passwords written inline or looked up, against real
// sshd lab hosts (sudo asking for its password; password login) and a simulated Windows host
// over WinRM/NTLM. Every run must work, and no password may appear in anything kubemix prints.
const SUDO_PW = 'Zq9'; // shorter than any secret fragment: hidden only as a whole value
const LOGIN_PW = 'l0gin-Pass-42';
const WIN_PW = 'W1n-Secret-7';
const LOOKUP_SUDO_PW = 'from-env-8p';
const PASSWORDS = [SUDO_PW, LOGIN_PW, WIN_PW, LOOKUP_SUDO_PW];

let lab: Lab;
let win: WindowsLab;
let work: string;

function labTransport(name: string) {
  const host = lab.hosts.find((h) => h.name === name)!;
  return new SshTransport({
    host: name,
    address: host.address,
    ...(host.port !== undefined ? { port: host.port } : {}),
    user: 'root',
    privateKey: { file: lab.privateKeyPath },
    knownHostsFiles: [lab.knownHostsPath],
    sshConfigPath: false,
  });
}

/** lab-01's sudo asks for a password, like sudo -S does, and checks it (the standin of ssh-exec.integration). */
async function sudoAskingFor(password: string) {
  const t = labTransport('lab-01');
  const standIn = [
    '#!/bin/sh',
    'while [ $# -gt 0 ]; do case $1 in -p) prompt=$2; shift 2;; -u) user=$2; shift 2;; --) shift; break;; *) shift;; esac; done',
    'printf %s "$prompt" >&2',
    'IFS= read -r pw || { echo "sudo: no password was provided" >&2; exit 1; }',
    '[ "$pw" = "$(cat /opt/kubemix-lab/sudo-password)" ] || { echo "Sorry, try again." >&2; exit 1; }',
    'exec /usr/bin/sudo -n -u "$user" -- "$@"',
    '',
  ].join('\n');
  await t.put({ remotePath: '/opt/kubemix-lab/bin/sudo', content: standIn, mode: 0o755 });
  await t.put({ remotePath: '/opt/kubemix-lab/sudo-password', content: `${password}\n`, mode: 0o600 });
  await t.close();
}

/**
 * lab-02 accepts root's password: sshd restarted with password logins on, and a private copy of
 * /etc/shadow bind-mounted over the real one inside the host's own mount namespace only.
 */
async function passwordLogins(password: string) {
  await lab.killHost('lab-02');
  const config = join(lab.dir, 'hosts', 'lab-02', 'sshd_config');
  const text = readFileSync(config, 'utf8')
    .replace('PasswordAuthentication no', 'PasswordAuthentication yes')
    .replace('PermitRootLogin prohibit-password', 'PermitRootLogin yes');
  await writeFile(config, text);
  await lab.startHost('lab-02');
  const hash = execFileSync('openssl', ['passwd', '-6', password], { encoding: 'utf8' }).trim();
  const t = labTransport('lab-02');
  const set = await t.exec({
    command: `cp /etc/shadow /var/lib/kubemix-lab/shadow && sed -i 's|^root:[^:]*:|root:${hash}:|' /var/lib/kubemix-lab/shadow && mount --bind /var/lib/kubemix-lab/shadow /etc/shadow`,
  });
  expect(set.stderr).toBe('');
  await t.close();
}

beforeAll(async () => {
  work = await testTempDir('inventory-pw');
  await mkdir(join(work, 'files'));
  lab = await startLab({ count: 2 });
  win = await startWindowsLab({
    hosts: [{ name: 'win-01' }],
    password: WIN_PW,
    passwordEnv: 'KMX_TEST_INLINE_WINPW',
  });
  await passwordLogins(LOGIN_PW);
});

afterAll(async () => {
  delete process.env['KMX_TEST_INLINE_WINPW'];
  await win?.stop();
  await lab?.stop();
});

const knownHosts = () => `-o UserKnownHostsFile=${lab.knownHostsPath} -o StrictHostKeyChecking=yes`;

/** An inventory of lab-01 (key login, sudo password), lab-02 (password login) and win-01 (WinRM). */
function inventory(vars: { sudo: unknown; login: unknown; windows: unknown }): string {
  const [one, two] = [lab.hosts[0]!, lab.hosts[1]!];
  const winHost = win.hosts[0]!;
  return stringify({
    all: {
      vars: { ansible_ssh_common_args: knownHosts() },
      children: {
        linux: {
          hosts: {
            'lab-01': {
              ansible_host: one.address,
              ansible_user: 'root',
              ansible_ssh_private_key_file: lab.privateKeyPath,
              ansible_become_password: vars.sudo,
            },
            'lab-02': { ansible_host: two.address, ansible_user: 'root', ansible_ssh_pass: vars.login },
          },
        },
        windows: {
          hosts: {
            'win-01': {
              ansible_host: winHost.address,
              ansible_port: winHost.port,
              ansible_connection: 'winrm',
              ansible_user: 'Administrator',
              ansible_password: vars.windows,
            },
          },
        },
      },
    },
  });
}

const PLAYBOOK = `- hosts: lab-01
  tasks:
    - name: become nobody with sudo's password
      command: id -un
      become: true
      become_user: nobody
      register: who
    - debug:
        msg: "{{ who.stdout }} with sudo password {{ ansible_become_password }}"
- hosts: lab-02
  tasks:
    - name: logged in with a password
      command: hostname
- hosts: windows
  tasks:
    - name: over WinRM with the password
      win_command: hostname
    - debug:
        msg: "windows password {{ ansible_password }}"
`;

async function run(
  inventoryText: string,
  logFormat: 'json' | 'text',
  env: Record<string, string> = {},
  flags: string[] = [],
) {
  const inventoryPath = join(work, 'inventory.yml');
  const playbookPath = join(work, 'site.yml');
  await writeFile(inventoryPath, inventoryText);
  await writeFile(playbookPath, PLAYBOOK);
  return runCli(['run', playbookPath, '-i', inventoryPath, '--log-format', logFormat, ...flags], {
    home: tempHome(),
    env,
  });
}

function expectNoPassword(text: string) {
  for (const password of PASSWORDS) {
    // A whole-word match: the 3-letter sudo password could occur inside base64 or a key id.
    expect(text).not.toMatch(new RegExp(`(?<![A-Za-z0-9_])${password}(?![A-Za-z0-9_])`));
  }
}

describe('inventories with passwords', () => {
  it('work written inline, with one warning line, and never show a password', async () => {
    await sudoAskingFor(SUDO_PW);
    const text = inventory({ sudo: SUDO_PW, login: LOGIN_PW, windows: WIN_PW });
    for (const format of ['json', 'text'] as const) {
      const result = await run(text, format);
      expect(result.exitCode, result.stdout + result.stderr).toBe(0);
      const warnings = result.stderr.split('\n').filter((l) => l.includes('warning'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(
        /inventory\.yml: warning: inline password in all\.children\.linux\.hosts\.lab-01\.ansible_become_password, all\.children\.linux\.hosts\.lab-02\.ansible_ssh_pass, all\.children\.windows\.hosts\.win-01\.ansible_password: /,
      );
      expectNoPassword(result.stdout);
      expectNoPassword(result.stderr);
      if (format === 'json') {
        // The event log carries what debug printed: the passwords in it are hidden.
        expect(result.stdout).toContain('nobody with sudo password ***');
        expect(result.stdout).toContain('windows password ***');
        const events = result.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { type: string; host?: string; status?: string });
        const ended = events.filter((e) => e.type === 'step-end').map((e) => `${e.host} ${e.status}`);
        expect(ended).toEqual(expect.arrayContaining(['lab-01 changed', 'lab-02 changed', 'win-01 changed']));
      }
    }
    // lab-02 let kubemix in by its password: sshd says so (no key of ours is authorized there).
    expect(await readFile(join(lab.dir, 'hosts', 'lab-02', 'sshd.log'), 'utf8')).toMatch(
      /Accepted password for root/,
    );
  });

  it('-vvv: each connection (where, as whom, key file or password by name, host check; opened, reused, closed), never a password', async () => {
    await sudoAskingFor(SUDO_PW);
    const result = await run(inventory({ sudo: SUDO_PW, login: LOGIN_PW, windows: WIN_PW }), 'text', {}, [
      '-vvv',
    ]);
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    const [one, two] = [lab.hosts[0]!, lab.hosts[1]!];
    const winHost = win.hosts[0]!;
    const esc = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const strict = `host key strict \\(known_hosts ${esc(lab.knownHostsPath)}\\)`;
    expect(result.stdout).toMatch(
      new RegExp(
        `^ +lab-01 ssh: opened root@${esc(one.address)}:22 \\(auth: private key \\(file ${esc(lab.privateKeyPath)}\\); ${strict}\\)$`,
        'm',
      ),
    );
    // lab-02 has no key of its own: OpenSSH's default identities (if any), then the password, by name.
    expect(result.stdout).toMatch(
      new RegExp(
        `^ +lab-02 ssh: opened root@${esc(two.address)}:22 \\(auth: (.+, then )?password; ${strict}\\)$`,
        'm',
      ),
    );
    expect(result.stdout).toMatch(
      new RegExp(
        `^ +win-01 winrm: opened Administrator@${esc(winHost.address)}:${winHost.port} \\(auth: ntlm with password \\(messages encrypted\\); http \\(no server certificate\\)\\)$`,
        'm',
      ),
    );
    // win-01's second task (debug runs on the controller, but the host's connection is asked for) and the end of the run.
    for (const host of ['lab-01', 'lab-02', 'win-01'])
      expect(result.stdout).toMatch(new RegExp(`^ +${host} (ssh|winrm): closed \\S+@`, 'm'));
    expect(result.stdout).toMatch(/^ +(lab-01|win-01) (ssh|winrm): reusing \S+@/m);
    expectNoPassword(result.stdout);
    expectNoPassword(result.stderr);
  });

  it("work looked up with lookup('env') and lookup('file'), with no warning", async () => {
    await sudoAskingFor(LOOKUP_SUDO_PW);
    await writeFile(join(work, 'files', 'winpw.txt'), `${WIN_PW}\n`);
    const text = inventory({
      sudo: "{{ lookup('env', 'KMX_TEST_SUDO_PW') }}",
      login: "{{ lookup('env', 'KMX_TEST_LOGIN_PW') }}",
      windows: "{{ lookup('file', 'winpw.txt') }}",
    });
    const result = await run(text, 'json', { KMX_TEST_SUDO_PW: LOOKUP_SUDO_PW, KMX_TEST_LOGIN_PW: LOGIN_PW });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('nobody with sudo password ***');
    expectNoPassword(result.stdout);
  });

  it('a wrong sudo password fails the task without showing it', async () => {
    await sudoAskingFor(SUDO_PW);
    const result = await run(inventory({ sudo: 'Wr0ng-pw-5', login: LOGIN_PW, windows: WIN_PW }), 'json');
    expect(result.exitCode).toBe(EXIT.failed);
    expect(result.stdout).toContain('Sorry, try again.');
    expect(`${result.stdout}${result.stderr}`).not.toContain('Wr0ng-pw-5');
  });

  it('an unset variable in an env lookup stops the run before anything runs, naming it', async () => {
    const text = inventory({
      sudo: "{{ lookup('env', 'KMX_TEST_UNSET_PW') }}",
      login: LOGIN_PW,
      windows: WIN_PW,
    });
    const result = await run(text, 'text');
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr
      .trim()
      .split('\n')
      .filter((l) => !l.includes('warning'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      "lab-01: ansible_become_password: lookup('env', 'KMX_TEST_UNSET_PW'): environment variable KMX_TEST_UNSET_PW is not set",
    );
    expectNoPassword(result.stderr);
  });
});
