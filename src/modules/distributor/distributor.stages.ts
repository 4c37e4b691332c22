import type { DspStage, ReleaseStatus } from '../../db/values.ts';

/** Statuses of a release that is at the distributor: platform reports apply only to these. */
export const AT_DISTRIBUTOR: readonly ReleaseStatus[] = ['submitted', 'live', 'failed', 'takedown'];

/**
 * The moves a platform's stage can make. A distributor may skip stages it does not report (and a
 * takedown may come before a platform reported anything); a platform that rejected or failed may
 * be sent again; nothing comes back from `taken_down`.
 */
const MOVES: Readonly<Record<DspStage | 'none', readonly DspStage[]>> = {
  none: ['submitted', 'accepted', 'live', 'rejected', 'failed', 'taken_down'],
  submitted: ['accepted', 'live', 'rejected', 'failed', 'taken_down'],
  accepted: ['live', 'rejected', 'failed', 'taken_down'],
  live: ['failed', 'taken_down'],
  rejected: ['submitted', 'taken_down'],
  failed: ['submitted', 'taken_down'],
  taken_down: [],
};

export function canMove(from: DspStage | null, to: DspStage): boolean {
  return MOVES[from ?? 'none'].includes(to);
}

const UNSUCCESSFUL: readonly DspStage[] = ['rejected', 'failed'];

/**
 * The release status its platforms' stages add up to (docs/decisions.md): `live` once any
 * platform is live; `takedown` when every platform is taken down; `failed` when every platform
 * rejected or failed; otherwise it is still on its way (`submitted`). "Every platform" is every
 * platform that reported a stage: a distributor may serve only some of them. A mix of taken-down
 * and unsuccessful platforms is a takedown.
 */
export function statusFromStages(stages: ReadonlyMap<string, DspStage>): ReleaseStatus {
  const reported = [...stages.values()];
  if (reported.includes('live')) return 'live';
  const ended = reported.every((stage) => stage === 'taken_down' || UNSUCCESSFUL.includes(stage));
  if (reported.length === 0 || !ended) return 'submitted';
  return reported.includes('taken_down') ? 'takedown' : 'failed';
}
