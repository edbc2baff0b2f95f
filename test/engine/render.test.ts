import { describe, expect, it } from 'vitest';
import { renderPlaceholders } from '../../src/engine/index.js';

const context = {
  vars: { version: '1.31.2', cidr: { pod: '10.244.0.0/16' }, port: 4789 },
  outputs: { token: 'abc' },
};

describe('renderPlaceholders', () => {
  it('replaces dotted paths inside strings, walking objects and arrays', () => {
    expect(
      renderPlaceholders(
        {
          cmd: 'kubeadm init --pod-network-cidr={{ vars.cidr.pod }} # {{outputs.token}}',
          list: ['v{{ vars.version }}'],
        },
        context,
      ),
    ).toEqual({ cmd: 'kubeadm init --pod-network-cidr=10.244.0.0/16 # abc', list: ['v1.31.2'] });
  });

  it('keeps the type of a value that is a placeholder alone', () => {
    expect(renderPlaceholders({ port: '{{ vars.port }}', cidr: '{{ vars.cidr }}' }, context)).toEqual({
      port: 4789,
      cidr: { pod: '10.244.0.0/16' },
    });
  });

  it('leaves values without placeholders alone', () => {
    expect(renderPlaceholders({ n: 3, b: true, s: 'plain', nil: null }, context)).toEqual({
      n: 3,
      b: true,
      s: 'plain',
      nil: null,
    });
  });

  it('throws naming an undefined path', () => {
    expect(() => renderPlaceholders('x {{ outputs.nope }}', context)).toThrow(
      'template refers to undefined "outputs.nope"',
    );
    expect(() => renderPlaceholders('{{ vars.version.major }}', context)).toThrow('"vars.version.major"');
  });
});
