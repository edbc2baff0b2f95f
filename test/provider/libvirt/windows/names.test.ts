import { describe, expect, it } from 'vitest';
import {
  computerNames,
  generateAdministratorPassword,
  isValidComputerName,
  windowsComputerName,
} from '../../../../src/provider/libvirt/windows/index.js';

describe('windowsComputerName', () => {
  it('keeps node names that are valid computer names', () => {
    expect(windowsComputerName('win-01')).toBe('win-01');
    expect(windowsComputerName('abcdefghijklmno')).toBe('abcdefghijklmno');
  });

  it('shortens longer names deterministically to a prefix and 4 hex digits of their SHA-256', () => {
    const name = windowsComputerName('windows-workers-01');
    expect(name).toMatch(/^windows-wo-[0-9a-f]{4}$/);
    expect(windowsComputerName('windows-workers-01')).toBe(name);
    expect(windowsComputerName('windows-workers-02')).not.toBe(name);
    expect(name.length).toBeLessThanOrEqual(15);
  });

  it('always gives a valid computer name (<= 15, letters/digits/hyphen, not all digits)', () => {
    for (const node of [
      '123456',
      '1234567890123456',
      'a',
      'x-------------------y',
      'group-with-a-very-long-name-99',
    ])
      expect(isValidComputerName(windowsComputerName(node)), node).toBe(true);
    expect(isValidComputerName('123456')).toBe(false);
    expect(isValidComputerName('abcdefghijklmnop')).toBe(false);
    expect(isValidComputerName('-abc')).toBe(false);
  });

  it('maps a cluster of nodes, and refuses two nodes that would share a name', () => {
    const names = computerNames(['windows-workers-01', 'windows-workers-02', 'win-01']);
    expect(new Set(names.values()).size).toBe(3);
    // A node literally named like another node's derived name.
    const derived = windowsComputerName('windows-workers-01');
    expect(() => computerNames(['windows-workers-01', derived.toUpperCase()])).toThrow(
      `Windows nodes windows-workers-01 and ${derived.toUpperCase()} would both get computer name`,
    );
  });
});

describe('generateAdministratorPassword', () => {
  it('meets Windows complexity with every class, uses only harmless characters, and differs each time', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const password = generateAdministratorPassword();
      expect(password).toHaveLength(24);
      expect(password).toMatch(/[A-Z]/);
      expect(password).toMatch(/[a-z]/);
      expect(password).toMatch(/[0-9]/);
      expect(password).toMatch(/[#+\-.=@_]/);
      expect(password).toMatch(/^[A-Za-z0-9#+\-.=@_]+$/);
      expect(password.toLowerCase()).not.toContain('administrator');
      seen.add(password);
    }
    expect(seen.size).toBe(200);
  });
});
