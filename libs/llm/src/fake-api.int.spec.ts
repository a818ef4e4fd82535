import { afterEach, describe, expect, it } from '@jest/globals';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { type FakeAnthropic, fakeTokens, fakeTurn, startFakeAnthropic } from '@rloop/testing';
import { LlmRequestInvalidError } from './index.js';
import { clientFor } from './__fixtures__/helpers.js';

// The fake Messages API is what every LLM test here stands on, so its prompt-cache accounting and
// its request validation are checked through the real SDK.

const SYSTEM = 'S'.repeat(4000); // 1000 tokens
const FILES = 'F'.repeat(8000); // 2000 tokens
const eph = { type: 'ephemeral' as const };

describe('the fake Messages API: prompt-cache usage like the real API', () => {
  let fake: FakeAnthropic | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  it('writes a prefix up to a breakpoint, then reads it; a longer conversation reads the old prefix by lookback', async () => {
    let now = 0;
    fake = await startFakeAnthropic({ script: () => fakeTurn.text('ok'), now: () => now });
    const client = clientFor(fake.url);
    const first: MessageParam[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: FILES, cache_control: eph },
          { type: 'text', text: 'question one' },
        ],
      },
    ];
    const request = (messages: MessageParam[]) => ({
      system: [{ type: 'text' as const, text: SYSTEM, cache_control: eph }],
      max_tokens: 100,
      messages,
    });

    const a = await client.createMessage(request(first));
    expect(a.usage).toMatchObject({
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 1000 + 2000 + 3,
      input_tokens: fakeTokens('question one'),
    });
    const b = await client.createMessage(request(first));
    expect(b.usage).toMatchObject({ cache_read_input_tokens: 3003, cache_creation_input_tokens: 0, input_tokens: 3 });

    // A rolling breakpoint moved to the end of a longer conversation: the earlier prefix is found by lookback.
    const longer: MessageParam[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: FILES, cache_control: eph },
          { type: 'text', text: 'question one' },
        ],
      },
      { role: 'assistant', content: 'answer' },
      { role: 'user', content: [{ type: 'text', text: 'question two', cache_control: eph }] },
    ];
    const c = await client.createMessage(request(longer));
    expect(c.usage.cache_read_input_tokens).toBe(3003);
    expect(c.usage.cache_creation_input_tokens).toBe(
      fakeTokens('question one') + fakeTokens('answer') + 3 + fakeTokens('question two') + 3,
    );
    expect(c.usage.input_tokens).toBe(0);

    // Entries expire after their TTL (5 minutes by default), refreshed on each read.
    now += 5 * 60_000 + 1;
    const d = await client.createMessage(request(first));
    expect(d.usage).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 3003 });
    expect(await client.countTokens({ system: [{ type: 'text', text: SYSTEM }], messages: first })).toBe(
      3003 + fakeTokens('question one'),
    );
  });

  it('does not cache a prefix below the minimum length', async () => {
    fake = await startFakeAnthropic({ script: () => fakeTurn.text('ok'), minCacheableTokens: 4096 });
    const client = clientFor(fake.url);
    const messages: MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: FILES, cache_control: eph }] }];
    await client.createMessage({ system: SYSTEM, max_tokens: 10, messages });
    const again = await client.createMessage({ system: SYSTEM, max_tokens: 10, messages });
    expect(again.usage).toMatchObject({
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
      input_tokens: 3003,
    });
  });

  it('rejects the request shapes the real API rejects', async () => {
    fake = await startFakeAnthropic({
      script: () => fakeTurn.text('ok'),
      rejectForcedToolChoice: ['claude-sonnet-5-5'],
    });
    const client = clientFor(fake.url, [], { maxRetries: 0 });
    const tool = { name: 'report', input_schema: { type: 'object' as const, properties: {} } };
    const bad: { why: string; send: () => Promise<unknown> }[] = [
      {
        why: 'roles must alternate',
        send: () =>
          client.createMessage({
            max_tokens: 10,
            messages: [
              { role: 'user', content: 'a' },
              { role: 'user', content: 'b' },
            ],
          }),
      },
      {
        why: 'unexpected tool_use_id',
        send: () =>
          client.createMessage({
            max_tokens: 10,
            messages: [
              { role: 'user', content: 'a' },
              { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'report', input: {} }] },
              { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: 'x' }] },
            ],
          }),
      },
      {
        why: 'without tool_result blocks',
        send: () =>
          client.createMessage({
            max_tokens: 10,
            messages: [
              { role: 'user', content: 'a' },
              { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'report', input: {} }] },
              { role: 'user', content: 'no results' },
            ],
          }),
      },
      {
        why: 'A maximum of 4 blocks with cache_control',
        send: () =>
          client.createMessage({
            max_tokens: 10,
            messages: [
              {
                role: 'user',
                content: [1, 2, 3, 4, 5].map((i) => ({ type: 'text' as const, text: `b${i}`, cache_control: eph })),
              },
            ],
          }),
      },
      {
        why: 'forced tool use is not supported',
        send: () =>
          client.createMessage({
            max_tokens: 10,
            tools: [tool],
            tool_choice: { type: 'tool', name: 'report' },
            messages: [{ role: 'user', content: 'a' }],
          }),
      },
      {
        why: 'invalid signature in thinking block',
        send: () =>
          client.createMessage({
            max_tokens: 10,
            messages: [
              { role: 'user', content: 'a' },
              {
                role: 'assistant',
                content: [
                  { type: 'thinking', thinking: '', signature: 'forged' },
                  { type: 'text', text: 'b' },
                ],
              },
              { role: 'user', content: 'c' },
            ],
          }),
      },
      {
        why: 'max_tokens',
        send: () => client.createMessage({ max_tokens: 0, messages: [{ role: 'user', content: 'a' }] }),
      },
    ];
    for (const { why, send } of bad) {
      const error = await send().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LlmRequestInvalidError);
      expect((error as Error).message).toContain(why);
    }
    expect(fake.protocolErrors).toHaveLength(bad.length);
    expect(fake.messageCalls()).toHaveLength(0);
  });
});
