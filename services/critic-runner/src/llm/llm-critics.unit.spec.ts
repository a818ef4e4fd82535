import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { CriticCatalogue } from '@rloop/domain';
import { PROMPT_CRITIC_SPECS, parseModelCatalogue } from '@rloop/llm';
import type { AnthropicSettings, CriticRunnerConfig } from '../config.js';
import { hostedCritics } from '../hosted-critics.js';
import { LlmCriticHost } from './llm-critics.js';

const configDir = join(import.meta.dirname, '../../../../config');
const catalogue = CriticCatalogue.parse(parse(readFileSync(join(configDir, 'critics.yaml'), 'utf8')));
const models = parseModelCatalogue(readFileSync(join(configDir, 'models.yaml'), 'utf8'));
const settings: AnthropicSettings = {
  apiKey: 'sk-ant-api03-unit-0123456789abcdefghij',
  models,
  model: 'claude-sonnet-5-5',
  budgets: models.budgets,
};

function host(critics: CriticCatalogue = catalogue): { host: LlmCriticHost; warnings: string[] } {
  const warnings: string[] = [];
  return { host: new LlmCriticHost(settings, critics, { warn: (m) => warnings.push(m) }), warnings };
}

describe('the LLM critics the runner hosts', () => {
  it('given the shipped catalogue, then the code reviewer and every prompt critic it names are hosted, without warnings', () => {
    const { host: llm, warnings } = host();
    const named = Object.entries(catalogue.critics)
      .filter(([, e]) => e.requires === 'anthropic')
      .map(([id]) => id);
    expect([...llm.ids].sort()).toEqual(named.sort());
    expect(llm.ids.has('quality/code-reviewer')).toBe(true);
    expect(PROMPT_CRITIC_SPECS.every((s) => llm.ids.has(s.id))).toBe(true);
    expect(warnings).toEqual([]);
  });

  it('given an LLM critic the runner has no prompt for, then it is left to other hosts and the start says so', () => {
    const custom = CriticCatalogue.parse({
      ...parse(readFileSync(join(configDir, 'critics.yaml'), 'utf8')),
      critics: { ...catalogue.critics, 'team/llm-style': { evidence: 'llm', requires: 'anthropic' } },
    });
    const { host: llm, warnings } = host(custom);
    expect(llm.ids.has('team/llm-style')).toBe(false);
    expect(warnings).toEqual([expect.stringContaining('team/llm-style')]);
  });

  it('binds each round to its own definitions, and lists the hosted critics beside the built-in ones', () => {
    const { host: llm } = host();
    const hooks = { subject: { round: 1 }, budget: null, onUsage: () => undefined, onReport: () => undefined };
    const a = llm.forRound(hooks);
    const b = llm.forRound({ ...hooks, subject: { round: 2 } });
    expect([...a.keys()].sort()).toEqual([...llm.ids].sort());
    expect(a.get('quality/code-reviewer')).not.toBe(b.get('quality/code-reviewer'));
    expect(a.get('quality/code-reviewer')?.notConfiguredReason()).toBeNull();
    // hostedCritics reads only the catalogue; the rest of the config is the environment's.
    const config = { catalogue, anthropic: settings } as unknown as CriticRunnerConfig;
    const ids = hostedCritics(config, llm).map((c) => c.id);
    expect(ids).toEqual(
      expect.arrayContaining(['toolchain/compiler-linter', 'security/sast-scanner', 'quality/code-reviewer']),
    );
    expect(hostedCritics(config, null).map((c) => c.id)).not.toContain('quality/code-reviewer');
  });
});
