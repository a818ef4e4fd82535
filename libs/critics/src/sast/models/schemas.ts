import type { FrameworkModel, SchemaBuild, SchemaMethod } from './types.js';

const BUILD: Readonly<Record<string, SchemaBuild>> = {
  ...Object.fromEntries(
    [
      'enum',
      'nativeEnum',
      'literal',
      'number',
      'boolean',
      'bigint',
      'date',
      'uuid',
      'cuid',
      'ulid',
      'int',
      'valid',
      'oneOf',
      'equal',
      'stringbool',
    ].map((m) => [m, 'safe' as const]),
  ),
  string: 'string',
  email: 'string',
  url: 'string',
  object: 'object',
  strictObject: 'object',
  looseObject: 'loose-object',
  array: 'array',
  union: 'union',
  alternatives: 'union',
  coerce: 'coerce',
};

const METHODS: Readonly<Record<string, SchemaMethod>> = {
  ...Object.fromEntries(
    ['parse', 'parseAsync', 'validateSync', 'validateAsync', 'cast', 'assert', 'create'].map((m) => [
      m,
      'parse' as const,
    ]),
  ),
  ...Object.fromEntries(['safeParse', 'safeParseAsync', 'validate'].map((m) => [m, 'safe-parse' as const])),
  ...Object.fromEntries(
    [
      'uuid',
      'cuid',
      'ulid',
      'int',
      'valid',
      'oneOf',
      'equals',
      'integer',
      'datetime',
      'ip',
      'guid',
      'alphanum',
      'hex',
      'base64',
    ].map((m) => [m, 'narrow' as const]),
  ),
  regex: 'regex',
  pattern: 'regex',
  passthrough: 'passthrough',
  catchall: 'passthrough',
  extend: 'extend',
  merge: 'extend',
};

/**
 * Validation libraries (zod, Joi, yup, valibot, superstruct): what a schema lets through. Enums,
 * numbers, uuids and anchored patterns make a value clean; strings are validated but still text.
 */
export const schemasModel: FrameworkModel = {
  id: 'schemas',
  description: 'zod/Joi/yup/valibot/superstruct builders and parse/safeParse/validate.',
  schemas: { modules: ['zod', 'joi', 'yup', 'valibot', 'superstruct'], build: BUILD, methods: METHODS },
};
