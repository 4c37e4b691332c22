import { type Json, readJson } from '../../db/json-column.ts';
import { PLATFORMS } from '../platforms/index.ts';
import type { ProblemCode } from './validation.codes.ts';

/**
 * The pure rules that block a release: text rules for titles and versions, credits, and rules on the
 * audio facts stored with a track. Each returns the problem it finds (a code and one sentence) or null; the
 * caller attaches the field path. Modelled on what the stores' and distributors' style guides
 * (Apple Music Style Guide, Spotify's metadata guidelines, DistroKid, CD Baby, TuneCore) have in
 * common; where a rule could refuse an ordinary title, it is narrowed and the narrowing explained.
 */
export interface Issue {
  readonly code: ProblemCode;
  readonly message: string;
}

/**
 * Whose text or audio a rule reads. Messages name it ("the title of track 2"), since a rejection's
 * comment is the list of sentences alone; and the advice differs (only a track has an explicit flag).
 */
export type Owner = { readonly kind: 'release' } | { readonly kind: 'track'; readonly number: number };
export const RELEASE: Owner = { kind: 'release' };

export function trackOwner(number: number): Owner {
  return { kind: 'track', number };
}

export type TextPart = 'title' | 'version';

function subject(owner: Owner, part: TextPart): string {
  return owner.kind === 'release' ? `The release ${part}` : `The ${part} of track ${owner.number}`;
}

/** Not a letter or digit before and after: a whole word, in any script (\b only knows ASCII). */
function word(pattern: string): string {
  return `(?<![\\p{L}\\p{N}])(?:${pattern})(?![\\p{L}\\p{N}])`;
}

/** Not followed by a letter or digit: the end of a word. */
const WORD_END = '(?![\\p{L}\\p{N}])';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// --- Featured artists -------------------------------------------------------------------------

/**
 * "feat." and "ft." with their full stop are credits wherever they stand; "featuring" is one when a
 * name follows. Bare "feat"/"ft" count only right after an opening bracket ("(feat Nova)"), since
 * "A Great Feat" or "Six Ft Deep" are ordinary titles.
 */
const FEATURING = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:feat|ft)\\.|${word('featuring')}\\s+\\S|[(\\[]\\s*(?:feat|ft)${WORD_END}\\s*\\S`,
  'iu',
);

function featuredArtistInText(text: string, owner: Owner, part: TextPart): Issue | null {
  if (!FEATURING.test(text)) return null;
  const credits =
    owner.kind === 'release' ? "the release's featured_artists" : "the track's featured credits";
  return {
    code: 'featured_artist_in_title',
    message: `${subject(owner, part)} names a featured artist ("feat."); remove it and list featured artists in ${credits}.`,
  };
}

// --- Capitals --------------------------------------------------------------------------------

/**
 * More than this many capital letters and not one small letter is "all caps". Four and fewer pass,
 * so acronyms and initialisms (ABBA, NASA, DNA, AC/DC) are allowed; letters without case (Chinese,
 * Japanese, Arabic...), digits and symbols are not counted, so such titles never trip the rule.
 */
const MAX_CAPITALS_OF_AN_ACRONYM = 4;

function isAllCapitals(text: string): boolean {
  const capitals = text.match(/\p{Lu}/gu)?.length ?? 0;
  return capitals > MAX_CAPITALS_OF_AN_ACRONYM && !/\p{Ll}/u.test(text);
}

function allCapitalsText(text: string, owner: Owner, part: TextPart): Issue | null {
  if (!isAllCapitals(text)) return null;
  return {
    code: 'title_all_caps',
    message: `${subject(owner, part)} is written in capital letters; stores require standard capitalisation (all capitals only for acronyms).`,
  };
}

// --- Store names and web addresses -----------------------------------------------------------

/**
 * Names of stores and services that a title must not advertise: the platforms we deliver to, and
 * other stores and social networks the style guides name. Ordinary words are left out as bare words
 * ("Amazon" the river, "Pandora" of the myth, "Tidal Wave"): those count only as the service's full
 * name ("Amazon Music", "Pandora Radio") or, for TIDAL, in the capitals the brand is written in.
 */
const AMBIGUOUS_PLATFORM_NAMES = new Set(['TIDAL', 'Pandora']);
const STORE_NAMES: readonly string[] = [
  ...PLATFORMS.map((platform) => platform.name).filter((name) => !AMBIGUOUS_PLATFORM_NAMES.has(name)),
  'Spotify',
  'iTunes',
  'YouTube',
  'Apple Music',
  'Amazon Music',
  'Amazon Prime',
  'Pandora Radio',
  'Google Play',
  'Shazam',
  'TikTok',
  'Instagram',
  'Facebook',
  'Beatport',
  'Bandcamp',
  'Qobuz',
  'JioSaavn',
  'Yandex Music',
  'VK Music',
];
const STORE_NAME = new RegExp(
  word([...new Set(STORE_NAMES)].map((name) => escapeRegExp(name).replace(/\s+/g, '\\s*')).join('|')),
  'iu',
);
/** Matched in its own capitals only, and only in a title that is not all capitals anyway. */
const TIDAL = new RegExp(word('TIDAL'), 'u');

function storeNameIn(text: string): string | null {
  const match = STORE_NAME.exec(text) ?? (isAllCapitals(text) ? null : TIDAL.exec(text));
  return match ? match[0] : null;
}

function storeNameInText(text: string, owner: Owner, part: TextPart): Issue | null {
  const name = storeNameIn(text);
  if (name === null) return null;
  return {
    code: 'store_name_in_title',
    message: `${subject(owner, part)} names a store or service ("${name}"); remove it, as stores refuse titles that mention a platform.`,
  };
}

/**
 * A web address: a scheme, "www.", or a name ending in a common top-level domain ("nova.com",
 * "band.fm"). The domain list keeps "Vol.2", "Pt.II" or "St.Louis" from matching.
 */
const WEB_ADDRESS = new RegExp(
  `https?://|(?<![\\p{L}\\p{N}])www\\.|[\\p{L}\\p{N}-]+\\.(?:com|net|org|info|biz|io|fm|co|me|tv|ly|app|music|store|shop|xyz|online|site|link|live)${WORD_END}`,
  'iu',
);

function webAddressInText(text: string, owner: Owner, part: TextPart): Issue | null {
  if (!WEB_ADDRESS.test(text)) return null;
  return {
    code: 'url_in_title',
    message: `${subject(owner, part)} contains a web address; remove it, as stores refuse links and addresses in titles.`,
  };
}

// --- Explicit / clean markers ----------------------------------------------------------------

const MARKER =
  '(?:explicit|clean|dirty|censored|uncensored)(?:\\s+(?:version|edit|lyrics))?|parental\\s+advisory';
/**
 * In a title a marker is a bracketed or dash-separated part ("(Explicit)", "- Clean Version"): the
 * words alone are ordinary ("Come Clean"). A version that is nothing but a marker is one too.
 */
const MARKER_IN_TITLE = new RegExp(`[(\\[]\\s*(?:${MARKER})\\s*[)\\]]|\\s[-–—]\\s*(?:${MARKER})\\s*$`, 'iu');
const MARKER_AS_VERSION = new RegExp(`^\\s*[(\\[]?\\s*(?:${MARKER})\\s*[)\\]]?\\s*$`, 'iu');

function explicitMarkerInText(text: string, owner: Owner, part: TextPart): Issue | null {
  if (!(part === 'version' ? MARKER_AS_VERSION : MARKER_IN_TITLE).test(text)) return null;
  const advice =
    owner.kind === 'release'
      ? "explicit content is marked with each track's explicit flag"
      : "mark explicit content with the track's explicit flag instead";
  return {
    code: 'explicit_marker_in_title',
    message: `${subject(owner, part)} carries an explicit or clean marker; remove it, ${advice}.`,
  };
}

// --- Placeholders ----------------------------------------------------------------------------

/**
 * Only unmistakable placeholders: "Track 3", "Track #03", "Untitled", "Untitled Track 2", and file
 * names ("mix_final.wav"). Real titles that look generic ("Intro", "Song 2", "Title") are left to
 * the operator.
 */
const PLACEHOLDER =
  /^\s*(?:track\s*(?:#|no\.?)?\s*\d+|untitled(?:\s+track)?(?:\s*(?:#|no\.?)?\s*\d+)?|\S.*\.(?:wav|wave|flac|mp3|aiff?|m4a|aac|ogg))\s*$/iu;

function placeholderTitle(title: string, owner: Owner): Issue | null {
  if (!PLACEHOLDER.test(title)) return null;
  return {
    code: 'placeholder_title',
    message: `${subject(owner, 'title')}, "${title.trim()}", looks like a placeholder; give the real title.`,
  };
}

/** Every text rule for a title, in a fixed order. */
export function titleIssues(title: string, owner: Owner): Issue[] {
  return [
    placeholderTitle(title, owner),
    featuredArtistInText(title, owner, 'title'),
    allCapitalsText(title, owner, 'title'),
    storeNameInText(title, owner, 'title'),
    webAddressInText(title, owner, 'title'),
    explicitMarkerInText(title, owner, 'title'),
  ].filter((issue) => issue !== null);
}

/** Every text rule for a version ("Radio Edit", "Live"); a missing version has none. */
export function versionIssues(version: string | null, owner: Owner): Issue[] {
  if (version === null || version.trim() === '') return [];
  return [
    featuredArtistInText(version, owner, 'version'),
    allCapitalsText(version, owner, 'version'),
    storeNameInText(version, owner, 'version'),
    webAddressInText(version, owner, 'version'),
    explicitMarkerInText(version, owner, 'version'),
  ].filter((issue) => issue !== null);
}

// --- Credits ---------------------------------------------------------------------------------

function namedContributors(stored: Json<{ name: string }[]>): number {
  return readJson(stored).filter((contributor) => contributor.name.trim() !== '').length;
}

export function contributorsMissing(stored: Json<{ name: string }[]>, trackNumber: number): Issue | null {
  if (namedContributors(stored) > 0) return null;
  return {
    code: 'contributors_missing',
    message: `Track ${trackNumber} lists no contributors; add at least one (for example the performer or the producer).`,
  };
}

// --- Audio facts -----------------------------------------------------------------------------

/** What stores accept at the least: CD quality, in stereo. */
const MIN_CHANNELS = 2;
const MIN_SAMPLE_RATE = 44_100;
const MIN_BIT_DEPTH = 16;

export interface AudioFactsOfRow {
  readonly channels: number | null;
  readonly sample_rate: number | null;
  readonly bit_depth: number | null;
}

function kilohertz(hz: number): string {
  return `${Number((hz / 1000).toFixed(2))} kHz`;
}

/** Mono, under 44.1 kHz, under 16 bits: each one a reason stores refuse the file. Unknown facts pass. */
export function audioFactIssues(facts: AudioFactsOfRow, trackNumber: number): Issue[] {
  const issues: Issue[] = [];
  if (facts.channels !== null && facts.channels < MIN_CHANNELS) {
    issues.push({
      code: 'audio_mono',
      message: `The audio of track ${trackNumber} is mono; stores require a stereo (2-channel) file, so export it in stereo.`,
    });
  }
  if (facts.sample_rate !== null && facts.sample_rate < MIN_SAMPLE_RATE) {
    issues.push({
      code: 'sample_rate_too_low',
      message: `The audio of track ${trackNumber} has a sample rate of ${kilohertz(facts.sample_rate)}; stores require at least 44.1 kHz.`,
    });
  }
  if (facts.bit_depth !== null && facts.bit_depth < MIN_BIT_DEPTH) {
    issues.push({
      code: 'bit_depth_too_low',
      message: `The audio of track ${trackNumber} is ${facts.bit_depth}-bit; stores require at least 16-bit.`,
    });
  }
  return issues;
}
