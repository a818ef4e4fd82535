import { describe, expect, it } from '@jest/globals';
import { ValidationError } from '@rloop/contracts';
import { describeDatabaseUrl, translateError } from './connection.js';
import { StoreUnavailableError, TransactionConflictError } from './errors.js';

describe('describeDatabaseUrl', () => {
  it('names host, port, database and user, never the password', () => {
    const target = describeDatabaseUrl('postgres://journal:p%40ss@db.internal:6543/rloop');
    expect(target).toEqual({ host: 'db.internal', port: 6543, database: 'rloop', user: 'journal' });
    expect(JSON.stringify(target)).not.toContain('p@ss');
    expect(describeDatabaseUrl('postgresql://db/x')).toMatchObject({ port: 5432, database: 'x' });
  });

  it('refuses a string that is not a postgres URL without echoing it', () => {
    for (const bad of ['user:secret at host', 'mysql://u:secret@h/db']) {
      let caught: unknown;
      try {
        describeDatabaseUrl(bad);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ValidationError);
      expect((caught as Error).message).not.toContain('secret');
    }
  });
});

describe('translateError', () => {
  const target = { host: 'h', port: 1, database: 'd', user: 'u' };

  it('turns unreachable servers into StoreUnavailableError and scrubs the password', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED h:1 (pw=hunter2)'), { code: 'ECONNREFUSED' });
    const translated = translateError(refused, target, 'hunter2');
    expect(translated).toBeInstanceOf(StoreUnavailableError);
    expect((translated as Error).message).not.toContain('hunter2');
    expect((translated as StoreUnavailableError).cause).toBe(refused);
    expect(translateError(Object.assign(new Error('no db'), { code: '3D000' }), target, '')).toBeInstanceOf(
      StoreUnavailableError,
    );
    expect(translateError(new Error('Connection terminated unexpectedly'), target, '')).toBeInstanceOf(
      StoreUnavailableError,
    );
  });

  it('turns races into a retryable TransactionConflictError, and leaves other errors alone', () => {
    expect(translateError(Object.assign(new Error('deadlock'), { code: '40P01' }), target, '')).toBeInstanceOf(
      TransactionConflictError,
    );
    expect(
      translateError(Object.assign(new Error('dup'), { code: '23505', constraint: 'events_event_id_key' }), target, ''),
    ).toBeInstanceOf(TransactionConflictError);
    const other = Object.assign(new Error('dup'), { code: '23505', constraint: 'my_table_pkey' });
    expect(translateError(other, target, '')).toBe(other);
    expect(translateError(new Error('syntax'), target, '')).toBeInstanceOf(Error);
  });
});
