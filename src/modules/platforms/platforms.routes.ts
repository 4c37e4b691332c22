import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { PLATFORMS } from './platforms.catalog.ts';

const PlatformsBody = Type.Object({
  platforms: Type.Array(
    Type.Object({
      key: Type.String({ examples: ['spotify'] }),
      name: Type.String({ examples: ['Spotify'] }),
    }),
  ),
});

export const platformsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/platforms',
    {
      config: { access: 'any_key' },
      schema: {
        tags: ['identity'],
        operationId: 'listPlatforms',
        summary: 'Streaming platforms and their keys',
        response: { 200: PlatformsBody },
      },
    },
    async () => ({ platforms: PLATFORMS.map(({ key, name }) => ({ key, name })) }),
  );
};
