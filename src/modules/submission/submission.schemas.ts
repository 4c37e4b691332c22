import { Type } from 'typebox';

export const SubmitBody = Type.Object({
  confirm_rights: Type.Boolean({
    description: 'Must be true: the label confirms it holds the rights to distribute the release',
  }),
});

export const SubmitResponse = Type.Object({
  ok: Type.Literal(true),
  release_id: Type.Integer(),
  status: Type.Literal('submitting', {
    description: 'In moderation (a sandbox release is accepted at once: its card shows `submitted`)',
  }),
  review: Type.Literal('pending'),
  message: Type.String(),
});
