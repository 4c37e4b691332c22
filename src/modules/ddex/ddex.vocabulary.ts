import type { AudioFormat, CoverFormat, ReleaseType } from '../../db/values.ts';

/*
 * Labeldesk's words in DDEX's allowed values (ERN 4.3, AVS 3). Every value here is one the
 * official allowed-value sets list; the tests validate whole messages against them.
 */

export const RELEASE_TYPE: Readonly<Record<ReleaseType, string>> = {
  single: 'Single',
  ep: 'EP',
  album: 'Album',
};

/** A contributor role in DDEX: the role and, for players, the instrument. */
export interface DdexRole {
  readonly role: string;
  readonly instrument?: string;
}

/**
 * The roles of GET /lookups/contributor-roles. DDEX names a player by the role `Musician` and the
 * instrument; "Instrumentalist", the spec's writer of the instrumental part, is a composer in DDEX.
 */
const ROLES: Readonly<Record<string, DdexRole>> = {
  Performer: { role: 'Performer' },
  Producer: { role: 'StudioProducer' },
  'Co-Producer': { role: 'CoProducer' },
  Vocalist: { role: 'Vocalist' },
  Vocals: { role: 'Vocalist' },
  'Backing Vocals': { role: 'BackgroundVocalist' },
  Guitar: { role: 'Musician', instrument: 'Guitar' },
  Bass: { role: 'Musician', instrument: 'Bass' },
  Drums: { role: 'Musician', instrument: 'DrumKit' },
  Keyboards: { role: 'Musician', instrument: 'Keyboard' },
  Piano: { role: 'Musician', instrument: 'Piano' },
  Synthesizer: { role: 'Musician', instrument: 'Synthesizer' },
  Strings: { role: 'Musician', instrument: 'StringSection' },
  Programming: { role: 'Programmer' },
  DJ: { role: 'DJ' },
  Arranger: { role: 'Arranger' },
  Conductor: { role: 'Conductor' },
  'Recording Engineer': { role: 'RecordingEngineer' },
  'Mixing Engineer': { role: 'MixingEngineer' },
  'Mastering Engineer': { role: 'MasteringEngineer' },
  Composer: { role: 'Composer' },
  Instrumentalist: { role: 'Composer' },
  Lyricist: { role: 'Lyricist' },
  Songwriter: { role: 'ComposerLyricist' },
};

/** Stored roles are canonical names of the lookup; a name it has since dropped is DDEX's `Unknown`. */
export function ddexRole(role: string): DdexRole {
  return ROLES[role] ?? { role: 'Unknown' };
}

export const AUDIO_CODEC: Readonly<Record<AudioFormat, string>> = { wav: 'PCM', flac: 'FLAC' };

export const IMAGE_CODEC: Readonly<Record<CoverFormat, string>> = { jpeg: 'JPEG', png: 'PNG' };

export function parentalWarning(explicit: boolean): string {
  return explicit ? 'Explicit' : 'NotExplicit';
}

/** Territories: `worldwide` is DDEX's `Worldwide`; country codes are ISO 3166-1, as DDEX takes them. */
export function territoryCodes(territories: 'worldwide' | readonly string[]): readonly string[] {
  return territories === 'worldwide' ? ['Worldwide'] : territories;
}

/** Seconds as an xs:duration, as DDEX writes one: PT3M25S. */
export function isoDuration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  return `PT${Math.floor(whole / 60)}M${whole % 60}S`;
}
