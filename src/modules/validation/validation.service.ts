import type { Static } from 'typebox';
import type { AppContext } from '../../context.ts';
import { loadRelease } from '../../core/releases.ts';
import { listReleaseTracks } from '../../core/tracks.ts';
import type { Workspace } from '../../db/scope.ts';
import { errorsOf, releaseProblems } from './validation.checks.ts';
import type { ValidationBody } from './validation.schemas.ts';

/**
 * `POST /releases/{id}/validate`: what submit would refuse (errors) and what a label wants to know
 * first (warnings), from the stored rows alone. It changes nothing, so it is safe to repeat.
 */
export async function validateRelease(
  ctx: AppContext,
  workspace: Workspace,
  id: number,
): Promise<Static<typeof ValidationBody>> {
  const release = await loadRelease(ctx.db, workspace, id);
  const tracks = await listReleaseTracks(ctx.db, workspace.id, id);
  const problems = await releaseProblems(ctx.db, { release, tracks, now: ctx.clock.now() });
  return { release_id: release.id, ready: errorsOf(problems).length === 0, problems };
}
