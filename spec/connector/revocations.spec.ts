import { createConnector, PASS_COOKIE, PASS_PARAMETER, signFeedToken, signPass, verifyPass, VISITOR_COOKIE, type Connector } from '@waiting-room/connector';
import { signEnter } from '@waiting-room/connector/core/enter';
import { closedPort } from '../support/closed-port';
import { ensureWaitingPageBuilt } from '../support/waiting-page-built';
import { startWaitingRoom, type WaitingRoomServer } from '../support/waiting-room-server';
import { ManualClock } from '../server/support/manual-clock';

const SECRET = 'a-pass-secret-shared-by-several-connector-processes';
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The same pass spelled otherwise: the signature's last character with another of its unused bits, which decodes the same. */
function respelled(pass: string): string {
  const last = BASE64URL.indexOf(pass.at(-1)!);
  return pass.slice(0, -1) + BASE64URL[last ^ 1];
}
const SITE = 'https://shop.example';

/**
 * Revocation across processes: several connectors (each its own `createConnector`, as separate
 * processes of one site would have) in front of the real waiting room, all on one clock the test
 * moves, so that the bound is proved without sleeping.
 */
describe('a revoked pass, in every connector process', () => {
  let server: WaitingRoomServer | undefined;
  let clock: ManualClock;
  let feedReads: number;
  const realFetch = globalThis.fetch;

  beforeAll(async () => {
    await ensureWaitingPageBuilt();
  });

  beforeEach(() => {
    clock = new ManualClock();
    feedReads = 0;
    globalThis.fetch = (input, init) => {
      if (String(input instanceof Request ? input.url : input).includes('/queue/passes/revoked')) feedReads += 1;
      return realFetch(input, init);
    };
  });

  afterEach(async () => {
    globalThis.fetch = realFetch;
    await server?.close();
    server = undefined;
  });

  async function start(env: Record<string, string> = {}): Promise<WaitingRoomServer> {
    server = await startWaitingRoom({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '60', PASS_SECRET: SECRET, CONNECTOR_ORIGINS: SITE, ...env }, { clock });
    return server;
  }

  const connector = (waitingRoom = server!.url, log?: (message: string) => void) =>
    createConnector({ waitingRoom, room: 'default', secret: SECRET, protect: ['/checkout'], now: () => clock.now(), ...(log && { log }) });

  /** A browser of the site, named by its visitor id, with the cookies it holds there. */
  class Browser {
    readonly visitor = `visitor-${Math.random().toString(36).slice(2)}-0123456789`;
    pass?: string;
    private waitingRoomCookie = '';

    request(path = '/checkout') {
      const cookie = `${VISITOR_COOKIE}=${this.visitor}${this.pass ? `; ${PASS_COOKIE}=${this.pass}` : ''}`;
      return {
        method: 'GET',
        url: `${SITE}${path}`,
        header: (name: string) => (name === 'cookie' ? cookie : name === 'sec-fetch-mode' ? 'navigate' : undefined),
      };
    }

    /** Goes to the enter address: true, with a pass, when the waiting room lets it through. */
    async enter(): Promise<boolean> {
      // Signed as the site's connector signs the address it sends a visitor to.
      const claim = { room: 'default', visitor: this.visitor, target: `${SITE}/checkout`, at: Math.floor(clock.now() / 1000) };
      const sig = await signEnter(claim, SECRET);
      const query = new URLSearchParams({ target: claim.target, visitor: claim.visitor, at: String(claim.at), sig });
      const answer = await fetch(`${server!.url}/queue/enter/default?${query}`, { redirect: 'manual', headers: { cookie: this.waitingRoomCookie } });
      const set = answer.headers.get('set-cookie');
      if (set) this.waitingRoomCookie = set.split(';')[0]!;
      await answer.text();
      if (answer.status !== 303) return false;
      this.pass = new URL(answer.headers.get('location')!).searchParams.get(PASS_PARAMETER)!;
      return true;
    }

    async admittedBy(site: Connector): Promise<boolean> {
      return (await site.decide(this.request())).kind === 'admitted';
    }
  }

  test('the process that revoked refuses the pass at once; another within the bound, reading the feed at most once per bound', async () => {
    await start();
    const [a, b] = [connector(), connector()];
    const buyer = new Browser();
    expect(await buyer.enter()).toBe(true);
    expect(await buyer.admittedBy(a)).toBe(true);
    expect(await buyer.admittedBy(b)).toBe(true);
    // Admitted requests read the feed once a bound at most, whatever their number.
    for (let i = 0; i < 20; i++) expect(await buyer.admittedBy(b)).toBe(true);
    expect(feedReads).toBe(2);

    expect((await a.revoke(buyer.request())).revoked).toBe(true);
    expect(await buyer.admittedBy(a)).toBe(false);
    // Nor is another spelling of the same pass admitted (docs/security.md): revocations name claims, not text.
    const original = buyer.pass!;
    buyer.pass = respelled(original);
    expect(buyer.pass).not.toBe(original);
    expect(await verifyPass(buyer.pass, SECRET, 'default', clock.now())).toMatchObject({ visitor: buyer.visitor });
    expect(await buyer.admittedBy(a)).toBe(false);
    buyer.pass = original;
    // Process b has not read the feed since: within the bound (5 s) it may still admit the pass…
    await clock.advance(2000);
    expect(await buyer.admittedBy(b)).toBe(true);
    // …and no longer once the bound has passed.
    await clock.advance(3000);
    expect(await buyer.admittedBy(b)).toBe(false);
    // A process started later learns it at its first request.
    expect(await buyer.admittedBy(connector())).toBe(false);
  });

  test('requests that find the list old wait for one shared read, or, where a read belongs to its request, each for its own', async () => {
    await start();
    const buyer = new Browser();
    await buyer.enter();
    const all = (site: Connector) => Promise.all([1, 2, 3].map(() => buyer.admittedBy(site)));
    expect(await all(connector())).toEqual([true, true, true]);
    expect(feedReads).toBe(1);
    // An edge isolate cancels a request's reads once it is answered: no request waits for another's.
    const edge = createConnector({ waitingRoom: server!.url, room: 'default', secret: SECRET, now: () => clock.now(), readsPerRequest: true });
    expect(await all(edge)).toEqual([true, true, true]);
    expect(feedReads).toBe(4);
  });

  test('a revoked visitor admitted again gets a pass every process accepts', async () => {
    await start({ ACTIVE_LIMIT: '2' });
    const [a, b] = [connector(), connector()];
    const buyer = new Browser();
    await buyer.enter();
    await a.revoke(buyer.request());
    await clock.advance(5000);
    expect(await buyer.enter()).toBe(true);
    expect(await buyer.admittedBy(a)).toBe(true);
    expect(await buyer.admittedBy(b)).toBe(true);
  });

  test('the site never holds more visitors than ACTIVE_LIMIT: the slot waits out the bound', async () => {
    const room = await start();
    const [a, b] = [connector(), connector()];
    const sites = [a, b];
    const first = new Browser();
    const second = new Browser();
    /** Browsers some process of the site admits now. */
    const inside = async () => {
      let count = 0;
      for (const browser of [first, second]) if (browser.pass && (await Promise.all(sites.map((site) => browser.admittedBy(site)))).some(Boolean)) count++;
      return count;
    };
    expect(await first.enter()).toBe(true);
    expect(await first.admittedBy(b)).toBe(true);
    expect(await second.enter()).toBe(false);

    await a.revoke(first.request());
    for (let second_ = 0; second_ < 5; second_++) {
      expect(await second.enter()).toBe(false);
      expect(await inside()).toBeLessThanOrEqual(1);
      expect((await room.stats()).active).toBe(1);
      await clock.advance(1000);
    }
    // The bound has passed: the release loop lets the second in, and nobody honours the first.
    await clock.advance(1000);
    expect(await second.enter()).toBe(true);
    expect(await second.admittedBy(b)).toBe(true);
    expect(await first.admittedBy(b)).toBe(false);
    expect(await inside()).toBe(1);
    expect((await room.stats()).active).toBe(1);
  });

  test('a feed that cannot be read is logged, retried, and passes not known revoked are admitted meanwhile', async () => {
    await start();
    const logged: string[] = [];
    const cut = connector(`http://127.0.0.1:${await closedPort()}`, (message) => logged.push(message));
    const buyer = new Browser();
    await buyer.enter();
    expect(await buyer.admittedBy(cut)).toBe(true);
    expect(logged).toEqual([expect.stringContaining('the revocation feed http://127.0.0.1:')]);
    expect(logged[0]).toContain('cannot be read');
    // Not read again on every request: within half the bound, no retry.
    expect(await buyer.admittedBy(cut)).toBe(true);
    expect(logged).toHaveLength(1);
    // Retried later, in the background, and logged again while it fails.
    await clock.advance(3000);
    expect(await buyer.admittedBy(cut)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(logged.length).toBe(2);
  });

  test('the feed answers only a connector that holds the secret', async () => {
    await start();
    const feed = (authorization?: string, room = 'default') =>
      fetch(`${server!.url}/queue/passes/revoked?room=${room}`, { headers: authorization ? { authorization } : {} });
    const now = clock.now();
    const right = await feed(`Bearer ${await signFeedToken('default', SECRET, now)}`);
    expect(right.status).toBe(200);
    expect(await right.json()).toMatchObject({ revoked: [], more: false, refreshSeconds: 5 });

    const refused = [
      undefined,
      `Bearer ${await signFeedToken('default', 'another-secret-of-at-least-32-characters', now)}`,
      // A pass is no feed token, even one signed with the secret.
      `Bearer ${await signPass({ room: 'default', visitor: 'v', session: 's', issuedAt: now / 1000, expiresAt: now / 1000 + 60 }, SECRET)}`,
      `Bearer ${await signFeedToken('default', SECRET, now - 3_600_000)}`,
      'Basic dXNlcjpwYXNz',
    ];
    for (const authorization of refused) {
      const answer = await feed(authorization);
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toBe('Bearer');
      expect(await answer.json()).toMatchObject({ error: { code: 'invalid_token' } });
    }
    expect((await feed(`Bearer ${await signFeedToken('default', SECRET, now)}`, 'nowhere')).status).toBe(404);
  });
});
