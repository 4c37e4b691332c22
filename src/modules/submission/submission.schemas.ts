import { Type } from '@sinclair/typebox';
import { StringEnum } from '../../http/schemas.ts';

export const SubmitBody = Type.Object({
  confirm_rights: Type.Boolean({
    description: 'Must be true: the label confirms it holds the rights to distribute the release',
  }),
});

export const SubmitResponse = Type.Object({
  ok: Type.Literal(true),
  release_id: Type.Integer(),
  status: StringEnum(['submitting', 'submitted'] as const, {
    description: '`submitting` (in moderation); a sandbox release is accepted at once: `submitted`',
  }),
  review: StringEnum(['pending', 'approved'] as const, {
    description: '`pending`; `approved` at once in the sandbox',
  }),
  message: Type.String(),
});
