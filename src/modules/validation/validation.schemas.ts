import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../http/schemas.ts';
import { PROBLEM_CODES, type ProblemCode } from './validation.codes.ts';

const CODES = Object.keys(PROBLEM_CODES) as ProblemCode[];

export const ProblemSchema = Type.Object({
  code: StringEnum(CODES, { description: 'Stable snake_case code; docs/api-guide.md lists each one' }),
  severity: StringEnum(['error', 'warning'] as const, {
    description: '`error` blocks submission; `warning` does not (platforms may return the release)',
  }),
  field: Type.String({
    description: 'The release card field: `cover`, `release_date`, `tracks.2.isrc` (0-based track index)',
    examples: ['tracks.0.audio'],
  }),
  message: Type.String({ description: 'One sentence: what is wrong and how to fix it' }),
  track_id: Nullable(Type.Integer({ description: 'The track the problem is on; null for the release' })),
});

export const ValidationBody = Type.Object({
  release_id: Type.Integer(),
  ready: Type.Boolean({
    description: 'True when no problem is an error: submit would not refuse the content',
  }),
  problems: Type.Array(ProblemSchema, { description: 'Release first, then each track in order' }),
});
