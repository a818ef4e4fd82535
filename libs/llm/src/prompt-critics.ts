/**
 * The dynamic LLM critics of the spec's catalogue: each one is the shared critic machinery
 * (createPromptCritic) with its own concern. Triggers repeat the globs of config/critics.yaml's
 * `dynamic` table, which is what actually puts a critic on a panel; they are here so a critic
 * registered on its own (CriticRegistered) announces the same ones.
 */
export interface PromptCriticSpec {
  readonly id: string;
  readonly evidence: 'llm';
  readonly description: string;
  readonly triggers: readonly string[];
  /** The concern, placed after the cached files and diff in the user message. */
  readonly prompt: string;
}

const FRONTEND = ['**/components/**', '**/pages/**', '**/*.{tsx,jsx,vue,svelte}'];
const DB = ['**/migrations/**', '**/schema*', '**/*.sql'];
const DEPLOY = ['**/deploy/**', '**/infra/**'];
const BILLING = ['**/billing/**', '**/stripe/**'];
const AI_ML = ['**/ml/**', '**/models/**'];
const HEALTH = ['**/health/**', '**/medical/**', '**/phi/**'];
const PII = ['**/personal/**', '**/profile/**', '**/pii/**'];

function lines(...parts: string[]): string {
  return parts.join('\n');
}

export const PROMPT_CRITIC_SPECS: readonly PromptCriticSpec[] = [
  {
    id: 'specialized/accessibility-checker',
    evidence: 'llm',
    description: 'WCAG 2.2 problems in UI code: names, roles, keyboard access, focus, contrast hints',
    triggers: FRONTEND,
    prompt: lines(
      'You are specialized/accessibility-checker. Review UI code for WCAG 2.2 AA problems a user of assistive technology would hit:',
      '- interactive elements without an accessible name (icon buttons, inputs without labels, images without alt text that carry meaning);',
      '- click handlers on non-interactive elements without role, tabIndex and keyboard handlers; focus traps; focus not moved or restored around dialogs;',
      '- ARIA misuse (wrong roles, aria-hidden on focusable content, invalid aria-* references); live regions missing for async status;',
      '- information conveyed by colour alone, hard-coded colours with obviously low contrast, motion without prefers-reduced-motion.',
      'A violation that blocks a task for keyboard or screen-reader users is critical; others are medium. observable_test_conditions should be checks a DOM test (e.g. Testing Library queries by role and name) can make.',
    ),
  },
  {
    id: 'frontend/visual-regression-checker',
    evidence: 'llm',
    description:
      'UI changes likely to break layout or visuals: CSS scope leaks, overflow, responsive breakpoints, theming',
    triggers: FRONTEND,
    prompt: lines(
      'You are frontend/visual-regression-checker. You cannot render the UI, so judge from the code what is likely to break visually:',
      '- global CSS or unscoped selectors that leak into other components; !important overrides; z-index escalation;',
      '- fixed widths/heights that overflow on small screens or with long (translated) text; missing text truncation or wrapping;',
      '- removed or renamed class names, props or theme tokens still used elsewhere in the files shown;',
      '- conditional rendering that leaves layout shifts (content that pops in without reserved space).',
      'Report only what you can point at in the files; a likely broken layout for all users is critical, for some viewports medium. observable_test_conditions should be checks a component or snapshot test can make (rendered classes, styles, DOM structure).',
    ),
  },
  {
    id: 'specialized/observability-checker',
    evidence: 'llm',
    description: 'Deploy and infra code without the logs, metrics, traces or health checks needed to run it',
    triggers: DEPLOY,
    prompt: lines(
      'You are specialized/observability-checker. Review deployment and service code for what on-call people would miss at 3 a.m.:',
      '- failures that are not logged, or logged without the identifiers needed to find the request (ids, tenant, operation);',
      '- secrets, tokens or personal data written to logs;',
      '- missing health/readiness checks, or checks that always succeed; no metric for queue depth, error rate or latency of a new dependency;',
      '- trace context not propagated across a new network or queue hop; log levels that hide errors (error logged as debug).',
      'Secrets or personal data in logs are critical. observable_test_conditions should name the log record, metric or endpoint a test can inspect.',
    ),
  },
  {
    id: 'specialized/error-handler-checker',
    evidence: 'llm',
    description: 'Swallowed errors, lost causes, wrong retry behaviour and unhandled rejections',
    triggers: DEPLOY,
    prompt: lines(
      'You are specialized/error-handler-checker. Review how the code handles failure:',
      '- empty catch blocks, catch-and-continue that hides a failure, errors converted to null/false without the caller being able to tell;',
      '- thrown values that are not Errors, lost `cause`, error messages without the context needed to act;',
      '- promises not awaited or without rejection handling; async callbacks passed where a sync one is expected;',
      '- retries of non-idempotent operations, retries without a bound or backoff, non-retryable errors retried;',
      '- cleanup (files, locks, connections, transactions) skipped on the error path.',
      'Errors that are silently lost or that leave state inconsistent are critical. observable_test_conditions should describe the failing dependency to simulate and the observable outcome (the error the caller gets, the state after).',
    ),
  },
  {
    id: 'specialized/resilience-checker',
    evidence: 'llm',
    description: 'Timeouts, retries, idempotency and partial-failure behaviour around external calls',
    triggers: BILLING,
    prompt: lines(
      'You are specialized/resilience-checker. Review calls to other systems (HTTP APIs, payment providers, queues, databases):',
      "- network calls without a timeout; timeouts longer than the caller's own deadline;",
      '- retries without idempotency keys on operations that charge, send or create; retry storms without jitter;',
      '- partial failure: a payment taken but the order not recorded (or the reverse); no compensation or reconciliation path;',
      '- webhooks processed twice, out of order, or without signature verification; missing dead-letter handling.',
      'Anything that can charge twice, lose a payment or a message is critical. observable_test_conditions should describe the simulated failure (timeout, 500, duplicate delivery) and the expected observable state.',
    ),
  },
  {
    id: 'saas/stripe-subscriptions',
    evidence: 'llm',
    description: 'Stripe subscription and billing logic: webhooks, idempotency, proration, entitlement sync',
    triggers: BILLING,
    prompt: lines(
      'You are saas/stripe-subscriptions. Review billing code that uses Stripe (or a similar provider):',
      '- webhook handlers that do not verify the signature (Stripe-Signature with the endpoint secret) or parse the body before verifying the raw payload;',
      '- events handled without idempotency (event.id stored) or assuming delivery order; state taken from the event payload instead of re-fetching the object when it matters;',
      '- requests that create charges, subscriptions or refunds without an Idempotency-Key;',
      '- entitlements not revoked on customer.subscription.deleted / invoice.payment_failed, or granted before payment succeeds; trial and proration edge cases;',
      '- amounts as floating-point numbers instead of integer minor units; currency mismatches; secret keys in client code.',
      'Unverified webhooks, double charges and wrong entitlements are critical. observable_test_conditions should be webhook payloads or API calls a test can replay and the expected stored state.',
    ),
  },
  {
    id: 'saas/multi-tenancy-row-level',
    evidence: 'llm',
    description: 'Tenant isolation in queries, migrations and row-level security',
    triggers: DB,
    prompt: lines(
      'You are saas/multi-tenancy-row-level. Review data access and schema changes for tenant isolation:',
      '- queries on tenant-owned tables without a tenant filter, or with the tenant id taken from user input instead of the authenticated session;',
      '- new tables holding tenant data without a tenant_id column, index or row-level security policy; policies that are permissive by default;',
      '- migrations that disable RLS, use a role that bypasses it, or backfill across tenants;',
      '- caches, file paths or queues keyed without the tenant; unique constraints that should include the tenant.',
      "Any path by which one tenant can read or change another tenant's data is critical. observable_test_conditions should describe two tenants, the call made as one, and what must not be visible or changed for the other.",
    ),
  },
  {
    id: 'ai-quality/hallucination-detector',
    evidence: 'llm',
    description: 'Code that calls APIs, options or modules that do not exist, or uses them with invented semantics',
    triggers: AI_ML,
    prompt: lines(
      'You are ai-quality/hallucination-detector. Much of this code may have been written by a model. Look for things that look plausible but are not real:',
      '- imports of modules, functions, methods or options that do not exist in the named library (judge by what you reliably know of the library; say how sure you are in current_behaviour);',
      '- calls whose arguments or return values are used with invented semantics (wrong units, wrong order, assumed fields);',
      '- references to files, environment variables, config keys or functions that appear nowhere in the files shown and are not standard;',
      '- comments or docs that describe behaviour the code does not have.',
      'Report only what you are confident of. A call that will throw or return wrong data is critical. observable_test_conditions should be the call a test can make and the result that shows the API is used correctly.',
    ),
  },
  {
    id: 'ai-quality/ai-code-quality-reviewer',
    evidence: 'llm',
    description: 'Typical weaknesses of generated code in ML/AI features: prompt handling, output parsing, evaluation',
    triggers: AI_ML,
    prompt: lines(
      'You are ai-quality/ai-code-quality-reviewer. Review code that builds on models (LLM calls, ML pipelines):',
      '- model output used without validation (parsing free text with regexes, trusting JSON shape, no schema);',
      '- prompts built by concatenating untrusted input without delimiting it (prompt injection), or secrets and personal data sent to a model;',
      '- no timeout, retry bound or cost/budget limit on model calls; no handling of refusals or truncated output;',
      '- training/evaluation leakage, non-deterministic results without seeds where reproducibility is claimed, metrics computed on the wrong split;',
      '- duplicated boilerplate, dead code and over-broad try/except typical of generated code.',
      'Injection paths and unvalidated output that drives actions are critical. observable_test_conditions should give the input (including hostile input) and the observable result.',
    ),
  },
  {
    id: 'compliance/audit-log-checker',
    evidence: 'llm',
    description: 'Audit trails for access to and changes of health and personal data (HIPAA 164.312(b))',
    triggers: HEALTH,
    prompt: lines(
      'You are compliance/audit-log-checker. Review code that reads or changes protected health information or other regulated records:',
      '- reads, exports, updates and deletes of protected records that write no audit entry (who, what record, what action, when, from where);',
      '- audit entries that can be changed or deleted by the application, or are written outside the transaction of the change they record;',
      '- audit entries that contain the protected data itself instead of references;',
      '- access paths (bulk export, admin tools, background jobs) that bypass the audited service layer.',
      'Missing or tamperable audit trails for protected data are critical. observable_test_conditions should name the action a test performs and the audit record that must exist afterwards.',
    ),
  },
  {
    id: 'compliance/gdpr-compliance-checker',
    evidence: 'llm',
    description: 'GDPR duties in code handling personal data: minimisation, retention, erasure, export, consent',
    triggers: [...HEALTH, ...PII],
    prompt: lines(
      'You are compliance/gdpr-compliance-checker. Review code that collects, stores or processes personal data:',
      '- personal data collected or stored without a visible purpose, or more fields than the feature uses (minimisation);',
      '- no retention limit or deletion path; erasure requests that leave copies (backups excluded) in other tables, caches, search indexes or logs;',
      '- data-subject export missing new personal fields; processing that requires consent performed without checking it;',
      '- personal data sent to third parties or other regions without that being evident in the code;',
      '- personal data in logs, error messages, URLs or analytics events.',
      'Personal data that cannot be erased or that leaks to logs or third parties is critical. observable_test_conditions should describe the data-subject request or action and the observable state afterwards.',
    ),
  },
];

/** The spec of one prompt critic by id, or null. */
export function promptCriticSpec(id: string): PromptCriticSpec | null {
  return PROMPT_CRITIC_SPECS.find((spec) => spec.id === id) ?? null;
}
