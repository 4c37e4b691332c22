import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextLink } from '../src/index.ts';

test('nextLink reads rel="next" from a Link header, and nothing else', () => {
  const server =
    '<https://localhost:8443/api/v1/releases?page=2&per_page=20&status=live>; rel="next", <https://localhost:8443/api/v1/releases?page=5&per_page=20&status=live>; rel="last"';
  assert.equal(nextLink(server), 'https://localhost:8443/api/v1/releases?page=2&per_page=20&status=live');
  assert.equal(
    nextLink('<https://a.test/x?page=1>; rel="prev", <https://a.test/x?page=3>; rel=next'),
    'https://a.test/x?page=3',
  );
  assert.equal(
    nextLink('<https://a.test/x?page=3>; title="a,b"; rel="last next"'),
    'https://a.test/x?page=3',
  );
  assert.equal(
    nextLink('<https://a.test/x?page=1>; rel="prev", <https://a.test/x?page=9>; rel="last"'),
    null,
  );
  assert.equal(nextLink('<https://a.test/x?page=2>; rel="nextish"'), null);
  assert.equal(nextLink(''), null);
  assert.equal(nextLink(null), null);
});
