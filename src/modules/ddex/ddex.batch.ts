import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Config, DdexParty } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import type { Workspace } from '../../db/scope.ts';
import { errors } from '../../errors.ts';
import { workspaceOwning } from '../labels/index.ts';
import { type MediaObjects, mediaObjects, newTempPath, objectsAt } from '../media/index.ts';
import { type PlatformKey, platformName } from '../platforms/index.ts';
import type { DealEnd } from './ddex.message.ts';
import { type DdexFile, type DdexRelease, loadDdexRelease } from './ddex.release.ts';
import { ddexSender, messageFor } from './ddex.service.ts';

/** A platform a batch is written for, and the DDEX party its messages are addressed to. */
export interface BatchTarget {
  readonly dsp: PlatformKey;
  readonly recipient: DdexParty;
}

export interface WrittenBatch {
  readonly dsp: PlatformKey;
  readonly batch_id: string;
  /** The batch's folder in the outbox: `<platform>/<batch id>`. */
  readonly folder: string;
  /** Every file written, relative to the outbox, the BatchComplete marker last. */
  readonly files: readonly string[];
}

/** The configured platforms (DDEX_PLATFORMS) among `dsps`, in the configured order. */
export function batchTargets(config: Config, dsps?: readonly string[]): BatchTarget[] {
  return config.ddex.platforms
    .filter((platform) => !dsps || dsps.includes(platform.key))
    .map((platform) => ({
      dsp: platform.key,
      recipient: { id: platform.partyId, name: platformName(platform.key) },
    }));
}

/** A batch is named by its time to the millisecond, `yyyyMMddHHmmssSSS`, as DDEX's choreography names them. */
function batchIdAt(at: Date): string {
  return at.toISOString().replace(/\D/g, '').slice(0, 17);
}

async function putText(outbox: MediaObjects, key: string, text: string): Promise<void> {
  const path = await newTempPath(outbox.tempDir);
  await writeFile(path, text);
  await outbox.put(key, path, 'move');
}

async function copyStored(ctx: AppContext, outbox: MediaObjects, file: DdexFile, key: string): Promise<void> {
  const copied = await mediaObjects(ctx.config).withLocalFile(file.key, async (path) => {
    await outbox.put(key, path, 'copy');
    return true;
  });
  if (!copied) throw new Error(`the stored file ${file.key} is missing: the batch cannot carry ${file.uri}`);
}

/**
 * One batch: `<platform>/<batch id>/<UPC>/<UPC>.xml` with the files it names under
 * `<UPC>/resources/`, then the empty `BatchComplete_<batch id>.xml` marker, written last so that
 * a platform that picks up the folder never takes a batch still being written. A takedown (`end`)
 * carries the message only: its files were delivered before.
 */
async function writeBatch(
  ctx: AppContext,
  outbox: MediaObjects,
  workspace: Workspace,
  release: DdexRelease,
  target: BatchTarget,
  end: DealEnd | null,
): Promise<WrittenBatch> {
  const batchId = batchIdAt(ctx.clock.now());
  const folder = `${target.dsp}/${batchId}`;
  const releaseFolder = `${folder}/${release.upc}`;
  const files: string[] = [];
  if (!end) {
    for (const file of [release.cover, ...release.tracks.map((track) => track.audio)]) {
      const key = `${releaseFolder}/${file.uri}`;
      await copyStored(ctx, outbox, file, key);
      files.push(key);
    }
  }
  const messageKey = `${releaseFolder}/${release.upc}.xml`;
  await putText(outbox, messageKey, messageFor(ctx, workspace, release, target.recipient, end));
  const markerKey = `${folder}/BatchComplete_${batchId}.xml`;
  await putText(outbox, markerKey, '');
  return { dsp: target.dsp, batch_id: batchId, folder, files: [...files, messageKey, markerKey] };
}

/**
 * A batch per target for the release, in the outbox at `location` (DDEX_OUTBOX_URL, or the folder
 * `labeldesk ddex export` is given): a delivery, or with `end` a takedown whose deals end that day.
 */
export async function writeReleaseBatches(
  ctx: AppContext,
  location: Config['media'],
  workspace: Workspace,
  releaseId: number,
  targets: readonly BatchTarget[],
  end: DealEnd | null,
): Promise<WrittenBatch[]> {
  const release = await loadDdexRelease(ctx.db, workspace, releaseId);
  const outbox = objectsAt(location, ctx.config);
  const written: WrittenBatch[] = [];
  for (const target of targets) written.push(await writeBatch(ctx, outbox, workspace, release, target, end));
  return written;
}

/**
 * `labeldesk ddex export RELEASE_ID --out DIR`: the batches the ddex distributor writes, for every
 * platform of DDEX_PLATFORMS (or those of `dsps`), into the folder `dir`.
 */
export async function exportBatches(
  ctx: AppContext,
  releaseId: number,
  dir: string,
  dsps?: readonly string[],
): Promise<WrittenBatch[]> {
  ddexSender(ctx);
  const unknown = dsps?.find((dsp) => !ctx.config.ddex.platforms.some((platform) => platform.key === dsp));
  if (unknown !== undefined) {
    throw errors.invalid('dsp', `${unknown} is not one of the platforms of DDEX_PLATFORMS`);
  }
  const targets = batchTargets(ctx.config, dsps);
  if (targets.length === 0) {
    throw errors.invalid(
      'dsp',
      'No platform to write for: DDEX_PLATFORMS lists the platforms and their DPIDs',
    );
  }
  const workspace = await workspaceOwning(ctx.db, 'releases', releaseId);
  if (!workspace) throw errors.notFound('Release');
  return writeReleaseBatches(ctx, { kind: 'file', root: resolve(dir) }, workspace, releaseId, targets, null);
}
