import { describe, expect, it } from '@jest/globals';
import { PLAN_LIMITS } from '@rloop/contracts';
import { parsePlanBody } from './parse-plan.js';

const encode = (value: unknown) => new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));
const valid = {
  slug: 'add-billing',
  title: 'Add billing',
  description: 'Invoices',
  effort_level: 'high',
  files: ['src/**/*.ts'],
  repo: { path: '/repo' },
  test_cmd: 'npm test',
};

describe('reading a submitted plan', () => {
  it('given a valid plan, when parsed, then defaults are filled in', () => {
    const result = parsePlanBody(encode(valid));
    expect(result).toEqual({
      ok: true,
      plan: { ...valid, repo: { path: '/repo', ref: 'HEAD' }, implementer: { strategy: 'autofix' } },
    });
  });

  it('given malformed JSON, when parsed, then the rejection says so', () => {
    const result = parsePlanBody(encode('{"slug": "x",'));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors[0]?.message).toMatch(/^the plan is not valid JSON/);
  });

  it('given bytes that are not UTF-8, when parsed, then the rejection says so', () => {
    expect(parsePlanBody(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]))).toEqual({
      ok: false,
      errors: [{ path: '(body)', message: 'the plan is not valid UTF-8' }],
    });
  });

  it('given an oversized body, when parsed, then it is rejected before being decoded', () => {
    const result = parsePlanBody(new Uint8Array(PLAN_LIMITS.maxBodyBytes + 1));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors[0]?.message).toContain('the limit is');
  });

  it('given several problems, when parsed, then every one is named with its path', () => {
    const result = parsePlanBody(
      encode({ ...valid, slug: 'Bad.Slug', effort_level: 'huge', files: 'src', test_cmd: 7 }),
    );
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors.map((e) => e.path).sort()).toEqual(['effort_level', 'files', 'slug', 'test_cmd']);
      expect(result.slug).toBe('Bad.Slug');
    }
  });

  it('given a __proto__ key, when parsed, then it is rejected and Object.prototype is untouched', () => {
    const result = parsePlanBody(encode(`{"__proto__": {"polluted": true}, ${JSON.stringify(valid).slice(1)}`));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.some((e) => e.message.includes('__proto__'))).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('given a JSON array or a scalar, when parsed, then it is rejected as not an object', () => {
    expect(parsePlanBody(encode('[1,2]'))).toEqual({
      ok: false,
      errors: [{ path: '(root)', message: 'the plan must be a JSON object' }],
    });
    expect(parsePlanBody(encode('null'))).toEqual({
      ok: false,
      errors: [{ path: '(root)', message: 'the plan must be a JSON object' }],
    });
  });
});
