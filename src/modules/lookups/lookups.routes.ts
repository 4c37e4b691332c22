import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { StringEnum } from '../../http/schemas.ts';
import { CONTRIBUTOR_ROLES, COUNTRIES, GENRES, LANGUAGES } from './lookups.catalog.ts';

const GenresBody = Type.Object({ genres: Type.Array(Type.String({ examples: ['Hip-Hop/Rap'] })) });

const CountriesBody = Type.Object({
  countries: Type.Array(
    Type.Object({
      code: Type.String({ description: 'ISO 3166-1 alpha-2', examples: ['DE'] }),
      name: Type.String({ examples: ['Germany'] }),
    }),
  ),
});

const LanguagesBody = Type.Object({
  languages: Type.Array(
    Type.Object({
      code: Type.String({ description: 'ISO 639-1', examples: ['ru'] }),
      name: Type.String({ examples: ['Russian'] }),
      native_name: Type.String({ examples: ['Русский'] }),
    }),
  ),
});

const RolesBody = Type.Object({
  roles: Type.Array(
    Type.Object({
      name: Type.String({ description: 'The canonical name, as stored', examples: ['Producer'] }),
      kind: StringEnum(['contributor', 'writer'], {
        description: 'Credited among contributors or among writers',
      }),
      local_names: Type.Array(Type.String(), {
        description: 'Other names accepted for this role and stored as `name`',
        examples: [['Продюсер']],
      }),
    }),
  ),
});

// The lists never change while the server runs: each answer is built once.
const genresBody = { genres: [...GENRES] };
const countriesBody = { countries: [...COUNTRIES] };
const languagesBody = { languages: [...LANGUAGES] };
const rolesBody = {
  roles: CONTRIBUTOR_ROLES.map((role) => ({ ...role, local_names: [...role.local_names] })),
};

/** Reference lists for catalog fields; any valid key (docs/decisions.md). */
export const lookupsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const lookup = { config: { access: 'any_key' as const } };
  const tags = ['lookups'];

  app.get(
    '/lookups/genres',
    {
      ...lookup,
      schema: {
        tags,
        operationId: 'listGenres',
        summary: 'Genres a release may have',
        response: { 200: GenresBody },
      },
    },
    async () => genresBody,
  );

  app.get(
    '/lookups/countries',
    {
      ...lookup,
      schema: {
        tags,
        operationId: 'listCountries',
        summary: 'Country codes for release territories',
        response: { 200: CountriesBody },
      },
    },
    async () => countriesBody,
  );

  app.get(
    '/lookups/languages',
    {
      ...lookup,
      schema: {
        tags,
        operationId: 'listLanguages',
        summary: 'Language codes for tracks',
        response: { 200: LanguagesBody },
      },
    },
    async () => languagesBody,
  );

  app.get(
    '/lookups/contributor-roles',
    {
      ...lookup,
      schema: {
        tags,
        operationId: 'listContributorRoles',
        summary: 'Roles of contributors and writers, with the local-language names recognized for each',
        response: { 200: RolesBody },
      },
    },
    async () => rolesBody,
  );
};
