import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpecError, UsageError } from '../../src/errors/index.js';
import { loadSpec } from '../../src/spec/load.js';
import { testTempDirSync } from '../helpers/temp.js';
import { SPEC_FIXTURES } from './fixtures.js';

let dir: string;

beforeAll(() => {
  dir = testTempDirSync('spec');
  copyFileSync(`${SPEC_FIXTURES}valid/minimal.yaml`, join(dir, 'cluster.yaml'));
  // A file named like a short form: a file on disk wins over the pattern.
  copyFileSync(`${SPEC_FIXTURES}valid/static-ha.yaml`, join(dir, 'k8s-libvirt-1-1-1'));
  writeFileSync(
    join(dir, 'broken.yaml'),
    'name: x\nprovider: { type: libvirt }\nnodes: { controlPlane: { count: 2 } }\n',
  );
  mkdirSync(join(dir, 'specs'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function specError(promise: Promise<unknown>): Promise<SpecError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof SpecError)) throw new Error(`expected a SpecError, got ${String(error)}`);
  return error;
}

describe('loadSpec', () => {
  it('reads and parses an existing file, relative to cwd', async () => {
    const loaded = await loadSpec('cluster.yaml', { cwd: dir });
    expect(loaded.kind).toBe('file');
    expect(loaded.source).toBe(join(dir, 'cluster.yaml'));
    expect(loaded.spec.name).toBe('tiny');
    expect((await loadSpec(join(dir, 'cluster.yaml'))).spec.name).toBe('tiny');
  });

  it('prefers a file over the short-form pattern', async () => {
    const loaded = await loadSpec('k8s-libvirt-1-1-1', { cwd: dir });
    expect(loaded.kind).toBe('file');
    expect(loaded.spec.name).toBe('ha-lab');
  });

  it('maps a short form when no such file exists, passing its options', async () => {
    const loaded = await loadSpec('k8s-libvirt-1-2-1', {
      cwd: dir,
      windowsWorkers: 1,
      windowsIso: 'https://isos.example/ws.iso',
      windowsIsoSha256: 'a'.repeat(64),
    });
    expect(loaded).toMatchObject({ kind: 'short-form', source: 'k8s-libvirt-1-2-1' });
    expect(loaded.spec.nodes.workers.map((g) => g.os)).toEqual(['linux', 'windows']);
  });

  it('names the file as given in parse issues', async () => {
    const error = await specError(loadSpec('broken.yaml', { cwd: dir }));
    expect(error.issues).toEqual([
      {
        file: 'broken.yaml',
        path: 'nodes.controlPlane.count',
        line: 3,
        column: 33,
        message: 'must be 1, 3 or 5 (etcd needs an odd quorum)',
      },
    ]);
  });

  it('says a missing file is neither a file nor a short form', async () => {
    const error = await specError(loadSpec('nope.yaml', { cwd: dir }));
    expect(error.message).toBe(
      'nope.yaml: no such spec file: nope.yaml (and not a short form like k8s-libvirt-1-1-1)',
    );
    expect(error.exitCode).toBe(2);
  });

  it('refuses a directory and an unreadable file, naming them', async () => {
    expect((await specError(loadSpec('specs', { cwd: dir }))).message).toBe(
      'specs: is a directory, not a spec file',
    );
    // /proc/self/mem exists but reading it from offset 0 fails (EIO), even for root.
    const unreadable = await specError(loadSpec('/proc/self/mem'));
    expect(unreadable.issues[0]).toMatchObject({
      file: '/proc/self/mem',
      message: expect.stringContaining('cannot read the spec file'),
    });
  });

  it('refuses short-form options given with a spec file', async () => {
    await expect(loadSpec('cluster.yaml', { cwd: dir, windowsWorkers: 1 })).rejects.toThrow(UsageError);
    await expect(loadSpec('cluster.yaml', { cwd: dir, windowsWorkers: 1 })).rejects.toThrow(
      /^--windows-workers only apply to a short form/,
    );
  });
});
