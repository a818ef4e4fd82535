import { afterEach, describe, expect, it } from '@jest/globals';
import { type FakeAnthropic, fakeTurn, startFakeAnthropic } from '@rloop/testing';
import {
  createAnthropicClient,
  LlmAuthError,
  LlmOverloadedError,
  LlmRateLimitedError,
  LlmRequestInvalidError,
  LlmSpendLimitError,
  redactSecrets,
} from './index.js';
import { clientFor, TEST_API_KEY } from './__fixtures__/helpers.js';

const hello = { max_tokens: 64, messages: [{ role: 'user' as const, content: 'hello' }] };

describe('createAnthropicClient against the fake Messages API', () => {
  let fake: FakeAnthropic | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  it('sends the key and model, and returns the reply', async () => {
    fake = await startFakeAnthropic({ script: [fakeTurn.text('hi there')] });
    const message = await clientFor(fake.url).createMessage(hello);
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'hi there' })]);
    expect(fake.requests[0]?.apiKey).toBe(TEST_API_KEY);
    expect((fake.requests[0]?.body as { model: string }).model).toBe('claude-sonnet-5-5');
    expect(fake.protocolErrors).toEqual([]);
  });

  it('retries a 429 and then succeeds, waiting with backoff when there is no retry-after', async () => {
    fake = await startFakeAnthropic({ script: [fakeTurn.rateLimited(), fakeTurn.text('ok')] });
    const waits: number[] = [];
    const message = await clientFor(fake.url, waits).createMessage(hello);
    expect(message.stop_reason).toBe('end_turn');
    expect(fake.requests.map((r) => r.status)).toEqual([429, 200]);
    expect(waits).toEqual([500]);
  });

  it('honours retry-after on a 529 (overloaded)', async () => {
    fake = await startFakeAnthropic({ script: [fakeTurn.overloaded(3), fakeTurn.text('ok')] });
    const waits: number[] = [];
    await clientFor(fake.url, waits).createMessage(hello);
    expect(waits).toEqual([3000]);
    expect(fake.requests.map((r) => r.status)).toEqual([529, 200]);
  });

  it('gives up after maxRetries with a retryable typed error', async () => {
    fake = await startFakeAnthropic({
      script: [fakeTurn.overloaded(1), fakeTurn.overloaded(1), fakeTurn.overloaded(1)],
    });
    const waits: number[] = [];
    const error = await clientFor(fake.url, waits, { maxRetries: 2 })
      .createMessage(hello)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmOverloadedError);
    expect(error).toMatchObject({ code: 'LLM.OVERLOADED', retryable: true, attempts: 3, retryAfterMs: 1000 });
    expect(fake.requests).toHaveLength(3);
    expect(waits).toEqual([1000, 1000]);
  });

  it('does not hold the call for a retry-after beyond the bound: it ends retryable, with the wait', async () => {
    fake = await startFakeAnthropic({ script: [fakeTurn.rateLimited(600)] });
    const waits: number[] = [];
    const error = await clientFor(fake.url, waits, { maxRetryAfterMs: 60_000 })
      .createMessage(hello)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmRateLimitedError);
    expect(error).toMatchObject({ code: 'LLM.RATE_LIMITED', retryable: true, retryAfterMs: 600_000, attempts: 1 });
    expect(waits).toEqual([]);
    expect(fake.requests).toHaveLength(1);
  });

  it('maps a 400 to a non-retryable LlmRequestInvalidError and does not retry it', async () => {
    fake = await startFakeAnthropic({ script: [] });
    const error = await clientFor(fake.url)
      .createMessage({ max_tokens: 64, messages: [{ role: 'assistant', content: 'I speak first' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmRequestInvalidError);
    expect(error).toMatchObject({ retryable: false });
    expect(fake.requests).toHaveLength(1);
  });

  it('given a key the API does not know, when called, then it fails at once (no retry) saying what to do', async () => {
    fake = await startFakeAnthropic({
      script: [fakeTurn.text('never')],
      apiKeys: ['sk-ant-api03-the-only-key-the-fake-knows-000000'],
    });
    const waits: number[] = [];
    const error = await clientFor(fake.url, waits, { maxRetries: 3 })
      .createMessage(hello)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmAuthError);
    expect(error).toMatchObject({ code: 'LLM.AUTH', retryable: false });
    expect((error as Error).message).toMatch(
      /401 .*invalid x-api-key.* — the Anthropic API refused the key: set ANTHROPIC_API_KEY to a valid key \(it may be mistyped, revoked or expired\)/,
    );
    expect(fake.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('given a key without permission (403), when called, then it fails at once naming where access is set', async () => {
    fake = await startFakeAnthropic({ script: [fakeTurn.permission()] });
    const error = await clientFor(fake.url, [], { maxRetries: 3 })
      .createMessage(hello)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmAuthError);
    expect((error as Error).message).toMatch(
      /the key may not use this model or resource: check the workspace's access in the Claude Console/,
    );
    expect(fake.requests).toHaveLength(1);
  });

  it.each([
    [
      'the tier’s monthly spend cap (a 429 whose details.error_code says so, without retry-after)',
      fakeTurn.spendLimit(),
      /monthly spend limit: move to a higher tier in the Claude Console, or wait until it resets/,
    ],
    [
      'a workspace spend limit (a 400)',
      fakeTurn.workspaceSpendLimit(),
      /a spend limit set on the organization or workspace is reached: raise it in the Claude Console/,
    ],
    [
      'a billing problem (a 402)',
      fakeTurn.billing(),
      /the account has a billing problem: check the payment details or the credit balance/,
    ],
  ])(
    'given %s, when called, then it fails at once, not retried like a rate limit, saying what to do',
    async (_what, turn, remedy) => {
      fake = await startFakeAnthropic({ script: [turn, fakeTurn.text('never')] });
      const waits: number[] = [];
      const error = await clientFor(fake.url, waits, { maxRetries: 3 })
        .createMessage(hello)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LlmSpendLimitError);
      expect(error).toMatchObject({ code: 'LLM.SPEND_LIMIT', retryable: false });
      expect((error as Error).message).toMatch(remedy);
      expect(fake.requests).toHaveLength(1);
      expect(waits).toEqual([]);
    },
  );

  it('given a rate limit with retry-after, when called, then it waits what the server said and retries', async () => {
    fake = await startFakeAnthropic({ script: [fakeTurn.rateLimited(7), fakeTurn.text('ok')] });
    const waits: number[] = [];
    await clientFor(fake.url, waits).createMessage(hello);
    expect(waits).toEqual([7000]);
    expect(fake.requests.map((r) => r.status)).toEqual([429, 200]);
  });

  it('given onResponseStart, when called, then the request is streamed, the callback fires once when the response starts, and the message is the same', async () => {
    fake = await startFakeAnthropic({
      script: [fakeTurn.toolUse('report', { findings: [{ a: 1 }] }, { text: 'one finding', thinking: true })],
      timing: { timeToFirstTokenMs: 20, outputTokensPerSecond: 200 },
    });
    const starts: number[] = [];
    const message = await clientFor(fake.url).createMessage(hello, { onResponseStart: () => starts.push(Date.now()) });
    expect(starts).toHaveLength(1);
    expect((fake.requests[0]?.body as { stream?: boolean }).stream).toBe(true);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
    expect(message.content[2]).toMatchObject({ type: 'tool_use', name: 'report', input: { findings: [{ a: 1 }] } });
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBe(fake.messageCalls()[0]?.usage.output_tokens);
  });

  it('counts tokens through the count_tokens endpoint', async () => {
    fake = await startFakeAnthropic({ script: [] });
    const tokens = await clientFor(fake.url).countTokens({ messages: [{ role: 'user', content: 'x'.repeat(400) }] });
    expect(tokens).toBe(100 + 3);
  });

  it('never lets the key into an error message, its cause or a log line', async () => {
    const key = 'sk-ant-api03-SECRET-echoed-by-a-proxy-0123456789';
    // A misbehaving proxy echoes the key in its error body.
    fake = await startFakeAnthropic({
      script: [{ kind: 'error', status: 401, errorType: 'authentication_error', message: `invalid x-api-key: ${key}` }],
    });
    const lines: string[] = [];
    const client = createAnthropicClient({
      apiKey: key,
      baseURL: fake.url,
      model: 'claude-sonnet-5-5',
      maxRetries: 1,
      timeoutMs: 5000,
      logger: { warn: (l) => lines.push(l), info: (l) => lines.push(l) },
    });
    const error = await client.createMessage(hello).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmAuthError);
    const seen = JSON.stringify({
      message: (error as Error).message,
      cause: String((error as Error).cause),
      stack: (error as Error).stack,
      lines,
      client,
    });
    expect(seen).not.toContain(key);
    expect(seen).not.toContain('SECRET-echoed');
    expect((error as Error).message).toContain('[REDACTED]');
  });

  it('redacts keys on retry log lines too', async () => {
    fake = await startFakeAnthropic({
      script: [fakeTurn.serverError(500, `upstream said: Bearer ${TEST_API_KEY}`), fakeTurn.text('ok')],
    });
    const lines: string[] = [];
    const client = createAnthropicClient({
      apiKey: TEST_API_KEY,
      baseURL: fake.url,
      model: 'claude-sonnet-5-5',
      maxRetries: 1,
      timeoutMs: 5000,
      sleep: () => Promise.resolve(),
      logger: { warn: (l) => lines.push(l) },
    });
    await client.createMessage(hello);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('\n')).not.toContain(TEST_API_KEY);
    expect(redactSecrets(lines.join('\n'))).toBe(lines.join('\n'));
  });
});
