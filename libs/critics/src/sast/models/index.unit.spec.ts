import { describe, expect, it } from '@jest/globals';
import { FRAMEWORK_MODELS, MODELS, ModelIndex } from './index.js';
import type { FrameworkModel } from './types.js';

const lib: FrameworkModel = {
  id: 'lib',
  description: 'a test library',
  entryHint: /\blibThing\b/,
  sinks: [
    { kind: 'ssrf', call: { module: 'lib', member: ['get', ''] }, args: [0] },
    { kind: 'code', call: { module: 'lib', member: 'run', instance: true }, args: [0] },
    { kind: 'code', call: { module: 'lib', member: /^compile/ }, args: [0] },
    { kind: 'xss', call: { global: 'Widget' }, construct: true, args: [0] },
    { kind: 'sql', call: { method: 'q' }, args: [0] },
  ],
  passThrough: [
    { module: 'lib', member: 'basename', effect: 'clean-path' },
    { module: 'lib', member: '*', effect: 'all' },
  ],
  requests: [{ flavor: 'http', origin: 'http', fields: ['a'], scalarFields: ['a'] }],
  instanceModules: ['lib'],
};
const other: FrameworkModel = {
  id: 'other',
  description: 'another framework adding request fields',
  entryHint: /\botherThing\b/,
  requests: [
    { flavor: 'http', origin: 'http', fields: ['b'], nestedFields: ['inner'] },
    { flavor: 'lambda', origin: 'http', fields: '*', exceptFields: ['context'] },
  ],
};

describe('ModelIndex', () => {
  const index = new ModelIndex([lib, other]);

  it('finds package rules by member, keeps calls on returned objects apart, and matches member patterns', () => {
    expect(index.moduleSinkRules('lib', 'get', false, false).map((r) => r.kind)).toEqual(['ssrf']);
    expect(index.moduleSinkRules('lib', '', false, false).map((r) => r.kind)).toEqual(['ssrf']);
    expect(index.moduleSinkRules('lib', 'run', false, false)).toEqual([]);
    expect(index.moduleSinkRules('lib', 'run', true, false).map((r) => r.kind)).toEqual(['code']);
    expect(index.moduleSinkRules('lib', 'compileTemplate', false, false).map((r) => r.kind)).toEqual(['code']);
    expect(index.moduleSinkRules('elsewhere', 'get', false, false)).toEqual([]);
  });

  it('keeps constructions, globals and method names in their own tables', () => {
    expect(index.globalSinkRules('Widget', true).map((r) => r.kind)).toEqual(['xss']);
    expect(index.globalSinkRules('Widget', false)).toEqual([]);
    expect(index.methodSinkRules('q').map((r) => r.kind)).toEqual(['sql']);
  });

  it('prefers a member rule over the package-wide one, and knows which packages have rules', () => {
    expect(index.passEffect('lib', 'basename')).toBe('clean-path');
    expect(index.passEffect('lib', 'format')).toBe('all');
    expect(index.passEffect('nope', 'format')).toBeNull();
    expect(index.isKnownModule('lib')).toBe(true);
    expect(index.isKnownModule('nope')).toBe(false);
    expect(index.tracksInstances('lib')).toBe(true);
  });

  it('merges the request fields every framework contributes to one flavour', () => {
    expect(index.isInputField('http', 'a')).toBe(true);
    expect(index.isInputField('http', 'b')).toBe(true);
    expect(index.isInputField('http', 'c')).toBe(false);
    expect(index.request('http')?.scalarFields.has('a')).toBe(true);
    expect(index.request('http')?.nestedFields.has('inner')).toBe(true);
    expect(index.isInputField('lambda', 'anything')).toBe(true);
    expect(index.isInputField('lambda', 'context')).toBe(false);
  });

  it('joins the entry hints of every model', () => {
    expect(index.entryHint.test('const x = libThing;')).toBe(true);
    expect(index.entryHint.test('otherThing()')).toBe(true);
    expect(index.entryHint.test('nothing here')).toBe(false);
  });

  it('refuses a sanitiser rule that names no package', () => {
    expect(
      () =>
        new ModelIndex([{ id: 'bad', description: 'x', sanitisers: [{ call: { method: 'clean' }, clean: ['xss'] }] }]),
    ).toThrow(/sanitiser rules name a module/);
  });
});

describe('the built-in models', () => {
  it('have unique ids and a description each', () => {
    const ids = FRAMEWORK_MODELS.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const model of FRAMEWORK_MODELS) expect(model.description.length).toBeGreaterThan(10);
  });

  it('cover every sink kind the scanner reports', () => {
    const kinds = new Set(
      FRAMEWORK_MODELS.flatMap((m) =>
        [...(m.sinks ?? []), ...(m.assignmentSinks ?? []), ...(m.jsxSinks ?? [])].map((r) => r.kind),
      ),
    );
    expect([...kinds].sort()).toEqual([
      'code',
      'command',
      'mass-assignment',
      'nosql',
      'path',
      'redirect',
      'sql',
      'ssrf',
      'xss',
    ]);
    expect(MODELS.models).toBe(FRAMEWORK_MODELS);
  });
});
