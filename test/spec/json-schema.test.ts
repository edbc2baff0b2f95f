import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { specJsonSchema } from '../../src/spec/json-schema.js';
import { shortFormInput } from '../../src/spec/short-form.js';
import { fixtureNames, readFixture } from './fixtures.js';
import { checkJsonSchema, type JsonSchema } from './json-schema-check.js';

const schema = specJsonSchema() as JsonSchema & { properties: Record<string, JsonSchema> };

describe('specJsonSchema', () => {
  it('is a draft 2020-12 schema with an id and a title', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toMatch(/^https:\/\//);
    expect(schema.title).toBe('kubemix cluster spec');
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
  });

  it('describes name, provider and nodes, with only what has no default required', () => {
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining([
        'apiVersion',
        'name',
        'kubernetes',
        'network',
        'provider',
        'nodes',
        'versions',
      ]),
    );
    expect((schema.required as string[]).sort()).toEqual(['name', 'provider']);
    expect(schema.additionalProperties).toBe(false);
  });

  it('lists the enums and defaults editors should offer', () => {
    const text = JSON.stringify(schema);
    for (const value of [
      '"static"',
      '"libvirt"',
      '"ec2"',
      '"linux"',
      '"windows"',
      '"2019"',
      '"2022"',
      '"winrm"',
    ]) {
      expect(text).toContain(value);
    }
    expect(text).toContain('"default":"10.244.0.0/16"');
    expect(text).toContain('"default":4096');
    expect(text).toContain('"default":4789');
  });

  it.each(fixtureNames('valid'))('accepts the valid fixture %s', (name) => {
    expect(checkJsonSchema(schema, parse(readFixture('valid', name).text))).toEqual([]);
  });

  it('accepts what a short form builds', () => {
    expect(checkJsonSchema(schema, shortFormInput('k8s-libvirt-3-2-1', { windowsWorkers: 1 }))).toEqual([]);
  });

  it('rejects unknown keys, wrong enum values and inline secrets structurally', () => {
    for (const name of [
      'unknown-key',
      'windows-version-on-linux',
      'inline-password',
      'controllers-2',
      'several-problems',
    ]) {
      const errors = checkJsonSchema(schema, parse(readFixture('invalid', name).text));
      if (name === 'windows-version-on-linux')
        expect(errors).toEqual([]); // a cross-field rule, not expressible here
      else expect(errors.length, name).toBeGreaterThan(0);
    }
  });
});
