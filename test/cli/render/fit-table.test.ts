import { describe, expect, it } from 'vitest';
import { type Column, fitTable, truncate, wrapText } from '../../../src/cli/render/fit-table.js';

const words = (text: string) => text.split(/\s+/).filter(Boolean);

describe('truncate', () => {
  it('keeps what fits and ends what does not with an ellipsis, at the width exactly', () => {
    expect(truncate('controller-01', 13)).toBe('controller-01');
    expect(truncate('controller-01', 8)).toBe('control…');
    expect(truncate('controller-01', 0)).toBe('');
  });
});

describe('wrapText', () => {
  it('breaks at spaces, every line within the width, no word lost', () => {
    const text = 'the versions apt installs with them (the repository newest) and a few more words';
    for (const width of [10, 17, 30, 200]) {
      const lines = wrapText(text, width);
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(width);
      expect(words(lines.join(' '))).toEqual(words(text));
    }
  });

  it('breaks a word longer than the line after a slash where it can, and keeps every character', () => {
    const url =
      'raw.githubusercontent.com/kubernetes-sigs/sig-windows-tools/<commit>/hostprocess/Install-Containerd.ps1';
    const lines = wrapText(url, 30);
    expect(lines[0]).toBe('raw.githubusercontent.com/');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(30);
    expect(lines.join('')).toBe(url);
  });
});

describe('fitTable', () => {
  const columns: Column[] = [
    { header: 'NAME', overflow: 'truncate', minWidth: Number.MAX_SAFE_INTEGER },
    { header: 'LIST', overflow: 'wrap' },
    { header: 'WHAT', overflow: 'truncate', minWidth: 8, shrinksFirst: true },
  ];
  const rows = [
    [
      'install-windows-networking',
      'join-windows-workers, install-flannel',
      'Windows flannel (HostProcess) and kube-proxy for Windows',
    ],
    [
      'verify',
      'join-linux-workers, install-windows-networking',
      'Deploy agnhost netexec and check everything',
    ],
  ];

  it('prints natural widths when they fit, aligned, without trailing spaces', () => {
    const lines = fitTable(columns, rows, { width: 200 });
    expect(lines[0]).toBe(`NAME${' '.repeat(24)}LIST${' '.repeat(44)}WHAT`);
    expect(lines[1]).toBe(
      'install-windows-networking  join-windows-workers, install-flannel           Windows flannel (HostProcess) and kube-proxy for Windows',
    );
    for (const line of lines) expect(line).toBe(line.trimEnd());
  });

  it('never exceeds the width, however narrow, and shrinks the shrink-first column before wrapping', () => {
    for (let width = 10; width <= 160; width++) {
      const lines = fitTable(columns, rows, { width, indent: '  ' });
      for (const line of lines) expect(line.length, `width ${width}: ${line}`).toBeLessThanOrEqual(width);
    }
    // At 90 columns only WHAT gives way: the lists stay on one line each.
    const at90 = fitTable(columns, rows, { width: 90 });
    expect(at90).toHaveLength(3);
    expect(at90[1]).toMatch(/^install-windows-networking {2}join-windows-workers, install-flannel {2}.*…$/);
  });

  it('keeps a name whose minimum is its full length whole while the width allows', () => {
    const lines = fitTable(columns, rows, { width: 70 });
    expect(lines.some((l) => l.startsWith('install-windows-networking  '))).toBe(true);
    // The wrapped column kept every name it lists, whole.
    expect(words(lines.join(' '))).toEqual(
      expect.arrayContaining(['join-windows-workers,', 'install-flannel', 'join-linux-workers,']),
    );
    expect(lines.length).toBeGreaterThan(3);
  });
});

describe('fitTable optional columns', () => {
  it('leaves an optional column out when the others and its minimum do not fit together', () => {
    const columns: Column[] = [
      { header: 'NAME', overflow: 'truncate', minWidth: Number.MAX_SAFE_INTEGER },
      { header: 'WHAT', overflow: 'truncate', minWidth: 12, optional: true },
    ];
    const rows = [['install-windows-networking', 'Windows flannel and kube-proxy']];
    expect(fitTable(columns, rows, { width: 40 })).toEqual([
      'NAME                        WHAT',
      'install-windows-networking  Windows fla…',
    ]);
    expect(fitTable(columns, rows, { width: 39 })).toEqual(['NAME', 'install-windows-networking']);
  });
});

describe('fitTable shrink order', () => {
  it('shrinks a shrink-first column to its soft limit, then wraps lists before cutting it further', () => {
    const columns: Column[] = [
      { header: 'HOSTS', overflow: 'wrap', minWidth: 6 },
      { header: 'WHAT', overflow: 'truncate', minWidth: 4, shrinksFirst: true, shrinksFirstTo: 12 },
    ];
    const rows = [['alpha, beta, gamma', 'a description of twenty-eight']];
    // 18 + 2 + 29 = 49 natural; at 32 the description gives way to 12 and the list stays whole.
    expect(fitTable(columns, rows, { width: 32 })[1]).toBe('alpha, beta, gamma  a descripti…');
    // At 25 the list wraps (losing nothing) while the description keeps its 12 columns.
    expect(fitTable(columns, rows, { width: 25 })).toEqual([
      'HOSTS        WHAT',
      'alpha,       a descripti…',
      'beta, gamma',
    ]);
  });
});
