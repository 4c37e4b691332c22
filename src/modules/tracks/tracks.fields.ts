import type { Static } from 'typebox';
import type { TrackRow } from '../../core/tracks.ts';
import { errors } from '../../errors.ts';
import type { SchemaCheck } from '../../http/validation.ts';
import { normalizeIsrc } from '../../lib/isrc.ts';
import { searchKey } from '../../lib/text.ts';
import { LANGUAGES } from '../lookups/index.ts';
import {
  formCredits,
  normalizeContributors,
  normalizeFeatured,
  normalizeWriters,
  parseJsonField,
} from './tracks.credits.ts';
import {
  AI_ELEMENTS,
  type AiElement,
  ContributorsInput,
  FeaturedInput,
  WritersInput,
} from './tracks.schemas.ts';

/**
 * Track metadata as a client sends it, from JSON (PATCH) or from multipart text fields (POST): in the
 * shapes of its schemas, before its values are checked. A field that is absent is left as it is; for
 * the nullable ones null or '' clears.
 */
export interface TrackFieldsInput {
  title?: string;
  version?: string | null;
  version_type?: string | null;
  isrc?: string | null;
  explicit?: boolean;
  instrumental?: boolean;
  language?: string | null;
  lyrics?: string | null;
  writers?: Static<typeof WritersInput>;
  contributors?: Static<typeof ContributorsInput>;
  featured?: Static<typeof FeaturedInput>;
  preview_start_sec?: number | null;
  ai_service?: string | null;
  ai_elements?: readonly string[] | null;
}

/** Column values of a checked input. */
export type TrackChanges = Partial<
  Pick<
    TrackRow,
    | 'title'
    | 'title_key'
    | 'version'
    | 'version_type'
    | 'isrc'
    | 'explicit'
    | 'instrumental'
    | 'language'
    | 'lyrics_text'
    | 'lyrics_lines'
    | 'writers'
    | 'contributors'
    | 'featured'
    | 'preview_start_sec'
    | 'ai_service'
    | 'ai_elements'
  >
>;

/** The multipart text fields of POST /releases/{id}/tracks (besides the file field `audio`). */
export const FORM_FIELDS = [
  'title',
  'version',
  'version_type',
  'isrc',
  'explicit',
  'instrumental',
  'language',
  'lyrics',
  'writers',
  'contributors',
  'featured',
  'preview_start_sec',
  'ai_service',
  'ai_elements',
] as const;

const MAX_TITLE = 200;
const MAX_VERSION_TYPE = 100;
const LANGUAGE_CODES = new Set(LANGUAGES.map((language) => language.code));

function title(value: string): string {
  const text = value.trim();
  if (text === '') throw errors.invalid('title', 'title must not be empty');
  if (text.length > MAX_TITLE) throw errors.invalid('title', `title must be at most ${MAX_TITLE} characters`);
  return text;
}

/** Optional text: trimmed, and null when empty. */
function optionalText(field: string, value: string | null, max: number): string | null {
  const text = value?.trim() ?? '';
  if (text.length > max) throw errors.invalid(field, `${field} must be at most ${max} characters`);
  return text === '' ? null : text;
}

function isrc(value: string | null): string | null {
  if (value === null || value.trim() === '') return null;
  const normalized = normalizeIsrc(value);
  if (normalized === null) {
    throw errors.invalid(
      'isrc',
      'isrc must be an ISRC: CC-XXX-YY-NNNNN (country, registrant, year, designation)',
    );
  }
  return normalized;
}

function language(value: string | null): string | null {
  const code = value?.trim().toLowerCase() ?? '';
  if (code === '') return null;
  if (!LANGUAGE_CODES.has(code)) {
    throw errors.invalid(
      'language',
      'language must be an ISO 639-1 code listed by GET /api/v1/lookups/languages',
    );
  }
  return code;
}

/** Plain lyrics, line breaks normalized; null when blank. */
export function plainLyrics(value: string | null): string | null {
  const text = (value ?? '').replace(/\r\n?/g, '\n').trim();
  return text === '' ? null : text;
}

function previewStart(value: number | null): number | null {
  if (value === null) return null;
  if (!Number.isFinite(value) || value < 0) {
    throw errors.invalid('preview_start_sec', 'preview_start_sec must be a number of seconds, 0 or more');
  }
  return value;
}

/** 400 unless the preview starts inside the audio (a replaced, shorter audio clears the start instead). */
export function assertPreviewWithin(previewStartSec: number | null, durationSec: number | null): void {
  if (previewStartSec === null || durationSec === null || previewStartSec < durationSec) return;
  throw errors.invalid(
    'preview_start_sec',
    `preview_start_sec must be less than the audio's duration (${durationSec} s)`,
  );
}

function aiElements(values: readonly string[]): AiElement[] {
  const elements = new Set<AiElement>();
  for (const value of values) {
    const element = AI_ELEMENTS.find((name) => name === value.trim().toLowerCase());
    if (!element) {
      throw errors.invalid(
        'ai_elements',
        `ai_elements may hold ${AI_ELEMENTS.join(', ')}; "${value}" is not one`,
      );
    }
    elements.add(element);
  }
  return [...elements];
}

/**
 * AI disclosure: `ai_service` and `ai_elements` go together. Sending both empty clears the mark;
 * sending one without the other (an absent one counts as empty) names the missing one.
 */
function aiChanges(input: TrackFieldsInput): TrackChanges {
  if (input.ai_service === undefined && input.ai_elements === undefined) return {};
  const service = input.ai_service?.trim() ?? '';
  const elements = aiElements(input.ai_elements ?? []);
  if (service === '' && elements.length === 0) return { ai_service: null, ai_elements: null };
  if (service === '') throw errors.invalid('ai_service', 'ai_service is required together with ai_elements');
  if (elements.length === 0) {
    throw errors.invalid('ai_elements', `ai_elements needs at least one of ${AI_ELEMENTS.join(', ')}`);
  }
  return { ai_service: service, ai_elements: JSON.stringify(elements) };
}

/** Checks every field present in `input` and returns the columns to write. */
export function trackChanges(input: TrackFieldsInput): TrackChanges {
  const changes: TrackChanges = aiChanges(input);
  if (input.title !== undefined) {
    changes.title = title(input.title);
    changes.title_key = searchKey(changes.title);
  }
  if (input.version !== undefined) changes.version = optionalText('version', input.version, MAX_TITLE);
  if (input.version_type !== undefined) {
    changes.version_type = optionalText('version_type', input.version_type, MAX_VERSION_TYPE);
  }
  if (input.isrc !== undefined) changes.isrc = isrc(input.isrc);
  if (input.explicit !== undefined) changes.explicit = input.explicit ? 1 : 0;
  if (input.instrumental !== undefined) changes.instrumental = input.instrumental ? 1 : 0;
  if (input.language !== undefined) changes.language = language(input.language);
  if (input.lyrics !== undefined) {
    changes.lyrics_text = plainLyrics(input.lyrics);
    changes.lyrics_lines = null;
  }
  if (input.writers !== undefined) changes.writers = JSON.stringify(normalizeWriters(input.writers));
  if (input.contributors !== undefined) {
    changes.contributors = JSON.stringify(normalizeContributors(input.contributors));
  }
  if (input.featured !== undefined) changes.featured = JSON.stringify(normalizeFeatured(input.featured));
  if (input.preview_start_sec !== undefined)
    changes.preview_start_sec = previewStart(input.preview_start_sec);
  return changes;
}

function formBoolean(field: string, text: string): boolean {
  const value = text.trim().toLowerCase();
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw errors.invalid(field, `${field} must be true or false`);
}

function formNumber(field: string, text: string): number | null {
  if (text.trim() === '') return null;
  const value = Number(text);
  if (!Number.isFinite(value)) throw errors.invalid(field, `${field} must be a number`);
  return value;
}

/** `ai_elements` as a JSON array or as comma-separated names. */
function formList(field: string, text: string): string[] {
  if (!text.trim().startsWith('[')) return text.split(',').filter((item) => item.trim() !== '');
  const parsed = parseJsonField(field, text);
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string')) {
    throw errors.invalid(field, `${field} must be a JSON array of strings or comma-separated names`);
  }
  return parsed;
}

/**
 * Typed input from multipart text fields: booleans, numbers and JSON arrays parsed, field by field;
 * the JSON credit lists are checked by `check`, the app's validator, as a JSON body would be.
 */
export function formInput(fields: ReadonlyMap<string, string>, check: SchemaCheck): TrackFieldsInput {
  const input: TrackFieldsInput = {};
  for (const [field, text] of fields) {
    switch (field) {
      case 'explicit':
      case 'instrumental':
        input[field] = formBoolean(field, text);
        break;
      case 'preview_start_sec':
        input[field] = formNumber(field, text);
        break;
      case 'writers':
        input.writers = formCredits(field, text, check, WritersInput, '{name, roles: [...]}');
        break;
      case 'contributors':
        input.contributors = formCredits(field, text, check, ContributorsInput, '{name, role}');
        break;
      case 'featured':
        input.featured = formCredits(field, text, check, FeaturedInput, '{name}');
        break;
      case 'ai_elements':
        input[field] = formList(field, text);
        break;
      case 'title':
      case 'version':
      case 'version_type':
      case 'isrc':
      case 'language':
      case 'lyrics':
      case 'ai_service':
        input[field] = text;
        break;
    }
  }
  return input;
}
