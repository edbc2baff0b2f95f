import { rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseProxyJump, resolveSshConfig, resolveSshConfigText } from '../../../src/transport/ssh/index.js';
import { testTempDirSync } from '../../helpers/temp.js';

const config = `
Host web-*
  User alice
  IdentityFile ~/.ssh/web_%h
  IdentityFile /keys/%r-extra

Host web-1
  HostName 10.0.0.11
  Port 2222
  ProxyJump bob@bastion:2200,gw
  User ignored-because-first-wins

Host bastion
  HostName 192.0.2.10
  UserKnownHostsFile ~/kh1 /tmp/kh2
  IdentitiesOnly yes

Host *
  User root
  Port 22
`;

describe('ssh config resolution', () => {
  it('applies Host blocks in order, first value wins, tokens expanded', () => {
    const web = resolveSshConfigText(config, 'web-1');
    expect(web).toEqual({
      hostName: '10.0.0.11',
      user: 'alice',
      port: 2222,
      identityFiles: [`${homedir()}/.ssh/web_10.0.0.11`, '/keys/alice-extra'],
      proxyJump: [{ host: 'bastion', user: 'bob', port: 2200 }, { host: 'gw' }],
      userKnownHostsFiles: [],
    });
  });

  it('falls back to the name itself and reads the options kubemix honours', () => {
    const bastion = resolveSshConfigText(config, 'bastion');
    expect(bastion.hostName).toBe('192.0.2.10');
    expect(bastion.user).toBe('root');
    expect(bastion.userKnownHostsFiles).toEqual([`${homedir()}/kh1`, '/tmp/kh2']);
    expect(bastion.identitiesOnly).toBe(true);
    const other = resolveSshConfigText(config, 'db');
    expect(other).toMatchObject({ hostName: 'db', user: 'root', port: 22, identityFiles: [], proxyJump: [] });
  });

  it('parses ProxyJump forms', () => {
    expect(parseProxyJump('none')).toEqual([]);
    expect(parseProxyJump('h')).toEqual([{ host: 'h' }]);
    expect(parseProxyJump('u@h:2')).toEqual([{ host: 'h', user: 'u', port: 2 }]);
    expect(parseProxyJump('[fd00::1]:2022,ssh://x@y')).toEqual([
      { host: 'fd00::1', port: 2022 },
      { host: 'y', user: 'x' },
    ]);
  });

  const dir = testTempDirSync('sshcfg');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a config file; a missing file means no config', async () => {
    const path = join(dir, 'config');
    writeFileSync(path, config);
    expect((await resolveSshConfig({ host: 'web-1', configPath: path })).port).toBe(2222);
    expect(await resolveSshConfig({ host: 'x', configPath: join(dir, 'missing') })).toMatchObject({
      hostName: 'x',
    });
    await expect(resolveSshConfig({ host: 'x', configPath: dir })).rejects.toThrow(dir);
  });
});
