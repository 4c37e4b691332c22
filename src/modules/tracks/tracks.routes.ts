import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.ts';

export function tracksRoutes(_ctx: AppContext): FastifyPluginAsyncTypebox {
  return async () => {};
}
