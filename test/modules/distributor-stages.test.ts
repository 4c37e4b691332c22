import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DspStage } from '../../src/db/values.ts';
import { canMove, statusFromStages } from '../../src/modules/distributor/distributor.stages.ts';
import { PLATFORM_KEYS } from '../../src/modules/platforms/platforms.catalog.ts';

function every(stage: DspStage): Map<string, DspStage> {
  return new Map(PLATFORM_KEYS.map((key) => [key, stage]));
}

test('a release is live once any platform is live, whatever the others say', () => {
  const stages = every('rejected');
  stages.set('deezer', 'live');
  assert.equal(statusFromStages(stages), 'live');
  assert.equal(statusFromStages(new Map([['spotify', 'live']])), 'live');
});

test('failed needs every reporting platform rejected or failed; a platform still on its way keeps it submitted', () => {
  assert.equal(statusFromStages(every('rejected')), 'failed');
  const mixed = every('failed');
  mixed.set('tidal', 'rejected');
  assert.equal(statusFromStages(mixed), 'failed');
  mixed.set('spotify', 'accepted');
  assert.equal(statusFromStages(mixed), 'submitted');
  assert.equal(statusFromStages(new Map()), 'submitted');
  // A distributor may serve some platforms only: those that reported decide.
  assert.equal(statusFromStages(new Map([['spotify', 'rejected']])), 'failed');
  assert.equal(statusFromStages(new Map([['spotify', 'taken_down']])), 'takedown');
});

test('takedown when every platform is taken down, or taken down and otherwise unsuccessful', () => {
  assert.equal(statusFromStages(every('taken_down')), 'takedown');
  const partly = every('taken_down');
  partly.set('pandora', 'rejected');
  assert.equal(statusFromStages(partly), 'takedown');
  partly.set('pandora', 'live');
  assert.equal(statusFromStages(partly), 'live');
});

test('stages move forward; nothing comes back from taken_down; a refused platform may be sent again', () => {
  const allowed: Array<[DspStage | null, DspStage]> = [
    [null, 'submitted'],
    [null, 'live'],
    [null, 'taken_down'],
    ['submitted', 'accepted'],
    ['accepted', 'live'],
    ['accepted', 'rejected'],
    ['live', 'taken_down'],
    ['live', 'failed'],
    ['rejected', 'submitted'],
    ['failed', 'submitted'],
  ];
  const refused: Array<[DspStage | null, DspStage]> = [
    ['live', 'submitted'],
    ['live', 'accepted'],
    ['accepted', 'submitted'],
    ['rejected', 'live'],
    ['taken_down', 'submitted'],
    ['taken_down', 'live'],
  ];
  for (const [from, to] of allowed) assert.ok(canMove(from, to), `${from} -> ${to}`);
  for (const [from, to] of refused) assert.ok(!canMove(from, to), `${from} -> ${to}`);
});
