import { describe, expect, it } from 'vitest';
import { SecretRefError } from '../../src/errors/index.js';
import { PASSWORD_SECRET_VAR, winrmTransportFor } from '../../src/executor/winrm-options.js';
import type { InventoryHost } from '../../src/types/inventory.js';

const windows = (vars: Record<string, unknown>, password?: { env: string }): InventoryHost => ({
  name: 'win-01',
  address: '192.0.2.20',
  os: 'windows',
  connection: 'winrm',
  role: 'worker',
  group: 'win',
  credentials: { user: 'Administrator', ...(password ? { password } : {}) },
  vars,
});

describe('a WinRM password kept in secrets.json', () => {
  it('is read through the secret reader when the host names its secret output', async () => {
    const asked: string[] = [];
    const transport = await winrmTransportFor(
      windows({ [PASSWORD_SECRET_VAR]: 'ec2_windows_passwords.win-01' }),
      {},
      async (path) => {
        asked.push(path);
        return 'S3cret!';
      },
    );
    expect(asked).toEqual(['ec2_windows_passwords.win-01']);
    expect(transport.host).toBe('win-01');
  });

  it('fails naming the output, never a value, when secrets.json does not hold it', async () => {
    const attempt = winrmTransportFor(
      windows({ [PASSWORD_SECRET_VAR]: 'ec2_windows_passwords.win-01' }),
      {},
      async () => undefined,
    );
    await expect(attempt).rejects.toBeInstanceOf(SecretRefError);
    await expect(attempt).rejects.toThrow(
      /win-01: its password \(secret output ec2_windows_passwords\.win-01\) is not in the cluster's secrets\.json/,
    );
  });

  it('leaves a password reference of the spec in charge', async () => {
    let asked = false;
    await winrmTransportFor(
      windows({ [PASSWORD_SECRET_VAR]: 'x.y' }, { env: 'SOME_PASSWORD' }),
      {},
      async () => {
        asked = true;
        return 'unused';
      },
    );
    expect(asked).toBe(false);
  });
});
