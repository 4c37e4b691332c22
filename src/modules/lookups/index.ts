export {
  CONTRIBUTOR_ROLES,
  COUNTRIES,
  type ContributorRole,
  countryName,
  GENRES,
  LANGUAGES,
  type RoleKind,
} from './lookups.catalog.ts';
export { lookupsRoutes } from './lookups.routes.ts';
