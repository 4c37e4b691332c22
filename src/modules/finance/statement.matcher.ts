import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { RoyaltyLinesTable, RoyaltyUnmatchedLinesTable } from '../../db/schema.ts';
import { groupBy } from '../../lib/group-by.ts';
import { type ReleaseMatch, releasesByUpc, type TrackMatch, tracksByIsrc } from './sales-catalog.store.ts';
import type { StatementLine } from './statement.parser.ts';

interface Owner {
  labelId: number;
  releaseId: number;
  trackId: number | null;
}

type Match = { owner: Owner } | { reason: string };

/** A UPC-A and the EAN-13 that is the same code with a leading zero name one product. */
function upcSpellings(upc: string): string[] {
  if (upc.length === 12) return [upc, `0${upc}`];
  if (upc.startsWith('0')) return [upc, upc.slice(1)];
  return [upc];
}

function distinctLabels(matches: readonly { label_id: number }[]): number {
  return new Set(matches.map((match) => match.label_id)).size;
}

/**
 * Matches each line to the label that owns it: by ISRC to a track (the finer match), else by UPC
 * to a release. A code found in more than one label is paid to no one and left to the operator.
 */
class LineMatcher {
  private constructor(
    private readonly tracks: Map<string, TrackMatch[]>,
    private readonly releases: Map<string, ReleaseMatch[]>,
  ) {}

  static async load(db: Db, lines: readonly StatementLine[]): Promise<LineMatcher> {
    const isrcs = [...new Set(lines.flatMap((line) => (line.isrc ? [line.isrc] : [])))];
    const upcs = [...new Set(lines.flatMap((line) => (line.upc ? upcSpellings(line.upc) : [])))];
    const tracks = await tracksByIsrc(db, isrcs);
    const releases = await releasesByUpc(db, upcs);
    return new LineMatcher(
      groupBy(tracks, (track) => track.isrc),
      groupBy(releases, (release) => release.upc),
    );
  }

  match(line: StatementLine): Match {
    const byTrack = line.isrc ? this.byIsrc(line.isrc, line.upc) : undefined;
    if (byTrack) return byTrack;
    const byRelease = line.upc ? this.byUpc(line.upc) : undefined;
    if (byRelease) return byRelease;
    return { reason: 'no release with this UPC and no track with this ISRC' };
  }

  private byIsrc(isrc: string, upc: string | null): Match | undefined {
    const tracks = this.tracks.get(isrc) ?? [];
    const [first] = tracks;
    if (!first) return undefined;
    if (distinctLabels(tracks) > 1) return { reason: `ISRC ${isrc} is on tracks of more than one label` };
    const spellings = upc ? upcSpellings(upc) : [];
    // An ISRC on a single and on an album: the line's UPC says which release sold.
    const track = tracks.find((candidate) => spellings.includes(candidate.release_upc ?? '')) ?? first;
    return { owner: { labelId: track.label_id, releaseId: track.release_id, trackId: track.track_id } };
  }

  private byUpc(upc: string): Match | undefined {
    const releases = upcSpellings(upc).flatMap((spelling) => this.releases.get(spelling) ?? []);
    const [first] = releases;
    if (!first) return undefined;
    if (distinctLabels(releases) > 1) return { reason: `UPC ${upc} is on releases of more than one label` };
    return { owner: { labelId: first.label_id, releaseId: first.release_id, trackId: null } };
  }
}

/** A statement's lines as rows: those paid to the label that owns them, and those paid to no one. */
export interface MatchedLines {
  matched: Insertable<RoyaltyLinesTable>[];
  unmatched: Omit<Insertable<RoyaltyUnmatchedLinesTable>, 'statement_id'>[];
}

export async function matchLines(db: Db, lines: readonly StatementLine[]): Promise<MatchedLines> {
  const matcher = await LineMatcher.load(db, lines);
  const result: MatchedLines = { matched: [], unmatched: [] };
  for (const line of lines) {
    const match = matcher.match(line);
    const common = {
      line_number: line.line,
      period: line.period,
      upc: line.upc,
      isrc: line.isrc,
      dsp: line.dsp,
      country: line.country,
      quantity: line.quantity,
      revenue_micros: line.revenueMicros,
    };
    if ('reason' in match) {
      result.unmatched.push({ ...common, reason: match.reason });
    } else {
      result.matched.push({
        ...common,
        label_id: match.owner.labelId,
        statement_id: null,
        release_id: match.owner.releaseId,
        track_id: match.owner.trackId,
      });
    }
  }
  return result;
}
