import { readFileSync } from 'node:fs';
import path from 'node:path';
import { signPass, verifyPass, type Pass } from '@waiting-room/connector';

/** The test vector docs/pass.md publishes: the secret, the pass's fields and the token. */
function documentedVector(): { secret: string; pass: Pass; token: string } {
  const text = readFileSync(path.join(__dirname, '../../docs/pass.md'), 'utf8');
  const section = text.slice(text.indexOf('## Test vector'));
  const ticks = [...section.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]);
  const [secret, room, visitor, session, issuedAt, expiresAt] = ticks;
  const token = /```text\n(.+)\n```/.exec(section)![1];
  return { secret: secret, pass: { room: room, visitor: visitor, session: session, issuedAt: Number(issuedAt), expiresAt: Number(expiresAt) }, token };
}

const SECRET = 'a-secret-the-site-and-the-room-share-0123';
const PASS: Pass = { room: 'shop', visitor: 'visitor-id-of-the-browser', session: 'session-1', issuedAt: 1_800_000_000, expiresAt: 1_800_000_300 };
const BEFORE_EXPIRY_MS = (PASS.expiresAt - 1) * 1000;

/** The token with its payload's claims changed, the signature kept. */
function withClaims(token: string, change: Record<string, unknown>): string {
  const [header, payload, signature] = token.split('.');
  const claims = { ...JSON.parse(Buffer.from(payload, 'base64url').toString()), ...change };
  return [header, Buffer.from(JSON.stringify(claims)).toString('base64url'), signature].join('.');
}

describe('the signed pass', () => {
  test("is the documented test vector's token, and accepted until its expiry", async () => {
    const { secret, pass, token } = documentedVector();
    expect(await signPass(pass, secret)).toBe(token);
    expect(await verifyPass(token, secret, pass.room, (pass.expiresAt - 1) * 1000)).toEqual(pass);
    expect(await verifyPass(token, secret, pass.room, pass.expiresAt * 1000)).toBeUndefined();
  });

  test('carries the room, the visitor, the session and its times', async () => {
    expect(await verifyPass(await signPass(PASS, SECRET), SECRET, 'shop', BEFORE_EXPIRY_MS)).toEqual(PASS);
  });

  test.each([
    ['signed with another secret', async () => signPass(PASS, `${SECRET}-other`)],
    ['of another room', async () => signPass({ ...PASS, room: 'tickets' }, SECRET)],
    ['with its payload altered', async () => withClaims(await signPass(PASS, SECRET), { sub: 'someone-else' })],
    ['with its expiry pushed back', async () => withClaims(await signPass(PASS, SECRET), { exp: PASS.expiresAt + 3600 })],
    [
      'unsigned (alg none)',
      async () => {
        const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
        const [, payload] = (await signPass(PASS, SECRET)).split('.');
        return `${header}.${payload}.`;
      },
    ],
    ['not a token', async () => 'not.a.token'],
    ['empty', async () => ''],
  ])('is refused when %s', async (_case, token) => {
    expect(await verifyPass(await token(), SECRET, 'shop', BEFORE_EXPIRY_MS)).toBeUndefined();
  });

  test('is refused once expired', async () => {
    expect(await verifyPass(await signPass(PASS, SECRET), SECRET, 'shop', PASS.expiresAt * 1000)).toBeUndefined();
  });

  test('cannot be signed with a secret shorter than 32 characters', async () => {
    await expect(signPass(PASS, 'short')).rejects.toThrow('at least 32 characters');
  });
});
