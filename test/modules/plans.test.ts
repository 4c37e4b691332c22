import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/errors.ts';
import { getLabel, updateLabel } from '../../src/modules/labels/labels.service.ts';
import { enforceLimit, requireFeature } from '../../src/modules/plans/plans.service.ts';
import { addMember } from '../../src/modules/team/team.service.ts';
import { buildHarness, givenLabel } from '../helpers/harness.ts';

function bodyOf(error: unknown): unknown {
  assert.ok(error instanceof ApiError);
  assert.equal(error.status, 403);
  return error.body();
}

test('a used-up limit is 403 plan_limit with plan, limit, used and the plan that raises it', async (t) => {
  const h = await buildHarness(t);
  const { id } = await givenLabel(h, { plan: 'start' });
  await addMember(h.ctx, { labelId: id, login: 'a', name: 'A', role: 'owner' });
  await addMember(h.ctx, { labelId: id, login: 'b', name: 'B', role: 'viewer' });
  await assert.rejects(enforceLimit(h.ctx.db, await getLabel(h.ctx, id), 'members'), (error) => {
    assert.deepEqual(bodyOf(error), {
      error: 'The members limit of the plan is used up',
      code: 'plan_limit',
      resource: 'members',
      plan: 'start',
      limit: 2,
      used: 2,
      required_plan: 'label',
    });
    return true;
  });
});

test('on the largest plan the limit names no plan to move to; an override lifts it', async (t) => {
  const h = await buildHarness(t);
  const { id } = await givenLabel(h, { plan: 'enterprise' });
  await updateLabel(h.ctx, id, { limits: [['members', 1]] });
  await addMember(h.ctx, { labelId: id, login: 'a', name: 'A', role: 'owner' });
  await assert.rejects(enforceLimit(h.ctx.db, await getLabel(h.ctx, id), 'members'), (error) => {
    assert.equal((bodyOf(error) as { required_plan: unknown }).required_plan, null);
    return true;
  });
  await updateLabel(h.ctx, id, { limits: [['members', null]] });
  await enforceLimit(h.ctx.db, await getLabel(h.ctx, id), 'members', 1000);
});

test('a feature missing from the plan is 403 plan_required naming the cheapest plan with it', async (t) => {
  const h = await buildHarness(t);
  const label = await getLabel(h.ctx, (await givenLabel(h, { plan: 'label' })).id);
  requireFeature(label, 'events_feed');
  assert.throws(
    () => requireFeature(label, 'csv_export'),
    (error) => {
      assert.deepEqual(bodyOf(error), {
        error: 'This needs the Pro plan or above',
        code: 'plan_required',
        required_plan: 'pro',
      });
      return true;
    },
  );
});

test('a label update with nothing to change leaves the label as it is', async (t) => {
  const h = await buildHarness(t);
  const label = await givenLabel(h, { plan: 'pro' });
  assert.deepEqual(await updateLabel(h.ctx, label.id, {}), label);
});
