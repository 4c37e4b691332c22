import { isoNow } from '../../clock.ts';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import { isSerializationFailure, snapshotTransaction } from '../../db/portable.ts';
import type { Workspace } from '../../db/scope.ts';
import { errors } from '../../errors.ts';
import { findSandboxOf, getLabel } from '../labels/index.ts';
import { queueMediaCollection } from '../media/index.ts';
import { forgetLabelTraffic } from '../smart-links/index.ts';
import {
  claimCatalogCopy,
  copyArtists,
  copyReleaseRecords,
  copyReleases,
  copyTracks,
  dropSandboxCatalog,
  markCatalogCopied,
  sandboxFiles,
} from './sandbox.store.ts';

/**
 * A sandbox works on a copy of its label's catalog, made by the first request of any of its keys:
 * artists, releases with their platform statuses and history, and tracks. Stored files are shared
 * (rows name them by content hash), not duplicated. The claim and the copy commit together, so the
 * copy happens once, also when first requests arrive together, and concurrent ones wait for it.
 */
export async function copyCatalogIntoSandbox(ctx: AppContext, workspace: Workspace): Promise<void> {
  try {
    // One snapshot for the four copies, so a release is never copied without its artist or tracks.
    await snapshotTransaction(ctx.db, ctx.dialect).execute(async (trx) => {
      if (!(await claimCatalogCopy(trx, workspace.id, isoNow(ctx.clock)))) return;
      await copyCatalog(trx, workspace.labelId, workspace.id);
    });
  } catch (error) {
    // On PostgreSQL a concurrent first request that claimed the copy first makes our claim fail:
    // its copy has committed, which is all this request needed.
    if (!isSerializationFailure(error)) throw error;
  }
}

async function copyCatalog(db: Db, labelId: number, sandboxId: number): Promise<void> {
  await copyArtists(db, labelId, sandboxId);
  await copyReleases(db, labelId, sandboxId);
  await copyTracks(db, labelId, sandboxId);
  await copyReleaseRecords(db, labelId, sandboxId);
}

/** `labeldesk sandbox reset`: drops the sandbox's catalog and copies the label's again. */
export async function resetSandbox(ctx: AppContext, labelId: number): Promise<{ sandbox_id: number }> {
  const label = await getLabel(ctx, labelId);
  if (label.parent_id !== null) throw errors.invalid('label', 'Name the label itself, not its sandbox');
  const sandbox = await findSandboxOf(ctx.db, label.id);
  if (!sandbox) throw errors.invalid('label', 'This label has no sandbox: create a key with --sandbox first');
  const files = await sandboxFiles(ctx.db, sandbox.id);
  await snapshotTransaction(ctx.db, ctx.dialect).execute(async (trx) => {
    await dropSandboxCatalog(trx, sandbox.id);
    await forgetLabelTraffic(trx, sandbox.id);
    await markCatalogCopied(trx, sandbox.id, isoNow(ctx.clock));
    await copyCatalog(trx, label.id, sandbox.id);
    await queueMediaCollection(trx, files, ctx.clock.now());
  });
  return { sandbox_id: sandbox.id };
}
