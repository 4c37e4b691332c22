import { Type } from 'typebox';

const PartyId = Type.String({
  pattern: '^PADPIDA[A-Za-z0-9]{11}$',
  description: 'A DDEX Party ID (DPID)',
  examples: ['PADPIDA2011072101T'],
});

export const MessageQuery = Type.Object(
  {
    recipient_id: Type.Optional({
      ...PartyId,
      description: 'The recipient of the message; default: the server’s DDEX_RECIPIENT_ID',
    }),
    recipient_name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'The recipient’s name, with recipient_id' }),
    ),
  },
  { additionalProperties: false },
);

export const XmlMessage = Type.String({ description: 'An ERN 4.3 NewReleaseMessage' });
