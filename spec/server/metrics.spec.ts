import { readFileSync } from 'node:fs';
import path from 'node:path';
import { closedPort } from '../support/closed-port';
import { ManualClock } from './support/manual-clock';
import { sentryScopeFor } from './support/sentry';
import { ADMIN_TOKEN, admin, startServer, type StartedWithOrigin } from './support/server';
import { Visitor } from './support/visitor';

/** The value of one sample line of the exposition (`name{labels} value`), or undefined when absent. */
function sample(text: string, line: string): number | undefined {
  const found = text.split('\n').find((each) => each.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe('GET /metrics', () => {
  let server: StartedWithOrigin;
  let clock: ManualClock;
  const scrape = async (target: { url: string } = server) => {
    const answer = await fetch(`${target.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return answer.text();
  };

  beforeEach(async () => {
    clock = new ManualClock();
    server = await startServer({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', AWAY_SECONDS: '60' }, { clock });
  });
  afterEach(() => server.close());

  it('should answer only for the admin token, and never reach the origin', async () => {
    const none = await fetch(`${server.url}/metrics`);
    const wrong = await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer wrong' } });
    expect([none.status, wrong.status]).toEqual([401, 401]);
    expect((await none.json()).error.code).toBe('unauthorized');
    expect(server.origin.at('/metrics')).toEqual([]);
  });

  it("should show the line per room, this instance's releases, walk-aways and their event times", async () => {
    await new Visitor(server.url).get('/checkout');
    const ada = new Visitor(server.url);
    const page = await ada.hold();
    await new Visitor(server.url).hold();
    await new Visitor(server.url).hold();
    let text = await scrape();
    expect(sample(text, 'waiting_room_visitors_waiting{room="default"}')).toBe(3);
    expect(sample(text, 'waiting_room_sessions_active{room="default"}')).toBe(1);
    expect(sample(text, 'waiting_room_active_limit{room="default"}')).toBe(1);

    await admin(server, 'POST', 'release', { count: 1 });
    await ada.queueInfo(page.queue.uuid);
    await admin(server, 'POST', 'limits', { releasePerMinute: 9 });
    // The two others say nothing for longer than AWAY_SECONDS: the sweep drops them.
    await clock.advance(61_000);
    text = await scrape();

    expect(sample(text, 'waiting_room_visitors_waiting{room="default"}')).toBe(0);
    expect(sample(text, 'waiting_room_releases_total{room="default"}')).toBe(1);
    expect(sample(text, 'waiting_room_release_event_seconds_count{room="default"}')).toBe(1);
    expect(sample(text, 'waiting_room_walk_aways_total{room="default"}')).toBe(2);
    expect(sample(text, 'waiting_room_queue_info_seconds_count')).toBe(1);
    expect(sample(text, 'waiting_room_release_rate{room="default"}')).toBe(9);
  });

  it("should count the origin's answers, its failures and the pages' error reports", async () => {
    await new Visitor(server.url).get('/shop');
    await new Visitor(server.url).get('/shop');
    const scope = sentryScopeFor(server);
    scope.captureMessage('Websoket KO - unavailable');
    await scope.getClient()?.flush(5000);
    let text = await scrape();
    expect(sample(text, 'waiting_room_origin_seconds_count')).toBe(2);
    expect(sample(text, 'waiting_room_page_errors_total')).toBe(1);

    const down = await startServer({ UPSTREAM: `http://127.0.0.1:${await closedPort()}` });
    try {
      expect((await new Visitor(down.url).get('/shop')).status).toBe(502);
      text = await scrape(down);
      expect(sample(text, 'waiting_room_origin_errors_total{kind="unreachable"}')).toBe(1);
    } finally {
      await down.close();
    }
  });

  it("should carry Node's process metrics", async () => {
    const text = await scrape();
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
  });
});

describe('the Grafana dashboard in docs/', () => {
  it('should only query metrics the server exposes', async () => {
    const dashboard = JSON.parse(readFileSync(path.join(__dirname, '../../docs/grafana-dashboard.json'), 'utf8')) as {
      panels: { targets: { expr: string }[] }[];
    };
    const server = await startServer();
    try {
      const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
      const exposed = new Set(
        [...text.matchAll(/^# TYPE (\S+) (\w+)/gm)].flatMap(([, name, type]) =>
          type === 'histogram' ? [`${name}_bucket`, `${name}_count`, `${name}_sum`] : [name],
        ),
      );
      const queried = dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => target.expr.match(/\b(waiting_room|process|nodejs)_\w+/g) ?? []));
      expect(queried.length).toBeGreaterThan(10);
      expect(queried.filter((name) => !exposed.has(name))).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
