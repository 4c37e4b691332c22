import countries from 'i18n-iso-countries';
import ISO6391 from 'iso-639-1';

/**
 * Release genres, after the top-level genre lists that the large stores ask distributors for. A
 * release's `genre` is one of these names.
 */
export const GENRES = [
  'Afrobeats',
  'Alternative',
  'Ambient',
  'Anime',
  'Blues',
  'Chanson',
  "Children's Music",
  'Christian & Gospel',
  'Classical',
  'Comedy',
  'Country',
  'Dance',
  'Drum & Bass',
  'Electronic',
  'Experimental',
  'Folk',
  'Hip-Hop/Rap',
  'House',
  'Indie',
  'Instrumental',
  'J-Pop',
  'Jazz',
  'K-Pop',
  'Latin',
  'Lo-Fi',
  'Metal',
  'New Age',
  'Opera',
  'Phonk',
  'Pop',
  'Punk',
  'R&B/Soul',
  'Reggae',
  'Rock',
  'Singer/Songwriter',
  'Soundtrack',
  'Spoken Word',
  'Techno',
  'Trance',
  'World',
] as const;

/** Where a role is credited: among the track's contributors, or its writers (authors of the work). */
export type RoleKind = 'contributor' | 'writer';

export interface ContributorRole {
  readonly name: string;
  readonly kind: RoleKind;
  /** Names the role goes by in the markets we serve; they are stored as `name`. */
  readonly local_names: readonly string[];
}

function role(name: string, kind: RoleKind, localNames: readonly string[]): ContributorRole {
  return { name, kind, local_names: localNames };
}

export const CONTRIBUTOR_ROLES: readonly ContributorRole[] = [
  role('Performer', 'contributor', ['Исполнитель', 'Артист']),
  role('Producer', 'contributor', ['Продюсер']),
  role('Co-Producer', 'contributor', ['Сопродюсер']),
  role('Vocalist', 'contributor', ['Вокалист', 'Вокалистка']),
  role('Vocals', 'contributor', ['Вокал']),
  role('Backing Vocals', 'contributor', ['Бэк-вокал']),
  role('Guitar', 'contributor', ['Гитара', 'Гитарист']),
  role('Bass', 'contributor', ['Бас-гитара', 'Бас', 'Басист']),
  role('Drums', 'contributor', ['Ударные', 'Барабаны', 'Барабанщик']),
  role('Keyboards', 'contributor', ['Клавишные']),
  role('Piano', 'contributor', ['Фортепиано', 'Пианино', 'Пианист']),
  role('Synthesizer', 'contributor', ['Синтезатор']),
  role('Strings', 'contributor', ['Струнные']),
  role('Programming', 'contributor', ['Программирование', 'Битмейкер']),
  role('DJ', 'contributor', ['Диджей']),
  role('Arranger', 'contributor', ['Аранжировщик', 'Аранжировка']),
  role('Conductor', 'contributor', ['Дирижёр', 'Дирижер']),
  role('Recording Engineer', 'contributor', ['Звукорежиссёр записи', 'Звукорежиссер записи']),
  role('Mixing Engineer', 'contributor', ['Звукорежиссёр сведения', 'Звукорежиссер сведения', 'Сведение']),
  role('Mastering Engineer', 'contributor', [
    'Звукорежиссёр мастеринга',
    'Звукорежиссер мастеринга',
    'Мастеринг',
  ]),
  role('Composer', 'writer', ['Композитор', 'Автор музыки']),
  // The spec's example writer roles are "Composer/Instrumentalist, Lyricist".
  role('Instrumentalist', 'writer', ['Инструменталист']),
  role('Lyricist', 'writer', ['Автор слов', 'Автор текста', 'Поэт']),
  role('Songwriter', 'writer', ['Автор песни']),
];

export interface Country {
  readonly code: string;
  readonly name: string;
}

/** ISO 3166-1 alpha-2, with English names, in code order. */
export const COUNTRIES: readonly Country[] = Object.keys(countries.getAlpha2Codes())
  .sort()
  .map((code) => ({ code, name: countryName(code) }));

/** The English name of an ISO 3166-1 alpha-2 code; the code itself when it names no country. */
export function countryName(code: string): string {
  return countries.getName(code, 'en') ?? code;
}

export interface Language {
  readonly code: string;
  readonly name: string;
  readonly native_name: string;
}

/** ISO 639-1, with English and native names, in code order. */
export const LANGUAGES: readonly Language[] = [...ISO6391.getAllCodes()].sort().map((code) => ({
  code,
  name: ISO6391.getName(code),
  native_name: ISO6391.getNativeName(code),
}));
