import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupBy } from '../../src/lib/group-by.ts';

test('groups keep the order their keys first appear in, and each group keeps the input order', () => {
  const lines = [
    { label: 'b', n: 1 },
    { label: 'a', n: 2 },
    { label: 'b', n: 3 },
  ];
  const groups = groupBy(lines, (line) => line.label);
  assert.deepEqual([...groups.keys()], ['b', 'a']);
  assert.deepEqual(
    groups.get('b')?.map((line) => line.n),
    [1, 3],
  );
  assert.deepEqual(groupBy([], String), new Map());
});
