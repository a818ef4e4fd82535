import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type z } from 'zod';
import { DeadLetter, EVENT_CATALOGUE, EVENT_TYPES } from './events.js';
import { Finding } from './finding.js';
import { CriticCoverage, Letter } from './letter.js';
import { parseEvent, toIssues } from './parse.js';
import { PlanSpec, SubmitReply } from './plan.js';
import { isCriticBound } from './subjects.js';

// docs/contracts.md is where people copy examples from, so every JSON example in it must pass
// its contract. Each ```json block is preceded by `<!-- contract: <name> -->`.
const DOC = readFileSync(fileURLToPath(new URL('../../../docs/contracts.md', import.meta.url)), 'utf8');

const CONTRACTS: Readonly<Record<string, z.ZodType>> = {
  Finding,
  Letter,
  PlanSpec,
  SubmitReply,
  DeadLetter,
  CriticCoverage,
};

interface Example {
  readonly contract: string | undefined;
  readonly json: string;
  readonly line: number;
}

function jsonExamples(markdown: string): Example[] {
  const examples: Example[] = [];
  for (const match of markdown.matchAll(/(?:<!-- contract: (\S+) -->\n)?```json\n([\s\S]*?)```/g)) {
    const json = match[2] ?? '';
    examples.push({ contract: match[1], json, line: markdown.slice(0, match.index).split('\n').length });
  }
  return examples;
}

function problemsOf(example: Example): string[] {
  const value: unknown = JSON.parse(example.json);
  if (example.contract === 'event') {
    const result = parseEvent(value);
    return result.ok ? [] : result.error.issues.map((i) => `${i.path}: ${i.message}`);
  }
  const schema = example.contract === undefined ? undefined : CONTRACTS[example.contract];
  if (schema === undefined) return [`no contract named ${String(example.contract)}`];
  const result = schema.safeParse(value);
  return result.success ? [] : toIssues(result.error).map((i) => `${i.path}: ${i.message}`);
}

describe('docs/contracts.md', () => {
  const examples = jsonExamples(DOC);

  it('has examples, each naming its contract', () => {
    expect(examples.length).toBeGreaterThanOrEqual(6);
    expect(examples.filter((e) => e.contract === undefined).map((e) => `line ${e.line}`)).toEqual([]);
  });

  it('shows only examples that pass their contracts', () => {
    const failures = examples.flatMap((example) =>
      problemsOf(example).map((problem) => `line ${example.line} (${String(example.contract)}): ${problem}`),
    );
    expect(failures).toEqual([]);
  });

  it('lists every event of the catalogue with its subject', () => {
    for (const type of EVENT_TYPES) {
      const { channel, token } = EVENT_CATALOGUE[type];
      const key = isCriticBound(type) ? '<plan>\\.<critic>' : '<(plan|critic)>';
      expect(DOC).toMatch(
        new RegExp(`\\| \`${type}\` \\|[^\\n]*\\| \`rloop\\.v1\\.${channel}\\.${token}\\.${key}\` \\|`),
      );
    }
  });

  it('describes every field of a finding', () => {
    for (const field of Object.keys(Finding.shape)) expect(DOC).toContain(`\`${field}\``);
  });
});
