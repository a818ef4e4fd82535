import { describe, expect, it } from '@jest/globals';
import { DEFAULT_KNOWN_CONFLICTS } from '@rloop/domain';
import { CRITIC_SYSTEM_PROMPT } from './prompts.js';

describe("the LLM critics' prompt and the known-conflicts table", () => {
  it('given the shipped known_conflicts table, when an entry names an llm/ finding type, then the critics are told to report that type (the table matches what they can report)', () => {
    const llmTypes = [...new Set(DEFAULT_KNOWN_CONFLICTS.flat().filter((type) => type.startsWith('llm/')))];
    expect(llmTypes.length).toBeGreaterThan(0);
    for (const type of llmTypes) expect(CRITIC_SYSTEM_PROMPT).toContain(`"${type}"`);
  });
});
