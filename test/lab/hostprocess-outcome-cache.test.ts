import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cachedOutcome,
  type InternetAnswer,
  useOutcomeCache,
} from '../../fixtures/lab/state/hostprocess-outcome-cache.js';
import type { ContainerOutcome } from '../../fixtures/lab/state/hostprocess-script.js';
import type { StateFile } from '../../fixtures/lab/state/types.js';
import { testTempDirSync } from '../helpers/temp.js';
import { stateOf } from './hostprocess-helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const cacheDir = () => {
  const d = testTempDirSync('outcomes');
  dirs.push(d);
  return d;
};

const FLANNEL_URL = 'https://github.com/flannel-io/flannel/releases/download/v0.28.9/flanneld.exe';

/** A reading that downloads one file and counts how often it ran; its outcome holds undefined values. */
function countingRead() {
  const reader = {
    runs: 0,
    read: (fetch: (url: string) => InternetAnswer): ContainerOutcome => {
      reader.runs++;
      const body = fetch(FLANNEL_URL);
      return {
        state: 'running',
        program: 'C:\\flannel\\flanneld.exe',
        args: ['--kube-subnet-mgr', undefined],
        log: [body === 404 ? 'not found' : `got ${body?.length ?? 'nothing'}`],
        written: [
          { path: 'C:\\flannel\\flanneld.exe', content: undefined },
          { path: 'C:\\etc\\kube-flannel\\net-conf.json', content: '{}' },
        ],
      };
    },
  };
  return reader;
}

const inputs = { node: 'win1', podName: 'kube-flannel-ds-windows-x' };

describe('HostProcess outcomes kept across processes', () => {
  it('the same inputs with the same internet answer are read once; the kept outcome equals the read one, undefined values included', () => {
    const state = stateOf([]);
    const dir = cacheDir();
    useOutcomeCache(state, dir);
    const reader = countingRead();
    const internet = () => Buffer.from('flanneld v0.28.9');
    const first = cachedOutcome(state, inputs, internet, reader.read);
    // Another process reads the state file again: an equal object, not the same one.
    const again = structuredClone(state);
    useOutcomeCache(again, dir);
    const second = cachedOutcome(again, inputs, internet, reader.read);
    expect(reader.runs).toBe(1);
    expect(second).toStrictEqual(first);
  });

  it('a changed download (republished, or gone) is read again', () => {
    const state = stateOf([]);
    useOutcomeCache(state, cacheDir());
    const reader = countingRead();
    let answer: InternetAnswer = Buffer.from('flanneld v0.28.9');
    expect(cachedOutcome(state, inputs, () => answer, reader.read).log).toEqual(['got 16']);
    answer = Buffer.from('flanneld v0.28.9, rebuilt');
    expect(cachedOutcome(state, inputs, () => answer, reader.read).log).toEqual(['got 25']);
    answer = 404;
    expect(cachedOutcome(state, inputs, () => answer, reader.read).log).toEqual(['not found']);
    answer = undefined;
    expect(cachedOutcome(state, inputs, () => answer, reader.read).log).toEqual(['got nothing']);
    expect(reader.runs).toBe(4);
  });

  it('a changed state or other inputs are read again, also when the same state object changed in place', () => {
    const state = stateOf([]);
    useOutcomeCache(state, cacheDir());
    const reader = countingRead();
    const internet = () => 404 as const;
    cachedOutcome(state, inputs, internet, reader.read);
    cachedOutcome(state, { ...inputs, podName: 'kube-flannel-ds-windows-y' }, internet, reader.read);
    (state as StateFile).resourceVersion += 1;
    cachedOutcome(state, inputs, internet, reader.read);
    expect(reader.runs).toBe(3);
  });

  it('a state built in memory, without a lab directory, is read every time', () => {
    const state = stateOf([]);
    const reader = countingRead();
    cachedOutcome(state, inputs, () => 404, reader.read);
    cachedOutcome(state, inputs, () => 404, reader.read);
    expect(reader.runs).toBe(2);
  });
});
