import { describe, expect, it } from 'vitest';
import { DEFAULT_WIDTH, terminalWidth } from '../../../src/cli/render/terminal-width.js';

describe('terminalWidth', () => {
  it("is the terminal's columns when stdout is one, whatever COLUMNS says", () => {
    expect(terminalWidth({ isTTY: true, columns: 132 }, { COLUMNS: '80' })).toBe(132);
  });

  it('is COLUMNS when stdout is a pipe or a file', () => {
    expect(terminalWidth({ isTTY: false }, { COLUMNS: '80' })).toBe(80);
  });

  it('is the fixed default with neither, or with a COLUMNS that is not a positive whole number', () => {
    expect(terminalWidth({}, {})).toBe(DEFAULT_WIDTH);
    expect(terminalWidth({}, { COLUMNS: 'wide' })).toBe(DEFAULT_WIDTH);
    expect(terminalWidth({}, { COLUMNS: '0' })).toBe(DEFAULT_WIDTH);
  });
});
