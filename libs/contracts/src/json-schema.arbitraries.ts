// Test-only (excluded from the build by tsconfig.lib.json): fast-check arbitraries derived from the
// committed JSON Schemas, so the property tests exercise exactly what non-TypeScript critics see.
// JSON Schema cannot express zod's refinements, so the few refined types get hand-written
// repairs (valid values) and breakers (invalid values) keyed by their $defs id.
import fc from 'fast-check';
import { SCORE_BANDS, SEVERITIES, type Severity } from './finding.js';

export type JsonType = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object';
const JSON_TYPES: readonly JsonType[] = ['null', 'boolean', 'number', 'string', 'array', 'object'];

/** A JSON Schema node with the keywords z.toJSONSchema writes for our contracts (draft 2020-12). */
export interface SchemaNode {
  readonly $ref?: string;
  readonly $defs?: Readonly<Record<string, SchemaNode>>;
  /** One type, or several (zod writes a plain nullable string as `["string", "null"]`). */
  readonly type?: JsonType | 'integer' | readonly (JsonType | 'integer')[];
  readonly const?: unknown;
  readonly enum?: readonly unknown[];
  readonly anyOf?: readonly SchemaNode[];
  readonly oneOf?: readonly SchemaNode[];
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | SchemaNode;
  readonly propertyNames?: SchemaNode;
  readonly items?: SchemaNode;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly format?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly default?: unknown;
}

// Anything else makes the generator throw, so a contract change that needs new handling (an
// exclusiveMinimum, a uniqueItems) fails loudly here instead of producing values nobody checked.
const KNOWN_KEYWORDS = new Set([
  '$id',
  '$schema',
  '$ref',
  '$defs',
  'type',
  'const',
  'enum',
  'anyOf',
  'oneOf',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'default',
  'description',
]);

export type Path = readonly (string | number)[];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asRecord(value: unknown, what: string): Record<string, unknown> {
  if (!isRecord(value)) throw new Error(`${what}: expected an object, got ${JSON.stringify(value)}`);
  return value;
}

export function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  if (type === 'boolean' || type === 'number' || type === 'string' || type === 'object') return type;
  throw new Error(`not a JSON value: ${type}`);
}

/** One committed schema file, with $ref resolution against its own $defs. */
export class SchemaDocument {
  readonly root: SchemaNode;

  constructor(
    readonly name: string,
    document: unknown,
  ) {
    this.root = asRecord(document, name);
    checkKeywords(this.root, name);
  }

  def(ref: string): { readonly id: string; readonly node: SchemaNode } {
    const match = /^#\/\$defs\/(.+)$/.exec(ref);
    const id = match?.[1];
    const node = id === undefined ? undefined : this.root.$defs?.[id];
    if (id === undefined || node === undefined) throw new Error(`${this.name}: cannot resolve $ref ${ref}`);
    return { id, node };
  }

  /** Follows $refs; returns the node they end at and the $defs ids crossed on the way. */
  resolve(node: SchemaNode): { readonly node: SchemaNode; readonly ids: readonly string[] } {
    const ids: string[] = [];
    let current = node;
    while (current.$ref !== undefined) {
      const target = this.def(current.$ref);
      if (ids.includes(target.id)) throw new Error(`${this.name}: recursive $ref ${target.id} is not supported`);
      ids.push(target.id);
      current = target.node;
    }
    return { node: current, ids };
  }

  /** The JSON types a node admits (`integer` counts as `number`). */
  allowedTypes(node: SchemaNode): ReadonlySet<JsonType> {
    const resolved = this.resolve(node).node;
    if ('const' in resolved) return new Set([jsonTypeOf(resolved.const)]);
    if (resolved.enum !== undefined) return new Set(resolved.enum.map(jsonTypeOf));
    const union = resolved.anyOf ?? resolved.oneOf;
    if (union !== undefined) return new Set(union.flatMap((branch) => [...this.allowedTypes(branch)]));
    if (resolved.type === undefined) return new Set(JSON_TYPES);
    const types = typeof resolved.type === 'object' ? resolved.type : [resolved.type];
    return new Set(types.map((t) => (t === 'integer' ? 'number' : t)));
  }

  /** Every string a `const` or `enum` of this document names (never a "wrong" value). */
  namedStrings(): ReadonlySet<string> {
    this.named ??= this.collectNamedStrings();
    return this.named;
  }

  private named: ReadonlySet<string> | undefined;

  private collectNamedStrings(): ReadonlySet<string> {
    const names = new Set<string>();
    const visit = (value: unknown): void => {
      if (Array.isArray(value)) {
        value.forEach(visit);
        return;
      }
      if (!isRecord(value)) return;
      if (typeof value['const'] === 'string') names.add(value['const']);
      if (Array.isArray(value['enum']))
        for (const member of value['enum']) if (typeof member === 'string') names.add(member);
      Object.values(value).forEach(visit);
    };
    visit(this.root);
    return names;
  }
}

function checkKeywords(node: SchemaNode, at: string): void {
  for (const key of Object.keys(node)) {
    if (!KNOWN_KEYWORDS.has(key))
      throw new Error(`${at}: JSON Schema keyword "${key}" is not handled by json-schema.arbitraries.ts`);
  }
  const children: [string, SchemaNode | undefined][] = [
    ...Object.entries(node.$defs ?? {}).map(([k, v]): [string, SchemaNode] => [`$defs/${k}`, v]),
    ...Object.entries(node.properties ?? {}).map(([k, v]): [string, SchemaNode] => [`properties/${k}`, v]),
    ...(node.anyOf ?? []).map((v, i): [string, SchemaNode] => [`anyOf/${i}`, v]),
    ...(node.oneOf ?? []).map((v, i): [string, SchemaNode] => [`oneOf/${i}`, v]),
    ['items', node.items],
    ['propertyNames', node.propertyNames],
    ['additionalProperties', typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined],
  ];
  for (const [key, child] of children) if (child !== undefined) checkKeywords(child, `${at}/${key}`);
}

// ── Valid values ─────────────────────────────────────────────────────────────────────────────

/** Turns the generic arbitrary of a $defs entry into one that also satisfies its zod refinement. */
export type Repair = (generic: fc.Arbitrary<unknown>) => fc.Arbitrary<unknown>;

/** JSON cannot carry -0, so a value that holds it would not survive the wire. */
function noNegativeZero(x: number): number {
  return Object.is(x, -0) ? 0 : x;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/** RFC 3339 date-times as z.iso.datetime({ offset: true }) reads them: `Z` or `±hh:mm`, any fraction. */
export const dateTimeArbitrary: fc.Arbitrary<string> = fc
  .record({
    instant: fc.date({
      min: new Date('0001-01-02T00:00:00.000Z'),
      max: new Date('9999-12-30T23:59:59.999Z'),
      noInvalidDate: true,
    }),
    offsetMinutes: fc.option(fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }), { nil: null }),
    fractionDigits: fc.integer({ min: 0, max: 9 }),
    extraDigits: fc.stringMatching(/^\d{6}$/),
  })
  .map(({ instant, offsetMinutes, fractionDigits, extraDigits }) => {
    const local = new Date(instant.getTime() + (offsetMinutes ?? 0) * 60_000);
    const date = `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1, 2)}-${pad(local.getUTCDate(), 2)}`;
    const time = `${pad(local.getUTCHours(), 2)}:${pad(local.getUTCMinutes(), 2)}:${pad(local.getUTCSeconds(), 2)}`;
    const fraction =
      fractionDigits === 0 ? '' : `.${`${pad(local.getUTCMilliseconds(), 3)}${extraDigits}`.slice(0, fractionDigits)}`;
    if (offsetMinutes === null) return `${date}T${time}${fraction}Z`;
    const magnitude = Math.abs(offsetMinutes);
    return `${date}T${time}${fraction}${offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(magnitude / 60), 2)}:${pad(magnitude % 60, 2)}`;
  });

const pathSegment = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_.-]{1,16}$/),
  fc.string({ unit: 'grapheme-composite', minLength: 1, maxLength: 8 }).filter((s) => !/[/:\\]/.test(s)),
);

/** Relative paths that stay inside the repository: no leading `/`, no drive letter, no `..` segment. */
export const repoPathArbitrary: fc.Arbitrary<string> = fc
  .array(
    pathSegment.filter((s) => s !== '..'),
    { minLength: 1, maxLength: 4 },
  )
  .map((segments) => segments.join('/'))
  .filter((p) => p.length <= 1024);

function isSeverity(value: unknown): value is Severity {
  return typeof value === 'string' && (SEVERITIES as readonly string[]).includes(value);
}

/** The refinements zod enforces beyond the JSON Schema, as repairs of generic values. */
export const REPAIRS: Readonly<Record<string, Repair>> = {
  // Finding.refine: the score lies in the band of its severity.
  Finding: (generic) =>
    generic.map((value) => {
      const finding = asRecord(value, 'Finding');
      const { severity, score } = finding;
      if (!isSeverity(severity) || typeof score !== 'number')
        throw new Error('Finding: generic value lacks severity or score');
      const band = SCORE_BANDS[severity];
      return { ...finding, score: band.min + ((score - 1) % (band.max - band.min + 1)) };
    }),
  // LineRange.refine: end at or after start.
  LineRange: (generic) =>
    generic.map((value) => {
      const { start, end } = asRecord(value, 'LineRange');
      if (typeof start !== 'number' || typeof end !== 'number')
        throw new Error('LineRange: generic value lacks start or end');
      return { start: Math.min(start, end), end: Math.max(start, end) };
    }),
  // RepoPath.refine: relative and inside the repository; generic strings rarely are, so build them.
  RepoPath: () => repoPathArbitrary,
  // PlanRepo.refine: exactly one of path and url.
  PlanRepo: (generic) =>
    fc.tuple(generic, fc.boolean(), fc.string({ minLength: 1, maxLength: 40 })).map(([value, preferPath, location]) => {
      const { path, url, ...rest } = asRecord(value, 'PlanRepo');
      if ((path === undefined) !== (url === undefined)) return value;
      return { ...rest, [preferPath ? 'path' : 'url']: location };
    }),
  // PlanImplementer.refine: the command strategy names its command, the agent strategy its agent,
  // and only the agent strategy carries agent, model and extra_args.
  PlanImplementer: (generic) =>
    fc.tuple(generic, fc.string({ minLength: 1, maxLength: 40 })).map(([value, command]) => {
      const { agent, model, extra_args: extraArgs, ...rest } = asRecord(value, 'PlanImplementer');
      if (rest['strategy'] === 'agent')
        return {
          ...rest,
          agent: agent ?? 'claude-code',
          ...(model === undefined ? {} : { model }),
          ...(extraArgs === undefined ? {} : { extra_args: extraArgs }),
        };
      return rest['strategy'] === 'command' && rest['command'] === undefined ? { ...rest, command } : rest;
    }),
  // CriticCoverage.refine: the counts add up, and no more files are listed than were skipped.
  CriticCoverage: (generic) =>
    generic.map((value) => {
      const coverage = asRecord(value, 'CriticCoverage');
      const { analysed, unsupported, skipped, skipped_total: total } = coverage;
      if (
        typeof analysed !== 'number' ||
        typeof unsupported !== 'number' ||
        !Array.isArray(skipped) ||
        typeof total !== 'number'
      ) {
        throw new Error('CriticCoverage: generic value lacks its counts');
      }
      const counts = {
        analysed: analysed % 1_000_000,
        unsupported: unsupported % 1_000_000,
        skipped_total: skipped.length + (total % 1_000),
      };
      return { ...coverage, ...counts, considered: counts.analysed + counts.unsupported + counts.skipped_total };
    }),
  // PlanSpec's title is trimmed before its length check, which JSON Schema cannot say.
  PlanSpec: (generic) =>
    generic.map((value) => {
      const plan = asRecord(value, 'PlanSpec');
      return typeof plan['title'] === 'string' && plan['title'].trim() === '' ? { ...plan, title: 'untitled' } : plan;
    }),
};

/** Formats whose JSON Schema pattern is better generated by construction. */
export const FORMATS: Readonly<Record<string, fc.Arbitrary<string>>> = {
  'date-time': dateTimeArbitrary,
  // Calendar days (z.iso.date): a real day of a four-digit year.
  date: fc
    .date({ min: new Date('0001-01-01T00:00:00.000Z'), max: new Date('9999-12-31T00:00:00.000Z'), noInvalidDate: true })
    .map((d) => `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`),
};

// Passed through JSON once, so it holds only what the wire can carry (no -0 deep inside).
const anyJson: fc.Arbitrary<unknown> = fc
  .jsonValue({ maxDepth: 2, stringUnit: 'grapheme-composite' })
  .map((v): unknown => JSON.parse(JSON.stringify(v)));

function integerArbitrary(minimum = Number.MIN_SAFE_INTEGER, maximum = Number.MAX_SAFE_INTEGER): fc.Arbitrary<number> {
  // Mostly small numbers (what real events hold), sometimes anywhere up to the bounds.
  const small = fc.integer({ min: Math.max(minimum, -1000), max: Math.min(maximum, Math.max(minimum, -1000) + 2000) });
  const wide = fc.bigInt({ min: BigInt(minimum), max: BigInt(maximum) }).map(Number);
  return fc.oneof({ arbitrary: small, weight: 4 }, { arbitrary: wide, weight: 1 });
}

// Compiling a pattern into an arbitrary is the slow part of building one, and the same few
// patterns (event ids, slugs, shas) occur dozens of times per document.
const patternArbitraries = new Map<string, fc.Arbitrary<string>>();

function patternArbitrary(pattern: string): fc.Arbitrary<string> {
  let arbitrary = patternArbitraries.get(pattern);
  if (arbitrary === undefined) {
    arbitrary = fc.stringMatching(new RegExp(pattern));
    patternArbitraries.set(pattern, arbitrary);
  }
  return arbitrary;
}

function stringArbitrary(node: SchemaNode): fc.Arbitrary<string> {
  const min = node.minLength ?? 0;
  const max = node.maxLength ?? Number.POSITIVE_INFINITY;
  // Lengths are checked in UTF-16 code units, as zod counts them; a unit may be two of those.
  const base =
    node.pattern === undefined
      ? fc.string({ unit: 'grapheme-composite', minLength: min, maxLength: Math.min(max, min + 16) })
      : patternArbitrary(node.pattern);
  return base.filter((s) => s.length >= min && s.length <= max);
}

/** An arbitrary of values valid against a schema document (and its zod refinements). */
export function valueArbitrary(
  document: SchemaDocument,
  repairs: Readonly<Record<string, Repair>> = REPAIRS,
): fc.Arbitrary<unknown> {
  const defs = new Map<string, fc.Arbitrary<unknown>>();

  const defArbitrary = (ref: string): fc.Arbitrary<unknown> => {
    const { id, node } = document.def(ref);
    let arbitrary = defs.get(id);
    if (arbitrary === undefined) {
      const generic = build(node);
      arbitrary = repairs[id]?.(generic) ?? generic;
      defs.set(id, arbitrary);
    }
    return arbitrary;
  };

  const build = (node: SchemaNode): fc.Arbitrary<unknown> => {
    if (node.$ref !== undefined) return defArbitrary(node.$ref);
    if (node.format !== undefined) {
      const format = FORMATS[node.format];
      if (format === undefined) throw new Error(`${document.name}: format "${node.format}" has no arbitrary`);
      return format;
    }
    if ('const' in node) return fc.constant(node.const);
    if (node.enum !== undefined) return fc.constantFrom(...node.enum);
    const union = node.anyOf ?? node.oneOf;
    if (union !== undefined) return fc.oneof(...union.map(build));
    if (typeof node.type === 'object') return fc.oneof(...node.type.map((type) => build({ ...node, type })));
    switch (node.type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return integerArbitrary(node.minimum, node.maximum);
      case 'number':
        return fc
          .double({ min: node.minimum, max: node.maximum, noNaN: true, noDefaultInfinity: true })
          .map(noNegativeZero);
      case 'string':
        return stringArbitrary(node);
      case 'array': {
        const minLength = node.minItems ?? 0;
        // A few items are enough to exercise item schemas; nested arrays multiply quickly.
        const maxLength = Math.min(node.maxItems ?? Number.POSITIVE_INFINITY, minLength + 3);
        return fc.array(node.items === undefined ? anyJson : build(node.items), { minLength, maxLength });
      }
      case 'object': {
        if (node.properties !== undefined) {
          const shape: Record<string, fc.Arbitrary<unknown>> = {};
          for (const [key, child] of Object.entries(node.properties)) shape[key] = build(child);
          return fc.record(shape, { requiredKeys: [...(node.required ?? [])], noNullPrototype: true });
        }
        const values = typeof node.additionalProperties === 'object' ? build(node.additionalProperties) : anyJson;
        return fc.dictionary(stringArbitrary(node.propertyNames ?? {}), values, { maxKeys: 3, noNullPrototype: true });
      }
      case undefined:
        return anyJson;
    }
  };

  return build(document.root);
}

// ── Invalid values ───────────────────────────────────────────────────────────────────────────

export const MUTATION_KINDS = [
  'drop_required',
  'wrong_type',
  'wrong_const',
  'out_of_enum',
  'break_pattern',
  'out_of_range',
  'refinement',
] as const;
export type MutationKind = (typeof MUTATION_KINDS)[number];

const DROP = Symbol('drop the property');

/** A place where a value can be made invalid, and how. */
export interface MutationSite {
  readonly kind: MutationKind;
  /** Where the replacement goes (or which property is dropped). */
  readonly path: Path;
  /** Where zod reports the problem: the same place, or e.g. `end` for a line range turned around. */
  readonly expectedPath: Path;
  readonly replacement: fc.Arbitrary<unknown>;
}

/** A value made invalid by exactly one change. */
export interface Mutation {
  readonly kind: MutationKind;
  readonly path: Path;
  readonly expectedPath: Path;
  readonly value: unknown;
}

/** Breaks a refinement of the $defs type found at `path` (whose current valid value is given). */
export type Breaker = (value: unknown, path: Path) => readonly MutationSite[];

/** Builds a (possibly large) replacement only when the mutation is actually picked. */
function lazy(make: () => unknown): fc.Arbitrary<unknown> {
  return fc.constant(null).map(make);
}

function site(
  kind: MutationKind,
  path: Path,
  replacement: fc.Arbitrary<unknown>,
  expectedPath: Path = path,
): MutationSite {
  return { kind, path, expectedPath, replacement };
}

/** The zod refinements, broken on purpose while every JSON Schema constraint still holds. */
export const BREAKERS: Readonly<Record<string, Breaker>> = {
  Finding: (value, path) => {
    const { severity } = asRecord(value, 'Finding');
    if (!isSeverity(severity)) return [];
    const band = SCORE_BANDS[severity];
    const outside = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].filter((s) => s < band.min || s > band.max);
    return [site('refinement', [...path, 'score'], fc.constantFrom(...outside))];
  },
  LineRange: (value, path) => {
    const { end } = asRecord(value, 'LineRange');
    if (typeof end !== 'number') return [];
    // Turned around without leaving the integer bounds (end may sit at the largest safe integer).
    const turned = fc
      .integer({ min: 1, max: 10_000 })
      .map((k) => (end > k ? { start: end, end: end - k } : { start: end + k, end }));
    return [site('refinement', path, turned, [...path, 'end'])];
  },
  RepoPath: (_value, path) => [
    site('refinement', path, fc.constantFrom('../x', '..', 'a/../../b', '/etc/passwd', 'C:/Windows/x', 'src/..')),
  ],
  PlanRepo: (value, path) => {
    const { path: _path, url: _url, ...neither } = asRecord(value, 'PlanRepo');
    return [
      site('refinement', path, fc.constant({ ...neither, path: 'repo', url: 'https://example.com/repo.git' })),
      site('refinement', path, fc.constant(neither)),
    ];
  },
  PlanImplementer: (_value, path) => [
    site('refinement', path, fc.constant({ strategy: 'command' }), [...path, 'command']),
    site('refinement', path, fc.constant({ strategy: 'agent' }), [...path, 'agent']),
    site('refinement', path, fc.constant({ strategy: 'autofix', agent: 'codex' }), [...path, 'strategy']),
  ],
  PlanSpec: (_value, path) => [site('refinement', [...path, 'title'], fc.constantFrom(' ', '\t\n', '   '))],
  CriticCoverage: (value, path) => {
    const { considered } = asRecord(value, 'CriticCoverage');
    if (typeof considered !== 'number') return [];
    return [
      site(
        'refinement',
        [...path, 'considered'],
        fc.integer({ min: 1, max: 1_000 }).map((k) => considered + k),
        path,
      ),
    ];
  },
};

function valueOfType(type: JsonType): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true }).map(noNegativeZero);
    case 'string':
      return fc.string();
    case 'array':
      return fc.array(anyJson, { maxLength: 2 });
    case 'object':
      return fc.dictionary(fc.string(), anyJson, { maxKeys: 2, noNullPrototype: true });
  }
}

function patternBreakers(value: string): string[] {
  return [
    `${value}.`,
    `${value} `,
    `.${value}`,
    value.slice(0, -1),
    value.toUpperCase(),
    `A${value}`,
    `${value}\n`,
    '',
  ];
}

export interface MutationOptions {
  readonly breakers?: Readonly<Record<string, Breaker>>;
  /** Strings that must never be used as a "wrong" const or enum value (e.g. every event type). */
  readonly reserved?: Iterable<string>;
}

/** Every single-change mutation of a valid value that must make it invalid. */
export function mutationSites(document: SchemaDocument, value: unknown, options: MutationOptions = {}): MutationSite[] {
  const breakers = options.breakers ?? BREAKERS;
  const reserved = new Set([...document.namedStrings(), ...(options.reserved ?? [])]);
  const sites: MutationSite[] = [];

  const unnamed = (candidates: fc.Arbitrary<string>): fc.Arbitrary<string> =>
    candidates.filter((s) => !reserved.has(s));

  const matchingBranch = (branches: readonly SchemaNode[], v: unknown): SchemaNode | undefined => {
    const type = jsonTypeOf(v);
    const candidates = branches.filter((branch) => {
      if (!document.allowedTypes(branch).has(type)) return false;
      const properties = document.resolve(branch).node.properties;
      if (properties === undefined || !isRecord(v)) return true;
      return Object.entries(properties).every(([key, child]) => !('const' in child) || v[key] === child.const);
    });
    return candidates.length === 1 ? candidates[0] : undefined;
  };

  const visit = (node: SchemaNode, v: unknown, path: Path, typeSiteDone: boolean): void => {
    const { node: resolved, ids } = document.resolve(node);
    for (const id of ids) sites.push(...(breakers[id]?.(v, path) ?? []));

    if (path.length > 0 && !typeSiteDone) {
      const allowed = document.allowedTypes(node);
      const disallowed = JSON_TYPES.filter((t) => !allowed.has(t));
      if (disallowed.length > 0)
        sites.push(site('wrong_type', path, fc.constantFrom(...disallowed).chain(valueOfType)));
      if (resolved.type === 'integer') {
        // Near zero: far out, x + 0.5 rounds back to an integer.
        const whole = Math.min(Math.max(0, resolved.minimum ?? 0), (resolved.maximum ?? 1) - 1);
        sites.push(site('wrong_type', path, fc.constant(whole + 0.5)));
      }
    }

    if ('const' in resolved) {
      const expected = resolved.const;
      if (typeof expected === 'string') {
        sites.push(
          site(
            'wrong_const',
            path,
            unnamed(fc.oneof(fc.string(), fc.constant(expected.toLowerCase()), fc.constant(`${expected}V2`))),
          ),
        );
      } else if (typeof expected === 'number') {
        sites.push(
          site(
            'wrong_const',
            path,
            fc.integer({ min: -3, max: 1000 }).filter((n) => n !== expected),
          ),
        );
      }
      return;
    }
    if (resolved.enum !== undefined) {
      const members = resolved.enum;
      if (typeof v === 'string') {
        const upper = members.filter((m): m is string => typeof m === 'string').map((m) => m.toUpperCase());
        sites.push(
          site(
            'out_of_enum',
            path,
            unnamed(fc.oneof(fc.string(), fc.constantFrom(...upper, `${v}_other`))).filter((s) => !members.includes(s)),
          ),
        );
      }
      return;
    }
    const union = resolved.anyOf ?? resolved.oneOf;
    if (union !== undefined) {
      // Only look inside when exactly one branch fits, so a mutation cannot land in another branch.
      const branch = matchingBranch(union, v);
      if (branch !== undefined) visit(branch, v, path, true);
      return;
    }

    if (typeof v === 'string') {
      if (resolved.pattern !== undefined) {
        const pattern = new RegExp(resolved.pattern);
        const broken = patternBreakers(v).filter((s) => !pattern.test(s));
        if (broken.length === 0)
          throw new Error(`${document.name}: cannot break pattern ${resolved.pattern} of ${JSON.stringify(v)}`);
        sites.push(site('break_pattern', path, fc.constantFrom(...broken)));
      }
      if (resolved.minLength !== undefined && resolved.minLength > 0)
        sites.push(site('out_of_range', path, fc.constant('')));
      if (resolved.maxLength !== undefined) {
        const tooLong = resolved.maxLength + 1;
        sites.push(
          site(
            'out_of_range',
            path,
            lazy(() => 'x'.repeat(tooLong)),
          ),
        );
      }
    } else if (typeof v === 'number') {
      if (resolved.minimum !== undefined) sites.push(site('out_of_range', path, fc.constant(resolved.minimum - 1)));
      if (resolved.maximum !== undefined) sites.push(site('out_of_range', path, fc.constant(resolved.maximum + 1)));
    } else if (Array.isArray(v)) {
      if (resolved.minItems !== undefined && resolved.minItems > 0)
        sites.push(site('out_of_range', path, fc.constant([])));
      if (resolved.maxItems !== undefined) {
        const filler: unknown = v[0] ?? null;
        const tooMany = resolved.maxItems + 1;
        sites.push(
          site(
            'out_of_range',
            path,
            lazy(() => Array.from({ length: tooMany }, () => structuredClone(filler))),
          ),
        );
      }
      if (resolved.items !== undefined) {
        const items = resolved.items;
        v.forEach((item, index) => visit(items, item, [...path, index], false));
      }
    } else if (isRecord(v)) {
      for (const key of resolved.required ?? []) {
        // A property with a default is "required" in an output schema, yet zod fills it in when absent.
        if (resolved.properties?.[key]?.default === undefined && Object.hasOwn(v, key))
          sites.push(site('drop_required', [...path, key], fc.constant(DROP)));
      }
      for (const [key, child] of Object.entries(v)) {
        const schema =
          resolved.properties?.[key] ??
          (typeof resolved.additionalProperties === 'object' ? resolved.additionalProperties : undefined);
        if (schema !== undefined) visit(schema, child, [...path, key], false);
      }
    }
  };

  visit(document.root, value, [], false);
  return sites;
}

function applyAt(value: unknown, path: Path, replacement: unknown): unknown {
  const copy = structuredClone(value);
  if (path.length === 0) return replacement;
  let parent: unknown = copy;
  for (const key of path.slice(0, -1)) parent = (parent as Record<string | number, unknown>)[key];
  const last = path[path.length - 1];
  if (last === undefined || typeof parent !== 'object' || parent === null)
    throw new Error(`cannot mutate at ${path.join('.')}`);
  const container = parent as Record<string | number, unknown>;
  if (replacement === DROP) delete container[last];
  else container[last] = replacement;
  return copy;
}

/** A random single mutation of `value`: first a kind (so rare kinds get their turn), then a place. */
export function mutationArbitrary(
  document: SchemaDocument,
  value: unknown,
  options: MutationOptions = {},
): fc.Arbitrary<Mutation> {
  const sites = mutationSites(document, value, options);
  const kinds = MUTATION_KINDS.filter((kind) => sites.some((s) => s.kind === kind));
  if (kinds.length === 0) throw new Error(`${document.name}: no way to mutate ${JSON.stringify(value)}`);
  return fc
    .constantFrom(...kinds)
    .chain((kind) => fc.constantFrom(...sites.filter((s) => s.kind === kind)))
    .chain((s) =>
      s.replacement.map((replacement): Mutation => ({
        kind: s.kind,
        path: s.path,
        expectedPath: s.expectedPath,
        value: applyAt(value, s.path, replacement),
      })),
    );
}
