import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

/** The Python of docs/pass.md, as a reader copies it. */
function documentedPython(): string {
  const markdown = readFileSync(path.join(ROOT, 'docs/pass.md'), 'utf8');
  const found = /```python\n([\s\S]*?)```/.exec(markdown);
  if (!found) throw new Error('docs/pass.md has no Python block');
  return found[1];
}

const SECRET = 'the-secret-the-site-and-the-waiting-room-share';
const VISITOR = 'mR3vQ9ZxT2wLk8pB4nYc7A';
/** The test vector of docs/pass.md: room shop, valid until 1900000300. */
const VECTOR =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzaWQiOiI2ZjFjMmI5ZS00ZDNhLTRmNWItOWM4ZS0yYTFkMGU3YjNjNGYiLCJpc3MiOiJ3YWl0aW5nLXJvb20iLCJhdWQiOiJzaG9wIiwic3ViIjoibVIzdlE5WnhUMndMazhwQjRuWWM3QSIsImlhdCI6MTkwMDAwMDAwMCwiZXhwIjoxOTAwMDAwMzAwfQ.bJADru3ApojoKLglaL_CvZbPM185i_n2EJoS_orGQcc';

/**
 * Runs the documented `check_pass` with python3 on each case (`time.time()` fixed at `now`),
 * and answers, for each, the claims' `sub` or null, or the exception it raised.
 */
async function checkWithPython(cases: readonly (readonly [token: string, room: string, visitor: string | null])[], now: number): Promise<unknown[]> {
  const harness = `${documentedPython()}
import sys
time.time = lambda: ${now}

def sign(header, payload):
    part = lambda value: base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")
    head = part(header) + "." + part(payload)
    mac = hmac.new(${JSON.stringify(SECRET)}.encode(), head.encode(), hashlib.sha256).digest()
    return head + "." + base64.urlsafe_b64encode(mac).decode().rstrip("=")

out = []
for token, room, visitor in json.loads(sys.argv[1]):
    if token.startswith("sign:"):
        header, payload = json.loads(token[5:])
        token = sign(header, payload)
    try:
        claims = check_pass(token, ${JSON.stringify(SECRET)}, room, visitor)
        out.append(None if claims is None else claims["sub"])
    except Exception as error:
        out.append("raised " + type(error).__name__)
print(json.dumps(out))
`;
  const { stdout } = await run('python3', ['-c', harness, JSON.stringify(cases)]);
  return JSON.parse(stdout) as unknown[];
}

describe("docs/pass.md's Python check", () => {
  it('accepts the test vector until it expires, for its room and visitor only', async () => {
    const cases = [
      [VECTOR, 'shop', VISITOR],
      [VECTOR, 'shop', null],
      [VECTOR, 'another-room', VISITOR],
      [VECTOR, 'shop', 'another-visitor'],
    ] as const;
    expect(await checkWithPython(cases, 1_900_000_100)).toEqual([VISITOR, VISITOR, null, null]);
    expect(await checkWithPython([[VECTOR, 'shop', VISITOR]], 1_900_000_300)).toEqual([null]);
  });

  it('refuses, without raising, what is not a pass', async () => {
    const sign = (header: unknown, payload: unknown) => `sign:${JSON.stringify([header, payload])}`;
    const claims = { iss: 'waiting-room', aud: 'shop', sub: VISITOR, sid: 's', iat: 1_900_000_000, exp: 1_900_000_300 };
    const cases = [
      // A JSON header that is not an object.
      ['W10.e30.AAAA', 'shop', VISITOR],
      ['bnVsbA.e30.AAAA', 'shop', VISITOR],
      ['IkhTMjU2Ig.e30.AAAA', 'shop', VISITOR],
      // Signed with the secret, yet claims that are not an object, or an exp that is no whole number.
      [sign({ alg: 'HS256' }, []), 'shop', VISITOR],
      [sign({ alg: 'HS256' }, 'waiting-room'), 'shop', VISITOR],
      [sign({ alg: 'HS256' }, { ...claims, exp: '1900000300' }), 'shop', VISITOR],
      [sign({ alg: 'HS256' }, { ...claims, exp: true }), 'shop', VISITOR],
      [sign({ alg: 'none' }, claims), 'shop', VISITOR],
      ['not a pass', 'shop', VISITOR],
      ['a.b.c.d', 'shop', VISITOR],
      ['é.é.é', 'shop', VISITOR],
      [`${VECTOR.slice(0, -4)}AAAA`, 'shop', VISITOR],
    ] as const;
    expect(await checkWithPython(cases, 1_900_000_100)).toEqual(cases.map(() => null));
    // The harness signs as the waiting room does: the same claims, as an object, pass.
    expect(await checkWithPython([[sign({ alg: 'HS256', typ: 'JWT' }, claims), 'shop', VISITOR]], 1_900_000_100)).toEqual([VISITOR]);
  });
});
