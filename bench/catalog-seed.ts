// A large catalog in one label, written straight to the database in bulk: the subject of the
// catalog bench is reading it, so the rows are made the fastest way, not through the API.
import type { Insertable } from 'kysely';
import type { Db } from '../src/db/database.ts';
import type { ReleaseDspStatusesTable, ReleasesTable, TracksTable } from '../src/db/schema.ts';
import { seededRandom } from '../src/lib/random.ts';
import { searchKey } from '../src/lib/text.ts';

export interface CatalogSize {
  releases: number;
  tracksPerRelease: number;
  artists: number;
}

/** A release spread through the catalog, for lookups that find something. */
export interface Sample {
  releaseId: number;
  artistId: number;
  upc: string;
  isrc: string;
}

/** Values the measured requests look up: they exist in the seeded catalog. */
export interface SeededFacts {
  samples: Sample[];
  /** A moment with about a tenth of the releases changed after it. */
  updatedSince: string;
  words: { common: string; rare: string; cyrillic: string; twoLetters: string; absent: string };
}

/** How many releases are kept as samples. */
const SAMPLES = 64;
/** Platforms each sent release has a status on. */
const DSPS = ['spotify', 'apple'];

/** Rows per INSERT: under SQLite's and PostgreSQL's bound-parameter limits for the widest row here. */
const ROWS_PER_INSERT = 1000;
/** Releases per transaction: big enough to be fast, small enough that the WAL stays modest. */
const RELEASES_PER_TRANSACTION = 5000;
const STATUSES: ReadonlyArray<readonly [string, number]> = [
  ['live', 0.7],
  ['draft', 0.1],
  ['submitted', 0.1],
  ['failed', 0.05],
  ['takedown', 0.03],
  ['submitting', 0.02],
];
const GENRES = ['Pop', 'Rock', 'Electronic', 'Hip-Hop', 'Jazz', 'Classical', 'Folk', 'Ambient'];
const STORE_LINKS = JSON.stringify({ spotify: 'https://open.spotify.com/album/x' });
const DAY_MS = 86_400_000;
const CATALOG_START_MS = Date.parse('2021-01-01T00:00:00.000Z');
const CATALOG_SPAN_MS = 5 * 365 * DAY_MS;

const LATIN_SYLLABLES = [
  'la',
  'mi',
  'ro',
  'ven',
  'tor',
  'sa',
  'ki',
  'dra',
  'mon',
  'el',
  'ri',
  'zu',
  'no',
  'fa',
  'quin',
];
const CYRILLIC_SYLLABLES = ['ла', 'ми', 'ро', 'вен', 'тор', 'са', 'ки', 'дра', 'мон', 'ёл', 'ри', 'жу'];

/** A vocabulary of made-up words with a long tail, like real titles: a few words are in many. */
function vocabulary(random: () => number): string[] {
  const words = new Set<string>();
  while (words.size < 3000) {
    const syllables = words.size % 10 === 9 ? CYRILLIC_SYLLABLES : LATIN_SYLLABLES;
    const length = 2 + Math.floor(random() * 2);
    let word = '';
    for (let i = 0; i < length; i++) word += syllables[Math.floor(random() * syllables.length)];
    words.add(word);
  }
  return [...words];
}

/** Zipf-like: word n is picked about 1/n as often as word 1. */
function pickWord(words: readonly string[], random: () => number): string {
  const index = Math.floor(words.length ** random()) - 1;
  return words[Math.min(Math.max(index, 0), words.length - 1)] ?? 'untitled';
}

function titleOf(words: readonly string[], random: () => number): string {
  const count = 1 + Math.floor(random() * 3);
  const picked = Array.from({ length: count }, () => pickWord(words, random));
  const title = picked.join(' ');
  return title.charAt(0).toUpperCase() + title.slice(1);
}

function statusOf(random: () => number): string {
  let roll = random();
  for (const [status, share] of STATUSES) {
    if (roll < share) return status;
    roll -= share;
  }
  return 'live';
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** 12 digits, unique per release number. */
function upcOf(n: number): string {
  return String(100_000_000_000 + n);
}

/** `QZLD1` and a 7-digit sequence: unique per track number. */
function isrcOf(n: number): string {
  return `QZLD1${String(n).padStart(7, '0')}`;
}

async function insertInChunks<T>(
  rows: readonly T[],
  insert: (chunk: T[]) => Promise<number[]>,
): Promise<number[]> {
  const ids: number[] = [];
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    ids.push(...(await insert(rows.slice(start, start + ROWS_PER_INSERT))));
  }
  return ids;
}

async function seedArtists(db: Db, labelId: number, size: CatalogSize, words: string[]): Promise<number[]> {
  const random = seededRandom(7);
  const at = iso(CATALOG_START_MS);
  const names = new Set<string>();
  while (names.size < size.artists) names.add(`${titleOf(words, random)} ${names.size}`);
  const rows = [...names].map((name) => ({
    label_id: labelId,
    name,
    name_key: searchKey(name),
    created_at: at,
    updated_at: at,
  }));
  return insertInChunks(rows, async (chunk) =>
    (await db.insertInto('artists').values(chunk).returning('id').execute()).map((row) => row.id),
  );
}

interface ReleaseDraft {
  row: Insertable<ReleasesTable>;
  tracks: Array<Omit<Insertable<TracksTable>, 'release_id'>>;
}

function draftRelease(
  n: number,
  labelId: number,
  artistIds: readonly number[],
  size: CatalogSize,
  words: readonly string[],
  random: () => number,
): ReleaseDraft {
  const createdMs = CATALOG_START_MS + Math.floor((n / size.releases) * CATALOG_SPAN_MS);
  const updatedMs = createdMs + Math.floor(random() * 30 * DAY_MS);
  const status = statusOf(random);
  const title = titleOf(words, random);
  const releaseDate = iso(createdMs + 21 * DAY_MS).slice(0, 10);
  const tracks = Array.from({ length: size.tracksPerRelease }, (_, i) => {
    const trackTitle = titleOf(words, random);
    const number = n * size.tracksPerRelease + i;
    return {
      label_id: labelId,
      number: i + 1,
      title: trackTitle,
      title_key: searchKey(trackTitle),
      isrc: number % 50 === 7 ? null : isrcOf(number),
      explicit: random() < 0.1 ? 1 : 0,
      instrumental: 0,
      language: 'en',
      writers: '[]',
      contributors: '[]',
      featured: '[]',
      created_at: iso(createdMs),
      updated_at: iso(createdMs),
    };
  });
  return {
    row: {
      label_id: labelId,
      artist_id: artistIds[Math.floor(random() * artistIds.length)] ?? 0,
      type: size.tracksPerRelease > 6 ? 'album' : size.tracksPerRelease > 3 ? 'ep' : 'single',
      title,
      title_key: searchKey(title),
      genre: GENRES[n % GENRES.length] ?? 'Pop',
      release_date: releaseDate,
      upc: status === 'draft' && n % 3 === 0 ? null : upcOf(n),
      territories: '"worldwide"',
      featured_artists: '[]',
      // Most live releases have been indexed by the platforms; the rest show in catalog health.
      store_links: status === 'live' && n % 10 !== 0 ? STORE_LINKS : '{}',
      status,
      created_at: iso(createdMs),
      updated_at: iso(updatedMs),
      submitted_at: status === 'draft' ? null : iso(createdMs + DAY_MS),
    },
    tracks,
  };
}

function dspStatusesOf(draft: ReleaseDraft, releaseId: number): Array<Insertable<ReleaseDspStatusesTable>> {
  const { status, label_id, updated_at } = draft.row;
  if (status === 'draft' || status === 'submitting') return [];
  const stage = status === 'failed' ? 'rejected' : status === 'takedown' ? 'taken_down' : status;
  return DSPS.map((dsp) => ({ release_id: releaseId, label_id, dsp, stage, detail: null, updated_at }));
}

async function insertReleases(db: Db, drafts: readonly ReleaseDraft[]): Promise<number[]> {
  const releaseIds = await insertInChunks(
    drafts.map((draft) => draft.row),
    async (chunk) =>
      (await db.insertInto('releases').values(chunk).returning('id').execute()).map((row) => row.id),
  );
  const tracks = drafts.flatMap((draft, i) =>
    draft.tracks.map((track) => ({ ...track, release_id: releaseIds[i] ?? 0 })),
  );
  await insertInChunks(tracks, async (chunk) => {
    await db.insertInto('tracks').values(chunk).execute();
    return [];
  });
  const statuses = drafts.flatMap((draft, i) => dspStatusesOf(draft, releaseIds[i] ?? 0));
  await insertInChunks(statuses, async (chunk) => {
    await db.insertInto('release_dsp_statuses').values(chunk).execute();
    return [];
  });
  return releaseIds;
}

/** The release as a sample, when it has the codes lookups need. */
function sampleOf(draft: ReleaseDraft, releaseId: number): Sample | null {
  const isrc = draft.tracks.find((track) => track.isrc)?.isrc;
  const { upc, artist_id } = draft.row;
  if (!upc || !isrc) return null;
  return { releaseId, artistId: artist_id, upc, isrc };
}

function factsOf(words: readonly string[], samples: Sample[]): SeededFacts {
  const cyrillic = words.find((word, i) => i > 40 && /[а-яё]/.test(word)) ?? 'ла';
  return {
    samples,
    updatedSince: iso(CATALOG_START_MS + 0.9 * CATALOG_SPAN_MS),
    words: {
      // Near the head of the long tail (in a few per cent of titles), and far along it.
      common: words[12] ?? 'la',
      rare: words[2500] ?? 'la',
      cyrillic,
      twoLetters: 'zu',
      absent: 'qqq',
    },
  };
}

/**
 * Writes `size.artists` artists and `size.releases` releases with their tracks into the label, in
 * transactions of a few thousand releases, and reports progress on `progress`.
 */
export async function seedCatalog(
  db: Db,
  labelId: number,
  size: CatalogSize,
  progress: (done: number) => void,
): Promise<SeededFacts> {
  const words = vocabulary(seededRandom(1));
  const artistIds = await db.transaction().execute((trx) => seedArtists(trx, labelId, size, words));
  const random = seededRandom(42);
  const sampleEvery = Math.max(1, Math.floor(size.releases / SAMPLES));
  const samples: Sample[] = [];
  for (let start = 0; start < size.releases; start += RELEASES_PER_TRANSACTION) {
    const end = Math.min(start + RELEASES_PER_TRANSACTION, size.releases);
    const drafts = Array.from({ length: end - start }, (_, i) =>
      draftRelease(start + i, labelId, artistIds, size, words, random),
    );
    const ids = await db.transaction().execute((trx) => insertReleases(trx, drafts));
    drafts.forEach((draft, i) => {
      const sample = (start + i) % sampleEvery === 0 ? sampleOf(draft, ids[i] ?? 0) : null;
      if (sample) samples.push(sample);
    });
    progress(end);
  }
  return factsOf(words, samples);
}

/** Where the seeded event feed starts and ends, for lookups that land in it. */
export interface SeededEvents {
  middleId: number;
  lastId: number;
}

const EVENTS_PER_TRANSACTION = 5_000;

/**
 * `count` events in the label's feed, written directly in large transactions: one in a hundred is
 * `release.live`, the rest `release.dsp_status`, as a busy label's feed would be.
 */
export async function seedEvents(db: Db, labelId: number, count: number): Promise<SeededEvents> {
  const created_at = new Date().toISOString();
  let firstId = 0;
  let lastId = 0;
  for (let start = 0; start < count; start += EVENTS_PER_TRANSACTION) {
    const rows = Array.from({ length: Math.min(EVENTS_PER_TRANSACTION, count - start) }, (_, i) => {
      const n = start + i;
      const live = n % 100 === 0;
      return {
        label_id: labelId,
        event: live ? 'release.live' : 'release.dsp_status',
        data: JSON.stringify(
          live
            ? { release: { id: n }, upc: null }
            : { release: { id: n }, dsp: 'spotify', stage: 'accepted', detail: null },
        ),
        created_at,
      };
    });
    const ids = await db.transaction().execute(async (trx) => {
      const inserted: number[] = [];
      // Within the bind-parameter limits of both engines.
      for (let i = 0; i < rows.length; i += 500) {
        const batch = await trx
          .insertInto('events')
          .values(rows.slice(i, i + 500))
          .returning('id')
          .execute();
        inserted.push(...batch.map((row) => row.id));
      }
      return inserted;
    });
    if (firstId === 0) firstId = ids[0] ?? 0;
    lastId = ids.at(-1) ?? lastId;
  }
  return { middleId: Math.floor((firstId + lastId) / 2), lastId };
}
