import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Module } from '@nestjs/common';
import { NotFoundError, TransientError } from '@rloop/contracts';
import { firstValueFrom } from 'rxjs';
import { type Scenario, openScenario } from './__fixtures__/harness.js';
import {
  BUS_REQUESTER,
  BusRequestError,
  JetStreamClient,
  OnRequest,
  RemoteError,
  RemoteTransientError,
  type RequestContext,
  type Requester,
  decodeJsonBody,
} from './index.js';

@Controller()
class JournalQueries {
  @OnRequest('journal.echo')
  echo(body: Uint8Array, context: RequestContext): unknown {
    return { subject: context.subject, body: decodeJsonBody(body, 1_024) };
  }

  @OnRequest('journal.letter')
  letter(body: Uint8Array): Promise<unknown> {
    const { id } = decodeJsonBody(body, 1_024) as { id: string };
    return Promise.reject(new NotFoundError('JOURNAL.LETTER_NOT_FOUND', `no letter ${id}`));
  }

  @OnRequest('journal.status')
  status(): Promise<unknown> {
    return Promise.reject(new TransientError('JOURNAL.STORE_UNAVAILABLE', 'cannot reach PostgreSQL'));
  }

  @OnRequest('journal.crash')
  crash(): never {
    throw new TypeError('handler bug');
  }
}

@Module({ controllers: [JournalQueries] })
class JournalModule {}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => null,
    (e: unknown) => e,
  );
}

describe('request/reply through @OnRequest', () => {
  let s: Scenario;
  let requester: Requester;
  let client: JetStreamClient;

  beforeAll(async () => {
    s = await openScenario();
    const service = await s.start('journal', JournalModule);
    requester = service.app.get<Requester>(BUS_REQUESTER);
    client = service.app.get(JetStreamClient);
  });

  afterAll(async () => {
    await s.dispose();
  });

  it('answers with the handler result as JSON', async () => {
    await expect(requester.request('journal.echo', { slug: 'plan-a' })).resolves.toEqual({
      subject: `${s.namespace}.v1.journal.echo`,
      body: { slug: 'plan-a' },
    });
  });

  it('answers through the Nest idiom send(operation, body)', async () => {
    await expect(firstValueFrom(client.send('journal.echo', [1, 2]))).resolves.toEqual({
      subject: `${s.namespace}.v1.journal.echo`,
      body: [1, 2],
    });
  });

  it('turns a thrown RloopError into an error reply the caller gets as RemoteError', async () => {
    const error = await failure(requester.request('journal.letter', { id: 'l-1' }));

    expect(error).toBeInstanceOf(RemoteError);
    expect(error).toMatchObject({ code: 'JOURNAL.LETTER_NOT_FOUND', message: 'no letter l-1', retryable: false });
  });

  it('tells the caller when the responder failed on a dependency that is down, so the caller waits it out too', async () => {
    const down = await failure(requester.request('journal.status', {}));
    const missing = await failure(requester.request('journal.letter', { id: 'l-2' }));

    expect(down).toBeInstanceOf(RemoteTransientError);
    expect(down).toBeInstanceOf(TransientError);
    expect(down).toMatchObject({
      code: 'JOURNAL.STORE_UNAVAILABLE',
      message: 'cannot reach PostgreSQL',
      retryable: true,
    });
    expect(missing).toBeInstanceOf(RemoteError);
    expect(missing).not.toBeInstanceOf(TransientError);
  });

  it('hands the raw bytes to the handler so it can refuse a body that is not UTF-8 or too large', async () => {
    const notUtf8 = await failure(requester.request('journal.echo', new Uint8Array([0xc3, 0x28])));
    const tooLarge = await failure(requester.request('journal.echo', { padding: 'x'.repeat(2_000) }));

    expect(notUtf8).toMatchObject({ code: 'BUS.NOT_UTF8', issues: [{ path: '(root)', message: 'not UTF-8' }] });
    expect(tooLarge).toMatchObject({ code: 'BUS.BODY_TOO_LARGE' });
  });

  it('replies to a crashing handler with BUS.HANDLER_CRASHED and logs the crash', async () => {
    const error = await failure(requester.request('journal.crash', {}));

    expect(error).toMatchObject({ code: 'BUS.HANDLER_CRASHED', message: 'handler bug', retryable: true });
    expect(s.log.matching(/request handler for .*journal\.crash crashed: handler bug/, 'error')).toHaveLength(1);
  });

  it('fails with typed errors when nobody answers or the answer is late', async () => {
    const nobody = await failure(requester.request('journal.nobody-here', {}));
    const silent = s.nats.connection.subscribe(s.nats.subjects.journalQuery('silent'));
    const late = await failure(requester.request('journal.silent', {}, { timeoutMs: 200 }));
    silent.unsubscribe();

    expect(nobody).toBeInstanceOf(BusRequestError);
    expect(nobody).toMatchObject({ code: 'BUS.NO_RESPONDERS', retryable: true });
    expect(late).toMatchObject({ code: 'BUS.REQUEST_TIMEOUT', retryable: true });
  });
});
