import { describe, expect, it } from 'vitest';
import { assertModule } from '../../src/modules/flow/assert.js';
import { debugModule } from '../../src/modules/flow/debug.js';
import { failModule } from '../../src/modules/flow/fail.js';
import { setFactModule } from '../../src/modules/flow/set-fact.js';
import { findModule, moduleNames } from '../../src/modules/registry.js';
import { context, drive } from './drive.js';

const vars = context({ vars: { n: 3, result: { stdout: 'ready' } } });

describe('set_fact', () => {
  it('returns facts without any action', () => {
    const { actions, outcome } = drive(setFactModule, { a: 1, b: [2], cacheable: true }, []);
    expect(actions).toEqual([]);
    expect(outcome).toEqual({
      changed: false,
      failed: false,
      facts: { a: 1, b: [2] },
      data: { ansible_facts: { a: 1, b: [2] } },
    });
    expect(() => setFactModule.parseArgs({ 'bad-name': 1 })).toThrow(
      'set_fact: "bad-name" is not a valid variable name',
    );
  });
});

describe('debug', () => {
  it('shows a message or a variable', () => {
    expect(drive(debugModule, { msg: 'hi' }, []).outcome).toMatchObject({ msg: 'hi', data: { msg: 'hi' } });
    expect(drive(debugModule, { var: 'result.stdout' }, [], vars).outcome).toMatchObject({
      msg: 'result.stdout: ready',
      data: { 'result.stdout': 'ready' },
    });
    expect(drive(debugModule, { var: 'nope' }, [], vars).outcome.msg).toBe('nope: VARIABLE IS NOT DEFINED!');
    expect(drive(debugModule, {}, []).outcome.msg).toBe('Hello world!');
  });
});

describe('assert', () => {
  it('passes when every condition holds and fails on the first that does not', () => {
    expect(
      drive(assertModule, { that: ['n == 3', "'ready' in result.stdout"], success_msg: 'fine' }, [], vars)
        .outcome,
    ).toMatchObject({ failed: false, msg: 'fine' });
    expect(
      drive(assertModule, { that: ['n == 3', 'n > 5'], fail_msg: 'too small' }, [], vars).outcome,
    ).toMatchObject({ failed: true, msg: 'too small', data: { assertion: 'n > 5', evaluated_to: false } });
    const undefinedVar = drive(assertModule, { that: 'nope == 1' }, [], vars).outcome;
    expect(undefinedVar.failed).toBe(true);
    expect(undefinedVar.msg).toContain("'nope' is undefined");
  });
});

describe('fail', () => {
  it('fails with the message', () => {
    expect(drive(failModule, { msg: 'stop' }, []).outcome).toEqual({
      changed: false,
      failed: true,
      msg: 'stop',
    });
    expect(drive(failModule, {}, []).outcome.msg).toBe('Failed as requested from task');
  });
});

describe('registry', () => {
  it('knows every module by short name and FQCN', () => {
    for (const name of [
      'command',
      'shell',
      'raw',
      'script',
      'copy',
      'template',
      'fetch',
      'file',
      'lineinfile',
      'wait_for',
      'wait_for_connection',
      'reboot',
      'set_fact',
      'debug',
      'assert',
      'fail',
      'package',
      'service',
    ]) {
      expect(moduleNames()).toContain(name);
      expect(findModule(`ansible.builtin.${name}`)?.name).toBe(name);
    }
  });
});
