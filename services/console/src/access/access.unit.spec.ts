import { describe, expect, it } from '@jest/globals';
import { accessOf } from './access.js';

const TOKEN = 'a-long-ops-token-0123456789';

describe('who may act in the console', () => {
  it('lets the holder of the ops token act, under the name they give', () => {
    expect(accessOf({ authorization: `Bearer ${TOKEN}` }, { token: TOKEN, trustedHeader: null }, 'Ada')).toEqual({
      canAct: true,
      by: 'Ada (console)',
      via: 'token',
    });
    expect(accessOf({ authorization: `bearer ${TOKEN}` }, { token: TOKEN, trustedHeader: null })).toEqual({
      canAct: true,
      by: 'ops token (console)',
      via: 'token',
    });
  });

  it('refuses a wrong or missing token: read-only', () => {
    expect(accessOf({ authorization: `Bearer ${TOKEN}x` }, { token: TOKEN, trustedHeader: null })).toEqual({
      canAct: false,
      reason: 'the ops token is wrong',
    });
    expect(accessOf({}, { token: TOKEN, trustedHeader: null })).toMatchObject({ canAct: false });
    expect(accessOf({ authorization: TOKEN }, { token: TOKEN, trustedHeader: null })).toMatchObject({ canAct: false });
  });

  it('is read-only for everyone when nothing is configured, whatever the request says', () => {
    expect(
      accessOf(
        { authorization: 'Bearer anything', 'x-forwarded-user': 'mallory' },
        { token: null, trustedHeader: null },
      ),
    ).toMatchObject({ canAct: false, reason: expect.stringContaining('read-only') });
  });

  it('trusts the proxy header only when configured, and records the person it names (cleaned)', () => {
    const settings = { token: null, trustedHeader: 'x-forwarded-user' };
    expect(accessOf({ 'x-forwarded-user': 'grace@example.com' }, settings, 'someone else')).toEqual({
      canAct: true,
      by: 'grace@example.com (console)',
      via: 'proxy',
    });
    expect(accessOf({ 'x-forwarded-user': '<script>x</script>\n' }, settings)).toEqual({
      canAct: true,
      by: 'scriptxscript (console)',
      via: 'proxy',
    });
    expect(accessOf({ 'x-forwarded-user': '' }, settings)).toMatchObject({ canAct: false });
    expect(accessOf({ 'x-remote-user': 'grace' }, settings)).toMatchObject({ canAct: false });
  });
});
