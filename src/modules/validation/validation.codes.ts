/**
 * Every problem the release checker can report, with its severity and what it means. The codes are
 * part of the API (labels branch on them), so a code is never renamed or reused for another meaning;
 * docs/api-guide.md lists the same table, and a test keeps the two alike.
 *
 * `error` keeps the release from the platforms, at one of two points (`stops`): `submit` answers
 * 400 with it (the contract's submit preconditions: cover, tracks, audio, credits, rights), or
 * moderation rejects the release for it after a 202 (what the contract leaves to moderation: titles
 * and audio quality). `warning` never stops it: it names what platforms may return or what a label
 * wants to know early.
 */
export const PROBLEM_CODES = {
  cover_missing: {
    severity: 'error',
    stops: 'submit',
    meaning: 'The release has no cover (or, found by moderation, its image file is gone from storage).',
  },
  tracks_missing: {
    severity: 'error',
    stops: 'submit',
    meaning: 'The release has no tracks.',
  },
  single_too_many_tracks: {
    severity: 'error',
    stops: 'submit',
    meaning: 'A single has more than three tracks.',
  },
  placeholder_title: {
    severity: 'error',
    stops: 'moderation',
    meaning: 'A title is a placeholder ("Track 3", "Untitled", a file name).',
  },
  featured_artist_in_title: {
    severity: 'error',
    stops: 'moderation',
    meaning: 'A title or version names a featured artist ("feat."): featured artists belong in the credits.',
  },
  title_all_caps: {
    severity: 'error',
    stops: 'moderation',
    meaning: 'A title or version is written in capital letters (more than four, none small).',
  },
  store_name_in_title: {
    severity: 'error',
    stops: 'moderation',
    meaning: 'A title or version names a store or service.',
  },
  url_in_title: {
    severity: 'error',
    stops: 'moderation',
    meaning: 'A title or version contains a web address.',
  },
  explicit_marker_in_title: {
    severity: 'error',
    stops: 'moderation',
    meaning: 'A title or version carries an explicit or clean marker: the explicit flag says that.',
  },
  contributors_missing: {
    severity: 'error',
    stops: 'submit',
    meaning: 'A track lists no contributor: platforms return releases without credits.',
  },
  audio_missing: {
    severity: 'error',
    stops: 'submit',
    meaning: 'A track has no audio (or, found by moderation, its file is gone from storage).',
  },
  duplicate_audio: {
    severity: 'error',
    stops: 'moderation',
    meaning: "A track's audio is byte-for-byte identical to a track another label sent to the distributor.",
  },
  audio_mono: {
    severity: 'error',
    stops: 'moderation',
    meaning: "A track's audio is mono: stores require stereo.",
  },
  sample_rate_too_low: {
    severity: 'error',
    stops: 'moderation',
    meaning: "A track's audio has a sample rate under 44.1 kHz.",
  },
  bit_depth_too_low: {
    severity: 'error',
    stops: 'moderation',
    meaning: "A track's audio has fewer than 16 bits.",
  },
  lossy_source: {
    severity: 'error',
    stops: 'moderation',
    meaning:
      "A track's audio was converted from a lossy file (an encoder tag, or no sound in the top band). Found by an analysis that runs after each upload; until it has run, `audio_analysis_pending` stands in its place.",
  },
  rights_not_confirmed: {
    severity: 'error',
    stops: 'submit',
    meaning: 'Submit only: `confirm_rights` is not true.',
  },
  cover_under_recommended_size: {
    severity: 'warning',
    stops: null,
    meaning: 'The cover is under 3000 x 3000 px: accepted, but some platforms feature only larger covers.',
  },
  release_date_too_soon: {
    severity: 'warning',
    stops: null,
    meaning:
      'The release date is less than 7 days ahead (or past): platforms may not list the release by then.',
  },
  explicit_lyrics_not_flagged: {
    severity: 'warning',
    stops: null,
    meaning: "A track's lyrics contain explicit words but the track is not marked explicit.",
  },
  audio_analysis_pending: {
    severity: 'warning',
    stops: null,
    meaning:
      "A track's audio is still being checked for a lossy source (`lossy_source`), which runs after each upload: ask again in a moment. Moderation checks it in any case.",
  },
  isrc_used_with_other_title: {
    severity: 'warning',
    stops: null,
    meaning:
      "A track's ISRC is on another release of the label under a different title: one ISRC names one recording.",
  },
} as const satisfies Record<string, { severity: Severity; stops: Stage | null; meaning: string }>;

export type Severity = 'error' | 'warning';

/** Where an error stops a release: submit refuses it, or moderation rejects the submitted release. */
export type Stage = 'submit' | 'moderation';

export type ProblemCode = keyof typeof PROBLEM_CODES;

export function severityOf(code: ProblemCode): Severity {
  return PROBLEM_CODES[code].severity;
}
