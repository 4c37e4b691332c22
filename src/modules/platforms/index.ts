export {
  isPlatformKey,
  PLATFORM_KEYS,
  PLATFORMS,
  type PlatformKey,
  platformName,
  platformSearchUrl,
} from './platforms.catalog.ts';
export { platformsRoutes } from './platforms.routes.ts';
