import { type TObject, type TSchema, Type } from 'typebox';
import { Nullable } from '../../http/schemas.ts';
import { FEATURE_NAMES, LIMIT_NAMES, USAGE_NAMES } from './plans.catalog.ts';

const objectOf = <K extends string, S extends TSchema>(
  names: readonly K[],
  schema: () => S,
): TObject<Record<K, S>> =>
  Type.Object(Object.fromEntries(names.map((name) => [name, schema()])) as Record<K, S>);

export const LimitsSchema = objectOf(LIMIT_NAMES, () =>
  Nullable(Type.Integer({ minimum: 0, description: 'null means unlimited' })),
);
export const UsageSchema = objectOf(USAGE_NAMES, () => Type.Integer({ minimum: 0 }));
export const FeaturesSchema = objectOf(FEATURE_NAMES, () => Type.Boolean());
