import { describe, expect, it } from 'vitest';
import { LinkedList } from '../src/linked-list.js';

describe('LinkedList (collections every request joins and leaves)', () => {
  it('keeps insertion order, removes from anywhere, and counts', () => {
    const list = new LinkedList<string>();
    const [a, b, c] = ['a', 'b', 'c'].map((v) => list.push(v));
    expect(list.values()).toEqual(['a', 'b', 'c']);
    expect(list.remove(b!)).toBe(true);
    expect(list.values()).toEqual(['a', 'c']);
    expect(list.remove(a!)).toBe(true);
    expect(list.remove(c!)).toBe(true);
    expect(list.values()).toEqual([]);
    expect(list.size).toBe(0);
    list.push('d');
    expect(list.values()).toEqual(['d']);
    expect(list.size).toBe(1);
  });

  it('a removed node lets go of its value and its neighbours, and removing it again does nothing', () => {
    const list = new LinkedList<{ big: number[] }>();
    list.push({ big: [1] });
    const middle = list.push({ big: [2] });
    list.push({ big: [3] });
    expect(list.remove(middle)).toBe(true);
    // What lets a dead node keep nothing alive (linked-list.ts): no value, no links.
    expect(middle).toEqual({ value: undefined, prev: undefined, next: undefined });
    expect(list.remove(middle)).toBe(false);
    expect(list.size).toBe(2);
    expect(list.values().map((v) => v.big[0])).toEqual([1, 3]);
  });

  it('nodes() is a snapshot: removing nodes while going through it is safe, and removed ones show no value', () => {
    const list = new LinkedList<number>();
    const nodes = [1, 2, 3, 4].map((v) => list.push(v));
    const seen: number[] = [];
    for (const node of list.nodes()) {
      if (node.value === undefined) continue;
      seen.push(node.value);
      // Each visit removes itself and the next one (as a deadline callback may clear another deadline).
      list.remove(node);
      if (node === nodes[0]) list.remove(nodes[1]!);
    }
    expect(seen).toEqual([1, 3, 4]);
    expect(list.size).toBe(0);
  });

  it('clear() empties the list and releases every node', () => {
    const list = new LinkedList<string>();
    const nodes = ['x', 'y'].map((v) => list.push(v));
    list.clear();
    expect(list.size).toBe(0);
    expect(list.values()).toEqual([]);
    for (const n of nodes) expect(n.value).toBeUndefined();
  });

  it('shift takes values first in, first out, and leaves nothing behind', () => {
    const list = new LinkedList<number>();
    for (const v of [1, 2, 3]) list.push(v);
    expect(list.shift()).toBe(1);
    list.push(4);
    expect([list.shift(), list.shift(), list.shift()]).toEqual([2, 3, 4]);
    expect(list.shift()).toBeUndefined();
    expect(list.size).toBe(0);
    list.push(5);
    expect(list.values()).toEqual([5]);
  });
});
