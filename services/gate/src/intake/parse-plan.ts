import { type Issue, PLAN_LIMITS, PlanSpec, toIssues } from '@rloop/contracts';

export type PlanParseResult =
  | { readonly ok: true; readonly plan: PlanSpec }
  | { readonly ok: false; readonly errors: Issue[]; readonly slug?: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

function slugOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || !Object.hasOwn(value, 'slug')) return undefined;
  const slug = (value as { slug?: unknown }).slug;
  return typeof slug === 'string' ? slug.slice(0, 64) : undefined;
}

/**
 * Turns a submitted body into a plan, or every reason it is not one. Never throws: oversized
 * bodies, non-UTF-8 bytes, malformed JSON and schema violations all come back as errors.
 * JSON.parse keeps a `__proto__` key as an own property (it never sets the prototype), and the
 * strict schema then rejects it as an unknown key, so nothing reaches Object.prototype.
 */
export function parsePlanBody(body: Uint8Array): PlanParseResult {
  if (body.byteLength > PLAN_LIMITS.maxBodyBytes) {
    return {
      ok: false,
      errors: [
        { path: '(body)', message: `the plan is ${body.byteLength} bytes; the limit is ${PLAN_LIMITS.maxBodyBytes}` },
      ],
    };
  }
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return { ok: false, errors: [{ path: '(body)', message: 'the plan is not valid UTF-8' }] };
  }
  if (text.trim() === '') return { ok: false, errors: [{ path: '(body)', message: 'the plan is empty' }] };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      errors: [
        {
          path: '(body)',
          message: `the plan is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
        },
      ],
    };
  }
  return validatePlan(raw);
}

/** Validates an already-decoded plan object against the contract. */
export function validatePlan(raw: unknown): PlanParseResult {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, errors: [{ path: '(root)', message: 'the plan must be a JSON object' }] };
  }
  const result = PlanSpec.safeParse(raw);
  if (!result.success) {
    const slug = slugOf(raw);
    return { ok: false, errors: toIssues(result.error), ...(slug === undefined ? {} : { slug }) };
  }
  return { ok: true, plan: result.data };
}
