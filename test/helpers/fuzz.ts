import fc from 'fast-check';

/** The part of JSON Schema (as @fastify/swagger writes it into the OpenAPI document) we generate from. */
export interface JsonSchema {
  type?: string;
  format?: string;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  example?: unknown;
  examples?: unknown[];
}

/** `arbitrary` one time in `times`, null otherwise (fc.option's `freq` is the other way round). */
export function oneIn<T>(times: number, arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: times - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });
}

const CONTROL_CHARACTERS = Array.from({ length: 32 }, (_, code) => String.fromCharCode(code)).concat(
  '\u007f',
  '\u2028',
  '\u202e',
  '\ufeff',
);

/** `a` repeated to one of `lengths` (fast-check would favour the small end of a range). */
const longString = (...lengths: number[]) => fc.constantFrom(...lengths).map((length) => 'a'.repeat(length));

/** Text made of control characters, NUL among them, with some ordinary letters and lone surrogates. */
export const controlText = fc.string({
  unit: fc.oneof(
    fc.constantFrom(...CONTROL_CHARACTERS, '\ud800', '\udfff'),
    fc.string({ minLength: 1, maxLength: 1 }),
  ),
  minLength: 1,
  maxLength: 20,
});

/** Strings a field should refuse, whatever it expects. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'null',
    '-1',
    '0',
    '1e999',
    '-1e999',
    'Infinity',
    '99999999999999999999999',
    'NaN',
    'true',
    '2026-02-30',
    '9999-99-99T99:99:99Z',
    '../../../etc/passwd',
    '%00',
    '<script>alert(1)</script>',
    "'; drop table releases; --",
    '𝄞🎵',
  ),
  controlText,
  longString(101, 1_000, 20_000),
  fc.string({ unit: 'binary', maxLength: 50 }),
);

/** Arrays one inside the other, past our nesting limit of 32, shallow enough to build in memory. */
export const deepNesting = fc
  .constantFrom(33, 100, 3_000)
  .map((depth) => Array.from({ length: depth }).reduce<unknown>((inner) => [inner], 'x'));

/** Values of the wrong type, of absurd size, or not what anything means. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.constantFrom(null, true, false, 0, -0, -1, 1.5, 2 ** 31, 2 ** 53 + 2, -(2 ** 63), 1e308, -1e308, 5e-324),
  fc.double(),
  fc.jsonValue({ maxDepth: 3 }),
  deepNesting,
);

/**
 * What the schema accepts, drawn with fast-check's combinators; with `hostile`, any value in it
 * (the whole, a property, an item) may be a hostile value instead, so most bodies are nearly valid
 * and reach the handler with one or two bad spots.
 */
export function fromSchema(schema: JsonSchema, hostile = true): fc.Arbitrary<unknown> {
  const valid = validFromSchema(schema, hostile);
  const orNull = schema.nullable ? fc.option(valid, { nil: null, freq: 5 }) : valid;
  return hostile
    ? fc.oneof({ weight: 8, arbitrary: orNull }, { weight: 1, arbitrary: hostileValue })
    : orNull;
}

function validFromSchema(schema: JsonSchema, hostile: boolean): fc.Arbitrary<unknown> {
  const examples = [...(schema.examples ?? []), ...(schema.example === undefined ? [] : [schema.example])];
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((option) => fromSchema(option, hostile)));
  const drawn = drawnFromType(schema, hostile);
  return examples.length > 0 ? fc.oneof(fc.constantFrom(...examples), drawn) : drawn;
}

function drawnFromType(schema: JsonSchema, hostile: boolean): fc.Arbitrary<unknown> {
  switch (schema.type) {
    case 'integer':
      return integerFrom(schema);
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(fromSchema(schema.items ?? {}, hostile), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 4, 4),
      });
    case 'object':
      return objectFrom(schema, hostile);
    case 'string':
      return stringFrom(schema);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Mostly the smallest values allowed: the fixtures' ids are 1, 2 and 3. */
function integerFrom(schema: JsonSchema): fc.Arbitrary<number> {
  const min = schema.minimum ?? -(2 ** 31);
  const max = schema.maximum ?? 2 ** 31 - 1;
  return fc.oneof(fc.integer({ min, max: Math.min(max, min + 3) }), fc.integer({ min, max }));
}

function stringFrom(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.format === 'date-time') {
    return fc.date({ noInvalidDate: true }).map((date) => date.toISOString());
  }
  if (schema.format === 'binary') return fc.string();
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
  const minLength = schema.minLength ?? 0;
  return fc.string({ minLength, maxLength: Math.max(minLength, Math.min(schema.maxLength ?? 30, 30)) });
}

function objectFrom(schema: JsonSchema, hostile: boolean): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const model = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => [name, fromSchema(property, hostile)]),
  );
  const object = fc.record(model, { requiredKeys: schema.required ?? [] });
  if (!hostile) return object;
  // Now and then a property the schema does not have, or a prototype-polluting one.
  const extra = oneIn(6, fc.tuple(fc.constantFrom('unknown', '__proto__', 'constructor', ''), hostileValue));
  return fc
    .tuple(object, extra)
    .map(([value, added]) => (added ? { ...value, [added[0]]: added[1] } : value));
}

/** Percent-encodes every byte but the unreserved ones: unlike encodeURIComponent it takes lone surrogates. */
export function percentEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

/** Path segments as they go on the wire: malformed escapes, dots, absurd numbers and lengths. */
export const hostileSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '0',
    '-1',
    '1.5',
    '1e3',
    '0x10',
    '2147483648',
    '99999999999999999999999',
    '%00',
    '%',
    '%zz',
    '%E0%A4%A',
    '..',
    '.',
    '%2F',
    '%20',
    'null',
  ),
  longString(100, 101, 5_000),
  hostileString.map(percentEncode),
);

/** Query values: hostile strings, encoded, and escapes that do not decode. */
export const hostileQueryValue: fc.Arbitrary<string> = fc.oneof(
  hostileString.map(percentEncode),
  fc.constantFrom('%', '%zz', '%E0%A4%A', '&&&', '=', '[]', 'a[b]=c'),
);

/** Bytes that begin like the format named by `contentType`, so the parsers get past the first check. */
export function bytesLike(contentType: string): fc.Arbitrary<Buffer> {
  const magic: Record<string, Buffer> = {
    'image/png': Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'),
    'image/jpeg': Buffer.from('ffd8ffe000104a464946', 'hex'),
    'audio/wav': Buffer.from('RIFF\u0024\u0000\u0000\u0000WAVEfmt \u0010\u0000\u0000\u0000', 'latin1'),
    'audio/flac': Buffer.from('fLaC\u0000\u0000\u0000\u0022', 'latin1'),
  };
  const prefix = magic[contentType === 'audio/x-wav' ? 'audio/wav' : contentType] ?? Buffer.alloc(0);
  return fc
    .tuple(fc.boolean(), fc.uint8Array({ maxLength: 2_048 }))
    .map(([withMagic, bytes]) => Buffer.concat([withMagic ? prefix : Buffer.alloc(0), bytes]));
}

interface Part {
  name: string;
  value: string | Buffer;
  filename?: string;
}

function encodeMultipart(boundary: string, parts: Part[]): Buffer {
  const chunks = parts.flatMap((part) => {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    const type = part.filename === undefined ? '' : '\r\nContent-Type: application/octet-stream';
    return [
      Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`),
      Buffer.from(part.value),
      Buffer.from('\r\n'),
    ];
  });
  return Buffer.concat([...chunks, Buffer.from(`--${boundary}--\r\n`)]);
}

/**
 * A multipart body for `schema` (binary properties as files), well formed with hostile values, or
 * broken: cut short, under another boundary, without one, with parts that lack names.
 */
export function multipartFrom(schema: JsonSchema): fc.Arbitrary<{ contentType: string; payload: Buffer }> {
  const properties = Object.entries(schema.properties ?? {});
  const part = ([name, property]: [string, JsonSchema]) =>
    property.format === 'binary'
      ? fc.record({
          name: fc.constant(name),
          value: bytesLike('audio/wav'),
          filename: fc.constantFrom('a.wav', '', '../x', '\u202e.wav'),
        })
      : fc.record({
          name: fc.constant(name),
          value: fromSchema(property).map((value) =>
            typeof value === 'string' ? value : (JSON.stringify(value) ?? ''),
          ),
        });
  const parts = fc
    .tuple(
      fc.subarray(properties).chain((chosen) => fc.tuple(...chosen.map(part))),
      fc.array(
        fc.record({
          name: fc.oneof(fc.constantFrom('', 'audio', 'title'), hostileString),
          value: hostileString,
        }),
        { maxLength: 3 },
      ),
    )
    .map(([chosen, extra]): Part[] => [...chosen, ...extra]);
  const boundary = 'fuzzboundary7MA4YWxkTrZu0gW';
  const wellFormed = parts.map((chosen) => encodeMultipart(boundary, chosen));
  return fc.oneof(
    wellFormed.map((payload) => ({ contentType: `multipart/form-data; boundary=${boundary}`, payload })),
    fc.tuple(wellFormed, fc.nat()).map(([payload, cut]) => ({
      contentType: `multipart/form-data; boundary=${boundary}`,
      payload: payload.subarray(0, cut % (payload.length + 1)),
    })),
    wellFormed.map((payload) => ({ contentType: 'multipart/form-data; boundary=another', payload })),
    wellFormed.map((payload) => ({ contentType: 'multipart/form-data', payload })),
    fc.constantFrom(
      {
        contentType: `multipart/form-data; boundary=${boundary}`,
        payload: Buffer.from(
          `--${boundary}\r\nContent-Type: text/plain\r\n\r\nno name\r\n--${boundary}--\r\n`,
        ),
      },
      { contentType: `multipart/form-data; boundary=${boundary}`, payload: Buffer.from('') },
      { contentType: `multipart/form-data; boundary=${'b'.repeat(200)}`, payload: Buffer.from('--') },
    ),
  );
}
