import type { Config } from '../../config.ts';
import { type ReleaseRow, updateRelease } from '../../core/releases.ts';
import { nextInSequence } from '../../core/sequences.ts';
import type { TrackRow } from '../../core/tracks.ts';
import type { Db } from '../../db/database.ts';
import type { Workspace } from '../../db/scope.ts';
import { ean13 } from '../../lib/gtin.ts';
import { composeIsrc, MAX_ISRC_DESIGNATION } from '../../lib/isrc.ts';
import { isrcInUse, setTrackIsrc, upcInUse } from './moderation.store.ts';

/**
 * GS1 prefix 200 is "restricted circulation": such numbers never name a trade item in a store,
 * so a sandbox's releases get valid EAN-13s without using up the label's company prefix.
 */
const SANDBOX_UPC_PREFIX = '200';
/**
 * A sandbox's ISRCs start with XX, a code ISO 3166 leaves to user assignment, so no national ISRC
 * agency issues it: test recordings never take numbers of the label's registrant code.
 */
const SANDBOX_ISRC_STEM = { country: 'XX', registrant: 'SBX' } as const;

export interface AssignedIdentifiers {
  upc: string;
  /** Every track's ISRC, in track order. */
  isrcs: string[];
}

/** A counter's numbers, skipping those a label typed in by hand for another release or track. */
async function nextFree(
  db: Db,
  sequence: string,
  make: (n: number) => string,
  taken: (db: Db, value: string) => Promise<boolean>,
): Promise<string> {
  for (;;) {
    const value = make(await nextInSequence(db, sequence));
    if (!(await taken(db, value))) return value;
  }
}

function exhausted(what: string, setting: string): Error {
  return new Error(`No ${what} left to assign: set a new ${setting}`);
}

async function assignUpc(db: Db, config: Config, workspace: Workspace): Promise<string> {
  const prefix = workspace.sandbox ? SANDBOX_UPC_PREFIX : config.upcPrefix;
  const sequence = workspace.sandbox ? 'upc.sandbox' : `upc.${prefix}`;
  const capacity = 10 ** (12 - prefix.length);
  return nextFree(
    db,
    sequence,
    (n) => {
      if (n >= capacity) throw exhausted('UPC', 'UPC_PREFIX');
      return ean13(prefix, n);
    },
    upcInUse,
  );
}

async function assignIsrc(db: Db, config: Config, workspace: Workspace, year: number): Promise<string> {
  const { country, registrant } = workspace.sandbox
    ? SANDBOX_ISRC_STEM
    : { country: config.isrcCountry, registrant: config.isrcRegistrant };
  return nextFree(
    db,
    `isrc.${country}${registrant}.${year}`,
    (n) => {
      if (n > MAX_ISRC_DESIGNATION) throw exhausted(`ISRC for ${year}`, 'ISRC_REGISTRANT');
      return composeIsrc(country, registrant, year, n);
    },
    isrcInUse,
  );
}

/**
 * Gives the release a UPC and each track an ISRC where the label sent none, as the release goes
 * to the distributor. Call it inside the approval's transaction: numbers of an approval that
 * rolls back are not used again, which the identifier schemes allow (gaps are harmless).
 */
export async function assignIdentifiers(
  db: Db,
  config: Config,
  workspace: Workspace,
  release: ReleaseRow,
  tracks: readonly TrackRow[],
  at: Date,
): Promise<AssignedIdentifiers> {
  let upc = release.upc;
  if (upc === null) {
    upc = await assignUpc(db, config, workspace);
    await updateRelease(db, workspace.id, release.id, { upc });
  }
  const isrcs: string[] = [];
  for (const track of tracks) {
    let isrc = track.isrc;
    if (isrc === null) {
      isrc = await assignIsrc(db, config, workspace, at.getUTCFullYear());
      await setTrackIsrc(db, workspace.id, track.id, isrc);
    }
    isrcs.push(isrc);
  }
  return { upc, isrcs };
}
