import type { AppContext } from '../../context.ts';
import { assertDraft, changeRelease, loadRelease, type ReleaseRow } from '../../core/releases.ts';
import type { TrackRow } from '../../core/tracks.ts';
import type { Db } from '../../db/database.ts';
import type { Workspace } from '../../db/scope.ts';
import { errors } from '../../errors.ts';
import type { SchemaCheck } from '../../http/validation.ts';
import { searchKey } from '../../lib/text.ts';
import { discardFile, keepUpload, removeUnusedMedia } from '../media/index.ts';
import { queueAudioAnalysis } from './tracks.analysis.ts';
import { type AudioFacts, probeAudio } from './tracks.audio.ts';
import { assertPreviewWithin, formInput, type TrackFieldsInput, trackChanges } from './tracks.fields.ts';
import {
  countReleaseTracks,
  deleteTrackRow,
  findTrack,
  insertTrack,
  shiftTrackNumbers,
  updateTrackRow,
} from './tracks.store.ts';
import type { ReceivedAudio, TrackForm } from './tracks.upload.ts';

/** Spec, "Other constants": a single holds at most three tracks. */
export const MAX_SINGLE_TRACKS = 3;

/** Track metadata and audio may change while the release is a draft or waits for moderation. */
export function assertTrackEditable(release: ReleaseRow): void {
  if (release.status === 'draft') return;
  if (release.status === 'submitting' && release.review_status === 'pending') return;
  throw errors.conflict(
    `Tracks may change only while the release is a draft or waits for moderation (it is ${release.status})`,
  );
}

export async function loadTrack(
  db: Db,
  workspace: Workspace,
  releaseId: number,
  trackId: number,
): Promise<TrackRow> {
  const track = await findTrack(db, workspace.id, releaseId, trackId);
  if (!track) throw errors.notFound('Track');
  return track;
}

/** 409 unless a track may be added: the release is a draft, and a single has room left. */
async function assertRoomForTrack(db: Db, workspace: Workspace, release: ReleaseRow): Promise<number> {
  assertDraft(release, 'Adding a track');
  const count = await countReleaseTracks(db, workspace.id, release.id);
  if (release.type === 'single' && count >= MAX_SINGLE_TRACKS) {
    throw errors.conflict(`A single holds at most ${MAX_SINGLE_TRACKS} tracks`);
  }
  return count;
}

/** Checked before an upload is read, so a refused one is not transferred first. */
export async function assertCanAddTrack(
  ctx: AppContext,
  workspace: Workspace,
  releaseId: number,
): Promise<void> {
  await assertRoomForTrack(ctx.db, workspace, await loadRelease(ctx.db, workspace, releaseId));
}

/** Checked before a replacement audio is read: the track exists and may change. */
export async function assertCanReplaceAudio(
  ctx: AppContext,
  workspace: Workspace,
  releaseId: number,
  trackId: number,
): Promise<void> {
  assertTrackEditable(await loadRelease(ctx.db, workspace, releaseId));
  await loadTrack(ctx.db, workspace, releaseId, trackId);
}

/** Changes one track of a release whose tracks may change, in one transaction with the release. */
export async function editTrack<T>(
  ctx: AppContext,
  workspace: Workspace,
  ids: { releaseId: number; trackId: number },
  edit: (trx: Db, track: TrackRow, at: string) => Promise<T>,
): Promise<T> {
  return changeRelease(ctx, workspace, ids.releaseId, async (trx, release, at) => {
    assertTrackEditable(release);
    return edit(trx, await loadTrack(trx, workspace, ids.releaseId, ids.trackId), at);
  });
}

export async function getTrack(
  ctx: AppContext,
  workspace: Workspace,
  releaseId: number,
  trackId: number,
): Promise<TrackRow> {
  return loadTrack(ctx.db, workspace, releaseId, trackId);
}

function audioColumns(audio: ReceivedAudio, facts: AudioFacts) {
  return {
    audio_hash: audio.file.sha256,
    audio_format: facts.format,
    audio_filename: audio.filename ?? `audio.${facts.format}`,
    audio_bytes: audio.file.bytes,
    duration_sec: facts.durationSec,
    sample_rate: facts.sampleRate,
    bit_depth: facts.bitDepth,
    channels: facts.channels,
  };
}

/** Runs `step` on a received file; when it fails, the temporary file is removed before the error goes on. */
async function orDiscard<T>(audio: ReceivedAudio, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    await discardFile(audio.file);
    throw error;
  }
}

/** Probes and checks a received file; a refused file is removed. */
async function checkAudio(audio: ReceivedAudio, check: (facts: AudioFacts) => void): Promise<AudioFacts> {
  return orDiscard(audio, async () => {
    const facts = await probeAudio(audio.file.tempPath);
    check(facts);
    return facts;
  });
}

function checkedMetadata(form: TrackForm, check: SchemaCheck) {
  const changes = trackChanges(formInput(form.fields, check));
  const title = changes.title;
  if (title === undefined) throw errors.invalid('title', 'title is required');
  return { ...changes, title, title_key: searchKey(title) };
}

export async function createTrack(
  ctx: AppContext,
  workspace: Workspace,
  releaseId: number,
  form: TrackForm,
  check: SchemaCheck,
): Promise<TrackRow> {
  const audio = form.audio;
  if (!audio)
    throw errors.invalid('audio', 'The audio file is required: WAV or FLAC in the file field audio');
  const metadata = await orDiscard(audio, () => checkedMetadata(form, check));
  const facts = await checkAudio(audio, (probed) =>
    assertPreviewWithin(metadata.preview_start_sec ?? null, probed.durationSec),
  );
  return keepUpload(ctx, 'audio', audio.file, facts.format, () =>
    changeRelease(ctx, workspace, releaseId, async (trx, release, at) => {
      const count = await assertRoomForTrack(trx, workspace, release);
      const track = await insertTrack(trx, {
        label_id: workspace.id,
        release_id: release.id,
        number: count + 1,
        explicit: 0,
        instrumental: 0,
        writers: '[]',
        contributors: '[]',
        featured: '[]',
        ...metadata,
        ...audioColumns(audio, facts),
        created_at: at,
        updated_at: at,
      });
      await queueAudioAnalysis(trx, track.id, at);
      return track;
    }),
  );
}

/** Puts the track at `to` and closes the gap it leaves: numbers stay 1..n. */
async function moveTrack(trx: Db, workspace: Workspace, track: TrackRow, to: number): Promise<void> {
  const count = await countReleaseTracks(trx, workspace.id, track.release_id);
  if (to > count) throw errors.invalid('number', `number must be between 1 and ${count}`);
  if (to < track.number) {
    await shiftTrackNumbers(trx, workspace.id, track.release_id, { from: to, to: track.number - 1 }, 1);
  } else if (to > track.number) {
    await shiftTrackNumbers(trx, workspace.id, track.release_id, { from: track.number + 1, to }, -1);
  }
}

export async function patchTrack(
  ctx: AppContext,
  workspace: Workspace,
  ids: { releaseId: number; trackId: number },
  input: TrackFieldsInput & { number?: number },
): Promise<TrackRow> {
  const changes = trackChanges(input);
  return editTrack(ctx, workspace, ids, async (trx, track, at) => {
    if (changes.preview_start_sec !== undefined)
      assertPreviewWithin(changes.preview_start_sec, track.duration_sec);
    if (input.number !== undefined) await moveTrack(trx, workspace, track, input.number);
    return updateTrackRow(trx, workspace.id, track.id, {
      ...changes,
      ...(input.number !== undefined && { number: input.number }),
      updated_at: at,
    });
  });
}

/**
 * Replaces a track's audio. A preview start that the new audio is too short for is cleared (the
 * platforms then choose the preview). The old file goes once no track refers to it.
 */
export async function replaceAudio(
  ctx: AppContext,
  workspace: Workspace,
  ids: { releaseId: number; trackId: number },
  audio: ReceivedAudio,
): Promise<TrackRow> {
  const facts = await checkAudio(audio, () => undefined);
  const { previous, row } = await keepUpload(ctx, 'audio', audio.file, facts.format, () =>
    editTrack(ctx, workspace, ids, async (trx, track, at) => {
      const preview = track.preview_start_sec;
      const row = await updateTrackRow(trx, workspace.id, track.id, {
        ...audioColumns(audio, facts),
        preview_start_sec: preview !== null && preview >= facts.durationSec ? null : preview,
        updated_at: at,
      });
      await queueAudioAnalysis(trx, track.id, at);
      return { previous: track, row };
    }),
  );
  await forgetAudio(ctx, previous);
  return row;
}

async function forgetAudio(ctx: AppContext, track: TrackRow): Promise<void> {
  if (track.audio_hash && track.audio_format) {
    await removeUnusedMedia(ctx, 'audio', [{ hash: track.audio_hash, format: track.audio_format }]);
  }
}

/** Deletes a track of a draft and renumbers the ones after it; its file goes once unreferenced. */
export async function deleteTrack(
  ctx: AppContext,
  workspace: Workspace,
  ids: { releaseId: number; trackId: number },
): Promise<void> {
  const track = await changeRelease(ctx, workspace, ids.releaseId, async (trx, release) => {
    assertDraft(release, 'Deleting a track');
    const found = await loadTrack(trx, workspace, ids.releaseId, ids.trackId);
    await deleteTrackRow(trx, workspace.id, found.id);
    await shiftTrackNumbers(trx, workspace.id, release.id, { from: found.number + 1 }, -1);
    return found;
  });
  await forgetAudio(ctx, track);
}
