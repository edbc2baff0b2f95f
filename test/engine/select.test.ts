import { describe, expect, it } from 'vitest';
import { selectTasks } from '../../src/engine/index.js';
import { buildGraph } from '../../src/plan/index.js';
import { makePlan, task } from './helpers.js';

// a -> b -> c, a -> x (x is independent of b and c), c and x -> z
const graph = buildGraph(
  makePlan([
    task('a', [], [], []),
    task('b', ['a'], [], []),
    task('x', ['a'], [], []),
    task('c', ['b'], [], []),
    task('z', ['c', 'x'], [], []),
  ]),
);

describe('selectTasks', () => {
  it('selects everything by default', () => {
    const selection = selectTasks(graph, {});
    expect([...selection.selected]).toEqual(['a', 'b', 'x', 'c', 'z']);
    expect(selection.excluded.size).toBe(0);
    expect(selection.redo.size).toBe(0);
  });

  it('stopAfter keeps only the target and what it needs, not unrelated branches', () => {
    const selection = selectTasks(graph, { stopAfter: 'b' });
    expect([...selection.selected]).toEqual(['a', 'b']);
    expect(Object.fromEntries(selection.excluded)).toEqual({
      x: 'stop-after',
      c: 'stop-after',
      z: 'stop-after',
    });
  });

  it('stopBefore keeps only what the target needs', () => {
    const selection = selectTasks(graph, { stopBefore: 'c' });
    expect([...selection.selected]).toEqual(['a', 'b']);
    expect(selection.excluded.get('c')).toBe('stop-before');
    expect(selection.excluded.get('x')).toBe('stop-before');
  });

  it('combines stopAfter and stopBefore as an intersection', () => {
    expect([...selectTasks(graph, { stopAfter: 'c', stopBefore: 'z' }).selected]).toEqual(['a', 'b', 'c']);
  });

  it('from marks the task and everything downstream for redo', () => {
    expect([...selectTasks(graph, { from: 'b' }).redo].sort()).toEqual(['b', 'c', 'z']);
  });
});
