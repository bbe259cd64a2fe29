import { readFileSync } from 'node:fs';
import path from 'node:path';
import { act } from '@testing-library/react';
import { VirtualAction, VirtualTimeScheduler } from 'rxjs';
import { createQueue$, type PusherOptions } from '@waiting-room/streams';
import { startPage, type PageDeps } from '../../src/start-page';
import { FakePusher } from '../support/fake-pusher';
import { createFakeFetch, settle, type FakeAnswer } from './fakes/fake-fetch';
import { renderConfigElement, validConfig } from './fakes/config';
import { performReplay } from '../../src/effects/perform-replay';
import { configProblemView, type ConfigProblemView } from '../../src/view/config-problem';
import { lostPlaceView } from '../../src/view/lost-place';
import { mountView, type MountView } from '../../src/view/mount';
import { createControls } from '../../src/view/controls';
import { ENGLISH as ENGLISH_LANGUAGE } from '../../src/i18n/english';
import { languageOf } from './fakes/texts';
import { eventView } from '../../src/view/event-view';
import { qrCode } from '../../src/view/qr-code';
import { LOCALES } from '../../locales';

const TEMPLATE = readFileSync(path.join(__dirname, '../../public/index.html'), 'utf8');
const UUID = '0b7c5b2e-1f7d-4d8e-9a3c-2f1e6b7a9c10';
const CLIENT_CHANNEL = `App.Client.${UUID}`;
const LINE_CHANNEL = 'App.Queue';

interface Options {
  readonly config?: unknown;
  readonly href?: string;
  readonly language?: string;
  readonly queueInfo?: () => FakeAnswer;
  /** Keep what waits for the first paint until `paint()`. */
  readonly holdPaint?: boolean;
  /** Loads the config-problem view (by default at once). */
  readonly configProblem?: () => Promise<ConfigProblemView>;
  /** Loads the React view (by default at once). */
  readonly view?: () => Promise<MountView>;
  /** What else the browser's window has (`Notification`…). */
  readonly windowExtras?: Record<string, unknown>;
  /** Answers other calls than queue_info and queue_request. */
  readonly other?: (url: string) => FakeAnswer | undefined;
  /** Solves the bot check's challenge (by default never). */
  readonly solveAltcha?: PageDeps['solveAltcha'];
  /** Loads the realtime client (by default the fake's, at once). */
  readonly loadPusher?: PageDeps['loadPusher'];
}

/** The page as a browser would load it, with a fake realtime client, fetch and clock. */
async function load({
  config = validConfig(),
  href = 'http://localhost/checkout?item=42&position=12&uri=%2Fcheckout&method=GET#size',
  language = 'en-US',
  queueInfo = () => ({ body: { position: 12, estimated: 4 } }),
  holdPaint = false,
  configProblem = async () => configProblemView,
  view = async () => mountView,
  windowExtras = {},
  other = () => undefined,
  solveAltcha = jest.fn(() => new Promise<string>(() => undefined)),
  loadPusher,
}: Options = {}) {
  document.documentElement.innerHTML = new DOMParser().parseFromString(TEMPLATE, 'text/html').documentElement.innerHTML;
  renderConfigElement(document, config);
  const url = new URL(href);
  const location = { href: url.href, origin: url.origin, hash: url.hash, assign: jest.fn(), reload: jest.fn() };
  const history = {
    state: null,
    back: jest.fn(),
    replaceState: jest.fn((_: unknown, __: string, to: string) => {
      location.href = new URL(to, location.href).href;
    }),
  };
  const scheduler = new VirtualTimeScheduler(VirtualAction, 0);
  const pushers: FakePusher[] = [];
  const createPusher = jest.fn((_key: string, _options: PusherOptions) => {
    const pusher = new FakePusher();
    pushers.push(pusher);
    return pusher;
  });
  const { fetch, calls } = createFakeFetch((to) => other(to) ?? (to.startsWith('/queue/info/') ? queueInfo() : { status: 202 }));
  const reports: string[] = [];
  const levels: Array<string | undefined> = [];
  const loadReporter = jest.fn(async () => (message: string, level?: string) => void (reports.push(message), levels.push(level)));
  const consoleError = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  const submit = jest.spyOn(HTMLFormElement.prototype, 'submit').mockImplementation(() => undefined);
  const loadReplay = jest.fn(async () => performReplay);
  const loadConfigProblem = jest.fn(configProblem);
  const loadLostPlace = jest.fn(async () => lostPlaceView);
  const loadView = jest.fn(view);
  const loadEnglish = jest.fn(async () => ENGLISH_LANGUAGE);
  const loadControls = jest.fn(async () => createControls);
  const loadEventView = jest.fn(async () => eventView);
  // What waits for the first paint; run at once unless the test paints itself.
  const afterPaint: Array<() => void> = [];
  const deps: PageDeps = {
    // The window's own events (`online`, `pageshow`: a return to the page) go to jsdom's window.
    window: {
      document,
      location,
      history,
      navigator: { language },
      addEventListener: window.addEventListener.bind(window),
      removeEventListener: window.removeEventListener.bind(window),
      ...windowExtras,
    } as unknown as Window,
    fetch,
    loadPusher: loadPusher ?? (async () => createPusher),
    createQueue$,
    scheduler,
    loadReporter,
    loadReplay,
    loadConfigProblem,
    loadLostPlace,
    loadView,
    loadEnglish,
    loadControls,
    loadEventView,
    loadQrCode: async () => qrCode,
    solveAltcha,
    afterFirstPaint: (run) => (holdPaint ? afterPaint.push(run) : run()),
  };
  /** Runs what is due on the clock up to `ms`, letting fetch answers arrive, until nothing more is due. */
  const runUntil = async (ms: number) => {
    for (let round = 0; round < 5; round++) {
      scheduler.maxFrames = ms;
      scheduler.flush();
      scheduler.frame = ms;
      await settle(10);
    }
  };
  let stop: () => void = () => undefined;
  await act(async () => {
    stop = startPage(document.getElementById('waiting-room')!, deps);
    await settle();
    // What is due at once: the first queue_info; its answer shows the position, which opens the connection.
    await runUntil(0);
  });
  /** Moves the clock to `ms` after the start. */
  const advanceTo = (ms: number) => act(() => runUntil(ms));
  /** Does something to the fakes, then runs what it made due now. */
  const inAct = (run: () => void) =>
    act(async () => {
      run();
      await runUntil(scheduler.frame);
    });
  const root = () => document.getElementById('waiting-room')!;
  /** The first paint: runs what waited for it. */
  const paint = () =>
    act(async () => {
      afterPaint.splice(0).forEach((run) => run());
      await settle();
    });
  return {
    stop,
    location,
    history,
    pushers,
    createPusher,
    calls,
    reports,
    levels,
    loadReporter,
    loadReplay,
    loadConfigProblem,
    loadLostPlace,
    loadView,
    loadEnglish,
    loadControls,
    solveAltcha,
    consoleError,
    submit,
    advanceTo,
    inAct,
    root,
    paint,
  };
}

let page: Awaited<ReturnType<typeof load>> | undefined;
afterEach(() => {
  act(() => page?.stop());
  page = undefined;
  jest.restoreAllMocks();
});

/** A failed queue_info call: the position cannot show from it. */
const FAILED: FakeAnswer = { status: 503, body: {} };
const queueRequests = () => page!.calls.filter((call) => call.url === '/queue/request');
const queueInfos = () => page!.calls.filter((call) => call.url.startsWith('/queue/info/'));

describe('page: start-up', () => {
  it('should remove position, uri and method from the address bar on load, keeping other parameters and the hash', async () => {
    page = await load();
    expect(page.history.replaceState).toHaveBeenCalledWith(null, '', '/checkout?item=42#size');
  });

  it('should show the loading block until the first successful queue_info answer, then the waiting block', async () => {
    let answer: FakeAnswer = FAILED;
    page = await load({ queueInfo: () => answer });
    expect(page.root().textContent).toContain('Finding your place in line…');
    answer = { body: { position: 12, estimated: 4 } };
    await page.inAct(() => page!.pushers[0].enter('connected'));
    expect(page.root().textContent).toContain('Your position12');
    expect(page.root().textContent).toContain('Estimated wait: about 4 minutes');
    expect(document.title).toBe('#12 · Waiting room');
  });

  it('should connect once, subscribe once and send queue_request once under StrictMode', async () => {
    page = await load();
    await page.inAct(() => page!.pushers[0].enter('connected'));
    expect(page.createPusher).toHaveBeenCalledTimes(1);
    expect(page.pushers[0].subscribeCalls).toEqual([CLIENT_CHANNEL, LINE_CHANNEL]);
    expect(queueRequests()).toHaveLength(0);
    await page.inAct(() => page!.pushers[0].confirm(CLIENT_CHANNEL));
    expect(queueRequests()).toHaveLength(1);
    expect(JSON.parse(queueRequests()[0].init.body as string)).toEqual({ _token: 'csrf-token', user_id: 0, uuid: UUID });
  });

  it('should subscribe a signed-in user to the private user channel', async () => {
    page = await load({ config: validConfig({ user: { id: 42 } }) });
    await page.inAct(() => page!.pushers[0].enter('connected'));
    expect(page.pushers[0].subscribeCalls).toEqual([`private-App.User.42.${UUID}`, LINE_CHANNEL]);
  });

  it('should poll queue_info every 5 s for anonymous visitors once subscribed', async () => {
    page = await load();
    await page.inAct(() => page!.pushers[0].enter('connected'));
    await page.inAct(() => page!.pushers[0].confirm(CLIENT_CHANNEL));
    const afterSubscription = queueInfos().length;
    await page.advanceTo(5000);
    expect(queueInfos().length).toBe(afterSubscription + 1);
    expect(queueInfos()[0].url).toBe(`/queue/info/${UUID}`);
  });

  it("should show the page in the config's language, whatever the browser's", async () => {
    let answer: FakeAnswer = FAILED;
    page = await load({ config: validConfig({ language: languageOf('fr') }), language: 'en-US', queueInfo: () => answer });
    expect(page.root().textContent).toContain('Recherche de votre place dans la file…');
    answer = { body: { position: 12, estimated: 4 } };
    await page.inAct(() => page!.pushers[0].enter('connected'));
    expect(document.title).toBe("n° 12 · Salle d'attente");
    expect(page.loadEnglish).not.toHaveBeenCalled();
  });

  it('should show the page in English, loaded from a file of its own, for a server that sent no language', async () => {
    page = await load({ language: 'fr-FR', queueInfo: () => FAILED });
    expect(page.loadEnglish).toHaveBeenCalledTimes(1);
    expect(page.root().textContent).toContain('Finding your place in line…');
  });
});

describe('page: the bot check (an extension)', () => {
  const CHALLENGE = {
    parameters: { algorithm: 'SCRYPT', nonce: 'aa', salt: 'bb', cost: 1024, keyLength: 32, keyPrefix: 'cc', memoryCost: 8 },
    signature: 'dd',
  };

  it('should say it checks the browser, solve while it connects with no click, and send the solution with queue_request', async () => {
    let solved: (payload: string) => void = () => undefined;
    const solveAltcha = jest.fn(() => new Promise<string>((resolve) => (solved = resolve)));
    page = await load({ config: validConfig({ altcha: CHALLENGE }), solveAltcha, queueInfo: () => ({ status: 202, body: { pending: true } }) });

    expect(solveAltcha).toHaveBeenCalledWith(CHALLENGE);
    expect(page.root().textContent).toContain('Checking your browser…');
    await page.inAct(() => page!.pushers[0].enter('connected'));
    await page.inAct(() => page!.pushers[0].confirm(CLIENT_CHANNEL));
    await page.advanceTo(10_000);
    // Pending answers are no failed polls: no notice, still checking, no queue_request yet.
    expect(page.root().textContent).toContain('Checking your browser…');
    expect(page.root().textContent).not.toContain('could not be refreshed');
    expect(queueRequests()).toHaveLength(0);

    await page.inAct(() => solved('the-payload'));

    expect(queueRequests()).toHaveLength(1);
    expect(JSON.parse(queueRequests()[0].init.body as string)).toEqual({ _token: 'csrf-token', user_id: 0, uuid: UUID, altcha: 'the-payload' });
  });

  it('should ask queue_info at once when the queue_request carrying the solution was answered, and show the position', async () => {
    let placed = false;
    page = await load({
      config: validConfig({ user: { id: 42 }, altcha: CHALLENGE }),
      solveAltcha: async () => 'the-payload',
      queueInfo: () => (placed ? { body: { position: 3, estimated: 1 } } : { status: 202, body: { pending: true } }),
    });
    await page.inAct(() => page!.pushers[0].enter('connected'));
    const pendingCalls = queueInfos().length;
    placed = true;

    await page.inAct(() => page!.pushers[0].confirm(`private-App.User.42.${UUID}`));

    // A signed-in visitor polls every 60 s: this call is the one the answered queue_request asked for.
    expect(queueInfos()).toHaveLength(pendingCalls + 1);
    expect(page.root().textContent).toContain('Your position3');
  });

  it('should report a solver that fails, and send no queue_request', async () => {
    page = await load({ config: validConfig({ altcha: CHALLENGE }), solveAltcha: async () => Promise.reject(new Error('no WebAssembly')) });
    await page.inAct(() => page!.pushers[0].enter('connected'));
    await page.inAct(() => page!.pushers[0].confirm(CLIENT_CHANNEL));
    expect(page.reports).toEqual(['Waiting room source altcha$ failed: no WebAssembly']);
    expect(queueRequests()).toHaveLength(0);
  });

  it('should solve nothing and say nothing of a check without a challenge', async () => {
    page = await load({ queueInfo: () => FAILED });
    expect(page.solveAltcha).not.toHaveBeenCalled();
    expect(page.root().textContent).toContain('Finding your place in line…');
  });

  it('should say it checks the browser in French', async () => {
    page = await load({ config: validConfig({ altcha: CHALLENGE, language: languageOf('fr') }), language: 'en-US' });
    expect(page.root().textContent).toContain('Vérification de votre navigateur…');
  });
});

describe('page: the line moves (QueueMoved on App.Queue, an extension)', () => {
  it('should move a signed-in visitor up at once on QueueMoved, between its 60 s polls, without another queue_info call', async () => {
    page = await load({ config: validConfig({ user: { id: 42 } }), queueInfo: () => ({ body: { position: 12, estimated: 4, ticket: 112, served: 100 } }) });
    await page.inAct(() => page!.pushers[0].enter('connected'));
    expect(page.root().textContent).toContain('Your position12');
    const calls = queueInfos().length;
    const line = page.pushers[0].channels.get(LINE_CHANNEL)!;

    await page.inAct(() => line.emit('QueueMoved', { served: 109 }, {}));

    expect(page.root().textContent).toContain('Your position3');
    // ceil(4 × 3 / 12) = 1 minute.
    expect(page.root().textContent).toContain('Estimated wait: about 1 minute');
    expect(document.title).toBe('#3 · Waiting room');
    expect(queueInfos()).toHaveLength(calls);
  });

  it("should move up on its own line's channel when the config names one, and not on another line's", async () => {
    const config = validConfig();
    page = await load({
      config: { ...config, realtime: { ...config.realtime, queueChannel: 'App.Queue.tickets' } },
      queueInfo: () => ({ body: { position: 12, estimated: 4, ticket: 112, served: 100 } }),
    });
    await page.inAct(() => page!.pushers[0].enter('connected'));
    expect(page.root().textContent).toContain('Your position12');
    expect(page.pushers[0].channels.has(LINE_CHANNEL)).toBe(false);

    await page.inAct(() => page!.pushers[0].channels.get('App.Queue.tickets')!.emit('QueueMoved', { served: 105 }, {}));

    expect(page.root().textContent).toContain('Your position7');
  });

  it('should ignore QueueMoved when queue_info sends no ticket', async () => {
    page = await load();
    await page.inAct(() => page!.pushers[0].enter('connected'));
    await page.inAct(() => page!.pushers[0].channels.get(LINE_CHANNEL)!.emit('QueueMoved', { served: 109 }, {}));
    expect(page.root().textContent).toContain('Your position12');
  });
});

describe('page: failures are reported once, then the page leaves', () => {
  it("should report 'Websocket KO - position 0 depuis 10sec' once, go back 2 s later, then to the root 3 s after", async () => {
    page = await load({ queueInfo: () => ({ body: { position: 0, estimated: 0 } }) });
    await page.inAct(() => page!.pushers[0].enter('connected'));
    await page.advanceTo(9999);
    expect(page.reports).toEqual([]);
    await page.advanceTo(10_000);
    expect(page.reports).toEqual(['Websocket KO - position 0 depuis 10sec']);
    expect(page.history.back).not.toHaveBeenCalled();
    await page.advanceTo(12_000);
    expect(page.history.back).toHaveBeenCalledTimes(1);
    expect(page.location.assign).not.toHaveBeenCalled();
    await page.advanceTo(15_000);
    expect(page.location.assign).toHaveBeenCalledWith('/');
    expect(page.reports).toEqual(['Websocket KO - position 0 depuis 10sec']);
    expect(page.loadReporter).toHaveBeenCalledTimes(1);
  });

  it("should report 'Websoket KO - unavailable' when still not connected 30 s after 'unavailable'", async () => {
    page = await load();
    await page.inAct(() => page!.pushers[0].enter('unavailable'));
    expect(page.root().textContent).toContain('Connection lost.');
    await page.advanceTo(30_000);
    expect(page.reports).toEqual(['Websoket KO - unavailable']);
  });

  it('should report a refused private subscription without leaving', async () => {
    page = await load({ config: validConfig({ user: { id: 42 } }) });
    await page.inAct(() => page!.pushers[0].enter('connected'));
    const channel = page.pushers[0].channels.get(`private-App.User.42.${UUID}`)!;
    await page.inAct(() => channel.emit('pusher:subscription_error', { type: 'AuthError', error: 'Forbidden', status: 403 }));
    expect(page.reports).toEqual([expect.stringMatching(/^Waiting room source subscribe failed: Subscription to private-App\.User\.42\..* failed/)]);
    expect(page.history.back).not.toHaveBeenCalled();
    expect(page.root().textContent).toContain('Your position12');
  });
});

describe('page: a lost place (beyond the specification)', () => {
  const UNKNOWN: FakeAnswer = { status: 404, body: { error: { code: 'unknown_uuid', message: 'No place in line has this uuid.' } } };
  const LOST_REPORT = 'Waiting room place lost: queue_info answered 404 unknown_uuid';

  /** A visitor shown at position 12, whose queue_info answers "unknown uuid" from the 5 s poll on. */
  async function waitThenLose(config = validConfig()) {
    let answer: FakeAnswer = { body: { position: 12, estimated: 4 } };
    page = await load({ config, queueInfo: () => answer });
    await page.inAct(() => page!.pushers[0].enter('connected'));
    await page.inAct(() => page!.pushers[0].confirm(CLIENT_CHANNEL));
    expect(page.root().textContent).toContain('Your position12');
    answer = UNKNOWN;
    await page.advanceTo(5000);
    return page;
  }

  it('should tell a visitor held on a GET, report it once as a warning, then load the held address again 3 s later, polling no more', async () => {
    const page = await waitThenLose();
    const text = page.root().textContent;
    expect(text).toContain('Your place in line was lost');
    expect(text).toContain('The waiting room restarted or your place expired.');
    expect(text).toContain('Taking you back in line…');
    expect(text).not.toContain('could not be refreshed');
    expect(page.reports).toEqual([LOST_REPORT]);
    expect(page.levels).toEqual(['warning']);
    const polls = queueInfos().length;
    await page.advanceTo(7999);
    expect(page.location.reload).not.toHaveBeenCalled();
    // The held GET is this very address (/checkout?item=42, hash #size): assign would not load it again.
    await page.advanceTo(8000);
    expect(page.location.reload).toHaveBeenCalledTimes(1);
    expect(page.location.assign).not.toHaveBeenCalled();
    expect(page.history.back).not.toHaveBeenCalled();
    await page.advanceTo(130_000);
    expect(queueInfos()).toHaveLength(polls);
    expect(page.location.reload).toHaveBeenCalledTimes(1);
    expect(page.pushers[0].disconnects).toBe(1);
    expect(page.reports).toEqual([LOST_REPORT]);
  });

  it('should tell a visitor held on a POST and offer to go back, navigating nowhere by itself', async () => {
    const config = validConfig();
    config.queue.method = 'POST';
    const back = jest.spyOn(window.history, 'back').mockImplementation(() => undefined);
    const page = await waitThenLose(config);
    expect(page.root().textContent).toContain('Your place in line was lost');
    expect(page.root().textContent).toContain('Your form was not sent. Go back to send it again.');
    expect(page.root().querySelector('a[href="/"]')!.textContent).toBe('Go to the home page');
    expect(page.reports).toEqual([LOST_REPORT]);
    expect(page.pushers[0].disconnects).toBe(1);
    const polls = queueInfos().length;
    await page.advanceTo(130_000);
    expect(queueInfos()).toHaveLength(polls);
    expect(page.location.assign).not.toHaveBeenCalled();
    expect(page.location.reload).not.toHaveBeenCalled();
    expect(page.history.back).not.toHaveBeenCalled();
    expect(page.submit).not.toHaveBeenCalled();
    expect(back).not.toHaveBeenCalled();
    act(() => [...page.root().querySelectorAll('button')].find((button) => button.textContent == 'Go back')!.click());
    expect(back).toHaveBeenCalledTimes(1);
  });

  it('should load the lost-place view only once a place is lost', async () => {
    page = await load();
    await page.inAct(() => page!.pushers[0].enter('connected'));
    await page.advanceTo(60_000);
    expect(page.loadLostPlace).not.toHaveBeenCalled();
    act(() => page!.stop());
    await waitThenLose();
    expect(page.loadLostPlace).toHaveBeenCalled();
  });

  it('should report a lost-place view that cannot be loaded, and still load the held GET again', async () => {
    let answer: FakeAnswer = { body: { position: 12, estimated: 4 } };
    page = await load({ queueInfo: () => answer });
    page.loadLostPlace.mockRejectedValue(new Error('Failed to fetch dynamically imported module'));
    await page.inAct(() => page!.pushers[0].enter('connected'));
    answer = UNKNOWN;
    // The 60 s poll says the place is unknown; the held GET is loaded again 3 s later.
    await page.advanceTo(60_000);
    expect(page.reports).toEqual([LOST_REPORT, 'Waiting room lost-place view could not load: Failed to fetch dynamically imported module']);
    expect(page.location.reload).not.toHaveBeenCalled();
    await page.advanceTo(63_000);
    expect(page.location.reload).toHaveBeenCalledTimes(1);
  });
});

describe('page: release', () => {
  it('should replay a GET by reloading when the target is this very address, hash kept, once', async () => {
    page = await load();
    await page.inAct(() => page!.pushers[0].enter('connected'));
    const channel = page.pushers[0].channels.get(CLIENT_CHANNEL)!;
    await page.inAct(() => channel.emit('RequestUnqueud', { uuid: UUID }, {}));
    await page.inAct(() => channel.emit('RequestUnqueud', { uuid: UUID }, {}));
    expect(page.location.reload).toHaveBeenCalledTimes(1);
    expect(page.location.assign).not.toHaveBeenCalled();
    expect(page.root().textContent).toContain('It is your turn!');
  });

  it('should replay a GET by navigating to another address, with the hash kept', async () => {
    page = await load({ href: 'http://localhost/waiting?uri=%2Fcheckout#size' });
    await page.inAct(() => page!.pushers[0].enter('connected'));
    await page.inAct(() => page!.pushers[0].channels.get(CLIENT_CHANNEL)!.emit('RequestUnqueud', { uuid: UUID }));
    expect(page.location.assign).toHaveBeenCalledWith('http://localhost/checkout?item=42#size');
  });

  it('should replay a PUT with one hidden form carrying _method, uuid and _token', async () => {
    const config = validConfig();
    config.queue.method = 'PUT';
    page = await load({ config });
    await page.inAct(() => page!.pushers[0].enter('connected'));
    await page.inAct(() => page!.pushers[0].channels.get(CLIENT_CHANNEL)!.emit('RequestUnqueud', { uuid: UUID }));
    const forms = document.querySelectorAll('form');
    expect(forms).toHaveLength(1);
    expect([...forms[0].querySelectorAll('input')].map((input) => `${input.name}=${input.value}`)).toEqual([
      '_method=PUT',
      `uuid=${UUID}`,
      '_token=csrf-token',
    ]);
    expect(page.submit).toHaveBeenCalledTimes(1);
  });
});

describe('page: start-up before the view (React, a file of its own)', () => {
  it('should call queue_info before the view has loaded, show the position once it has, and only then, painted, open the realtime connection', async () => {
    let arrive!: () => void;
    page = await load({ holdPaint: true, view: () => new Promise<MountView>((resolve) => (arrive = () => resolve(mountView))) });
    await page.advanceTo(1);
    expect(queueInfos()).toHaveLength(1);
    // The static loading block of the HTML stays meanwhile.
    expect(page.root().textContent).toContain('Finding your place in line…');
    await page.paint();
    expect(page.createPusher).not.toHaveBeenCalled();
    await act(async () => {
      arrive();
      await settle();
    });
    expect(page.root().textContent).toContain('Your position12');
    expect(page.createPusher).not.toHaveBeenCalled();
    await page.paint();
    expect(page.createPusher).toHaveBeenCalledTimes(1);
    await page.inAct(() => page!.pushers[0].enter('connected'));
    expect(queueInfos()).toHaveLength(2);
  });

  it('should open the realtime connection when the view fails to load, and still replay on release', async () => {
    page = await load({ view: () => Promise.reject(new Error('Failed to fetch dynamically imported module')) });
    expect(page.createPusher).toHaveBeenCalledTimes(1);
    await page.inAct(() => page!.pushers[0].enter('connected'));
    await page.inAct(() => page!.pushers[0].confirm(CLIENT_CHANNEL));
    await page.inAct(() => page!.pushers[0].channels.get(CLIENT_CHANNEL)!.emit('RequestUnqueud', { uuid: UUID }));
    expect(page.location.reload).toHaveBeenCalledTimes(1);
  });

  it('should open the realtime connection when the first queue_info fails, and poll at connected', async () => {
    page = await load({ queueInfo: () => ({ status: 503, body: {} }) });
    await page.advanceTo(1);
    expect(queueInfos()).toHaveLength(1);
    expect(page.root().textContent).toContain('Finding your place in line…');
    expect(page.createPusher).toHaveBeenCalledTimes(1);
    await page.inAct(() => page!.pushers[0].enter('connected'));
    expect(queueInfos()).toHaveLength(2);
  });

  it('should report the connection lost and leave 30 s after the realtime client failed to load', async () => {
    page = await load({ loadPusher: () => Promise.reject(new Error('Failed to fetch dynamically imported module')) });
    await page.advanceTo(1);
    expect(page.root().textContent).toContain('Your position12');
    await page.advanceTo(29_999);
    expect(page.reports).toEqual([]);
    await page.advanceTo(30_000);
    expect(page.reports).toEqual(['Websoket KO - unavailable']);
    await page.advanceTo(32_000);
    expect(page.history.back).toHaveBeenCalledTimes(1);
  });

  it('should ask queue_info at once and show the position while the realtime connection still opens, then poll again at connected', async () => {
    page = await load();
    await page.advanceTo(1);
    expect(page.pushers[0].connection.state).not.toBe('connected');
    expect(queueInfos()).toHaveLength(1);
    expect(page.root().textContent).toContain('Your position12');
    await page.inAct(() => page!.pushers[0].enter('connected'));
    expect(queueInfos()).toHaveLength(2);
  });

  it('should ask queue_info once when the visitor comes back to the page (resume, visible, online), 250 ms after the last signal', async () => {
    page = await load();
    await page.inAct(() => page!.pushers[0].enter('connected'));
    await page.advanceTo(1_000);
    const before = queueInfos().length;
    await page.inAct(() => {
      document.dispatchEvent(new Event('resume'));
      document.dispatchEvent(new Event('visibilitychange'));
      window.dispatchEvent(new Event('online'));
    });
    await page.advanceTo(1_249);
    expect(queueInfos()).toHaveLength(before);
    await page.advanceTo(1_250);
    expect(queueInfos()).toHaveLength(before + 1);
    await page.advanceTo(5_000);
    expect(queueInfos()).toHaveLength(before + 1);
  });

  it('should not ask queue_info before the connection while the place waits for its bot check', async () => {
    const altcha = { parameters: { algorithm: 'SCRYPT', nonce: 'aa', salt: 'bb', cost: 1024, keyLength: 32, keyPrefix: 'cc', memoryCost: 8 }, signature: 'dd' };
    page = await load({ config: validConfig({ altcha }) });
    await page.advanceTo(1);
    expect(queueInfos()).toHaveLength(0);
  });

  it('should report a view that cannot load, keep the loading block, and still replay on release', async () => {
    page = await load({ view: () => Promise.reject(new Error('Failed to fetch dynamically imported module')) });
    await page.inAct(() => page!.pushers[0].enter('connected'));
    expect(page.reports).toEqual(['Waiting room view could not load: Failed to fetch dynamically imported module']);
    expect(page.root().textContent).toContain('Finding your place in line…');
    await page.inAct(() => page!.pushers[0].channels.get(CLIENT_CHANNEL)!.emit('RequestUnqueud', { uuid: UUID }));
    expect(page.location.reload).toHaveBeenCalledTimes(1);
  });
});

describe('page: what the position does not need, fetched once it shows', () => {
  it('should load the error-reporting SDK once the position shows and the page has painted it', async () => {
    let answer: FakeAnswer = FAILED;
    page = await load({ holdPaint: true, queueInfo: () => answer });
    await page.paint();
    expect(page.loadReporter).not.toHaveBeenCalled();
    answer = { body: { position: 12, estimated: 4 } };
    await page.inAct(() => page!.pushers[0].enter('connected'));
    expect(page.root().textContent).toContain('Your position12');
    expect(page.loadReporter).not.toHaveBeenCalled();
    await page.paint();
    expect(page.loadReporter).toHaveBeenCalledTimes(1);
  });

  it('should load the error-reporting SDK, the replay code and the controls only once the view shows the position, when the answer came first', async () => {
    let arrive!: () => void;
    page = await load({ holdPaint: true, view: () => new Promise<MountView>((resolve) => (arrive = () => resolve(mountView))) });
    await page.advanceTo(1);
    await page.paint();
    expect(page.root().textContent).toContain('Finding your place in line…');
    expect(page.loadReporter).not.toHaveBeenCalled();
    expect(page.loadReplay).not.toHaveBeenCalled();
    await act(async () => {
      arrive();
      await settle();
    });
    expect(page.root().textContent).toContain('Your position12');
    expect(page.loadReporter).not.toHaveBeenCalled();
    await page.paint();
    expect(page.loadReporter).toHaveBeenCalledTimes(1);
    expect(page.loadReplay).toHaveBeenCalledTimes(1);
    expect(page.loadControls).toHaveBeenCalledTimes(1);
  });

  it('should fetch the replay code once the position shows and the page has painted it, before any release', async () => {
    let answer: FakeAnswer = FAILED;
    page = await load({ holdPaint: true, queueInfo: () => answer });
    await page.paint();
    answer = { body: { position: 12, estimated: 4 } };
    await page.inAct(() => page!.pushers[0].enter('connected'));
    expect(page.loadReplay).not.toHaveBeenCalled();
    await page.paint();
    expect(page.loadReplay).toHaveBeenCalledTimes(1);
    await page.inAct(() => page!.pushers[0].channels.get(CLIENT_CHANNEL)!.emit('RequestUnqueud', { uuid: UUID }));
    expect(page.location.reload).toHaveBeenCalledTimes(1);
    expect(page.loadReplay).toHaveBeenCalledTimes(1);
  });

  it('should replay a release that comes before the position shows, once, with one load', async () => {
    page = await load({ holdPaint: true, queueInfo: () => ({ status: 503, body: {} }) });
    // The view has arrived: its paint opens the connection; the position never showed.
    await page.paint();
    await page.inAct(() => page!.pushers[0].enter('connected'));
    expect(page.loadReplay).not.toHaveBeenCalled();
    await page.inAct(() => page!.pushers[0].channels.get(CLIENT_CHANNEL)!.emit('RequestUnqueud', { uuid: UUID }));
    expect(page.location.reload).toHaveBeenCalledTimes(1);
    await page.paint();
    expect(page.location.reload).toHaveBeenCalledTimes(1);
    expect(page.loadReplay).toHaveBeenCalledTimes(1);
  });

  it('should load the replay code again on release when the prefetch failed, and replay', async () => {
    page = await load({ holdPaint: true });
    page.loadReplay.mockRejectedValueOnce(new Error('Failed to fetch dynamically imported module'));
    await page.advanceTo(1);
    await page.paint();
    await page.inAct(() => page!.pushers[0].enter('connected'));
    await page.paint();
    expect(page.loadReplay).toHaveBeenCalledTimes(1);
    await page.inAct(() => page!.pushers[0].channels.get(CLIENT_CHANNEL)!.emit('RequestUnqueud', { uuid: UUID }));
    expect(page.loadReplay).toHaveBeenCalledTimes(2);
    expect(page.location.reload).toHaveBeenCalledTimes(1);
    expect(page.reports).toEqual([]);
  });

  it('should not fetch it when there is nothing to replay', async () => {
    const config = validConfig();
    config.queue.uri = null;
    page = await load({ config });
    expect(page.loadReplay).not.toHaveBeenCalled();
  });
});

describe('page: no pending request URI', () => {
  it.each([['//evil.example/steal'], ['javascript:alert(1)'], [null]])('should leave for the pending URI %p: back at once, the root 3 s later', async (uri) => {
    const config = validConfig();
    config.queue.uri = uri;
    page = await load({ config });
    expect(page.history.back).toHaveBeenCalledTimes(1);
    expect(page.createPusher).not.toHaveBeenCalled();
    await page.advanceTo(3000);
    expect(page.location.assign).toHaveBeenCalledWith('/');
  });
});

describe('page: a malformed config', () => {
  it.each([
    ['the empty placeholder', {}, 'queue.uuid must be'],
    ['text that is not JSON', '{"queue":', 'is not valid JSON'],
    ['an unknown method', validConfig({ queue: { ...validConfig().queue, method: 'BREW' } }), 'queue.method must be one of'],
  ])('should show a readable message for %s, report it, and start nothing', async (_, config, problem) => {
    page = await load({ config });
    const alert = document.querySelector('[role="alert"]')!;
    expect(alert.querySelector('h1')!.textContent).toBe('This waiting room could not start.');
    expect(alert.textContent).toContain(problem);
    expect(page.consoleError).toHaveBeenCalledWith('[waiting-room]', expect.stringContaining(`Waiting room config invalid: `));
    expect(page.createPusher).not.toHaveBeenCalled();
    expect(page.calls).toEqual([]);
  });

  it("should show the config problem in the config's language when that part of it is sound", async () => {
    page = await load({ config: { language: languageOf('fr') }, language: 'en-US' });
    const alert = document.querySelector('[role="alert"]')!;
    expect(alert.querySelector('h1')!.textContent).toBe("Cette salle d'attente n'a pas pu démarrer.");
    expect(alert.querySelector('p')!.textContent).toBe("Veuillez réessayer dans quelques minutes. Détails pour l'équipe du site :");
    expect(alert.querySelectorAll('li').length).toBeGreaterThan(1);
  });

  it('should load the config-problem view only for a malformed config', async () => {
    page = await load();
    expect(page.loadConfigProblem).not.toHaveBeenCalled();
    act(() => page!.stop());
    page = await load({ config: {} });
    expect(page.loadConfigProblem).toHaveBeenCalledTimes(1);
  });

  it('should report a config-problem view that cannot be loaded, after the config problem itself', async () => {
    const configProblem = () => Promise.reject(new Error('Failed to fetch dynamically imported module'));
    page = await load({ config: validConfig({ csrfToken: '' }), holdPaint: true, configProblem });
    await page.paint();
    expect(page.reports).toEqual([
      'Waiting room config invalid: csrfToken must be a non-empty string',
      'Waiting room config problem view could not load: Failed to fetch dynamically imported module',
    ]);
    expect(document.querySelector('[role="alert"]')).toBeNull();
  });

  it('should render nothing once stopped, even if the config-problem view arrives afterwards', async () => {
    let arrive!: () => void;
    const configProblem = () => new Promise<ConfigProblemView>((resolve) => (arrive = () => resolve(configProblemView)));
    page = await load({ config: {}, configProblem });
    act(() => page!.stop());
    await act(async () => {
      arrive();
      await settle();
    });
    expect(document.querySelector('[role="alert"]')).toBeNull();
    expect(page.consoleError).not.toHaveBeenCalledWith(expect.anything(), expect.stringContaining('could not load'));
  });

  it('should send the config problem to the error-reporting service when the DSN could be read', async () => {
    page = await load({ config: validConfig({ csrfToken: '' }) });
    expect(page.reports).toEqual(['Waiting room config invalid: csrfToken must be a non-empty string']);
  });
});

describe('page: the visitor picks another language (beyond the specification)', () => {
  const switching = (locale: string) => (url: string) => (url === `/queue/language/${locale}` ? { body: languageOf(locale as 'ar') } : undefined);

  it('should offer the languages once the page has painted, and switch in place: no reload, the same connection and place', async () => {
    page = await load({ config: validConfig({ language: languageOf('en') }), holdPaint: true, other: switching('ar') });
    expect(document.querySelector('select')).toBeNull();
    expect(page.loadControls).not.toHaveBeenCalled();
    await page.advanceTo(1);
    await page.paint();
    await page.inAct(() => page!.pushers[0].enter('connected'));
    await page.inAct(() => page!.pushers[0].confirm(CLIENT_CHANNEL));
    await page.paint();
    const select = document.querySelector('select')!;
    expect(document.querySelector(`label[for="${select.id}"]`)!.textContent).toBe('Language');
    expect([...select.options].map((option) => option.lang)).toEqual(LOCALES);
    expect(select.value).toBe('en');
    const requestsBefore = queueRequests().length;

    await act(async () => {
      select.value = 'ar';
      select.dispatchEvent(new Event('change', { bubbles: true }));
      await settle(20);
    });

    expect(page.calls.map((call) => call.url)).toContain('/queue/language/ar');
    expect(page.root().textContent).toContain('ترتيبك');
    expect(document.title).toBe(`رقم ${new Intl.NumberFormat('ar').format(12)} · غرفة الانتظار`);
    expect(document.documentElement.lang).toBe('ar');
    expect(document.documentElement.dir).toBe('rtl');
    expect(document.cookie).toContain('wr_locale=ar');
    expect((document.querySelector('select') as HTMLSelectElement).value).toBe('ar');
    expect(page.createPusher).toHaveBeenCalledTimes(1);
    expect(queueRequests()).toHaveLength(requestsBefore);
    expect(page.location.assign).not.toHaveBeenCalled();
    expect(page.location.reload).not.toHaveBeenCalled();
    document.cookie = 'wr_locale=; max-age=0; path=/';
  });

  it('should keep the language shown and report when the other cannot be had', async () => {
    page = await load({
      config: validConfig({ language: languageOf('en') }),
      other: (url) => (url.startsWith('/queue/language/') ? { status: 404, body: { error: { code: 'unknown_locale' } } } : undefined),
    });
    await page.inAct(() => page!.pushers[0].enter('connected'));
    const select = document.querySelector('select')!;
    await act(async () => {
      select.value = 'ja';
      select.dispatchEvent(new Event('change', { bubbles: true }));
      await settle(20);
    });
    expect(page.root().textContent).toContain('Your position');
    expect(document.documentElement.lang).not.toBe('ja');
    expect(page.reports).toEqual([expect.stringContaining('Waiting room language ja could not load')]);
  });

  it('should offer no choice from a server that offers none', async () => {
    page = await load({ config: validConfig({ language: { ...languageOf('de'), choices: undefined } }) });
    await page.inAct(() => page!.pushers[0].enter('connected'));
    expect(page.root().textContent).toContain('Ihre Position');
    expect(document.querySelector('select')).toBeNull();
  });
});

describe('page: "tell me when it is my turn" (beyond the specification)', () => {
  /** A browser's notifications: the permission asked, and each notification shown. */
  function fakeNotifications(permission: NotificationPermission) {
    const shown: Array<{ title: string; options: NotificationOptions }> = [];
    const requestPermission = jest.fn(async () => permission);
    const Notification = Object.assign(
      function (this: unknown, title: string, options: NotificationOptions) {
        shown.push({ title, options });
      },
      { requestPermission, permission: 'default' },
    );
    return { shown, requestPermission, windowExtras: { Notification } };
  }
  const press = (name: string) =>
    act(async () => {
      (screen().find((button) => button.textContent === name) as HTMLButtonElement).click();
      await settle(20);
    });
  const screen = () => [...document.querySelectorAll('button')];

  it('should ask nothing until pressed, then tell at place 3 or less and at the release, before the replay', async () => {
    const notifications = fakeNotifications('granted');
    let position = 5;
    page = await load({
      windowExtras: notifications.windowExtras,
      config: validConfig({ language: languageOf('en') }),
      queueInfo: () => ({ body: { position, estimated: 2 } }),
    });
    await page.inAct(() => page!.pushers[0].enter('connected'));
    await page.inAct(() => page!.pushers[0].confirm(CLIENT_CHANNEL));
    expect(notifications.requestPermission).not.toHaveBeenCalled();

    await press('Tell me when it is my turn');
    expect(notifications.requestPermission).toHaveBeenCalledTimes(1);
    expect(page.root().textContent).toContain('You will get a notification when your turn is near.');
    expect(notifications.shown).toEqual([]);

    position = 3;
    await page.advanceTo(5000);
    position = 2;
    await page.advanceTo(10000);
    expect(notifications.shown).toEqual([
      { title: 'Your turn is near', options: { body: 'You are number 3 in line.', lang: 'en', dir: 'ltr', tag: 'waiting-room-turn' } },
    ]);

    const replayed: string[] = [];
    // The held address is this page's own: the replay reloads it.
    page.location.reload.mockImplementation(() => replayed.push(`replay after ${notifications.shown.length} notifications`));
    await page.inAct(() => page!.pushers[0].channels.get(CLIENT_CHANNEL)!.emit('RequestUnqueud', { uuid: UUID }));
    expect(notifications.shown[1]).toEqual({ title: 'It is your turn!', options: expect.objectContaining({ body: 'Taking you to your page now.' }) });
    expect(notifications.shown).toHaveLength(2);
    expect(replayed).toEqual(['replay after 2 notifications']);
  });

  it('should show nothing without the press, even where the browser already allows notifications', async () => {
    const notifications = fakeNotifications('granted');
    let position = 3;
    page = await load({ windowExtras: notifications.windowExtras, queueInfo: () => ({ body: { position, estimated: 1 } }) });
    await page.inAct(() => page!.pushers[0].enter('connected'));
    await page.inAct(() => page!.pushers[0].confirm(CLIENT_CHANNEL));
    position = 1;
    await page.advanceTo(5000);
    await page.inAct(() => page!.pushers[0].channels.get(CLIENT_CHANNEL)!.emit('RequestUnqueud', { uuid: UUID }));
    expect(notifications.requestPermission).not.toHaveBeenCalled();
    expect(notifications.shown).toEqual([]);
    expect(page.location.reload).toHaveBeenCalledTimes(1);
  });

  it('should say so when the browser blocks notifications, and offer no button where there are none', async () => {
    const notifications = fakeNotifications('denied');
    page = await load({ windowExtras: notifications.windowExtras });
    await page.inAct(() => page!.pushers[0].enter('connected'));
    await press('Tell me when it is my turn');
    expect(page.root().textContent).toContain('Notifications are blocked in this browser.');
    act(() => page!.stop());
    page = await load();
    await page.inAct(() => page!.pushers[0].enter('connected'));
    // The code form's button stays: it needs no notifications.
    expect(screen().filter((button) => button.textContent == 'Tell me when it is my turn')).toEqual([]);
    expect(screen().map((button) => button.textContent)).toEqual(['Use code']);
  });
});

describe("page: a scheduled event's pre-queue (beyond the specification)", () => {
  const EVENT = { id: 'spring-drop-1a2b3c', name: 'Spring drop', opensAt: '2030-05-01T10:00:00.000Z', shuffle: true, commitment: 'ab'.repeat(32) };
  const EVENT_CHANNEL = 'App.Event.spring-drop-1a2b3c';

  it('should show the pre-queue instead of a position, and at the opening ask for the position once, then show it with the way to verify the draw', async () => {
    let answer: FakeAnswer = { body: { position: 40, estimated: 9, opensIn: 600_000 } };
    page = await load({ config: validConfig({ event: EVENT }), queueInfo: () => answer });
    // The countdown's first tick, on the page's scheduler: the pre-queue shows, the connection opens.
    await page.advanceTo(1);
    await page.inAct(() => page!.pushers[0].enter('connected'));
    await page.inAct(() => page!.pushers[0].confirm(CLIENT_CHANNEL));
    expect(page.root().textContent).toContain('You are in');
    expect(page.root().textContent).toContain('Spring drop');
    expect(page.root().textContent).not.toContain('Your position');
    expect(page.pushers[0].subscribeCalls).toContain(EVENT_CHANNEL);

    const polls = queueInfos().length;
    answer = { body: { position: 3, estimated: 2 } };
    await page.inAct(() => page!.pushers[0].channels.get(EVENT_CHANNEL)!.emit('QueueOpened', { spread: 0 }));
    expect(queueInfos()).toHaveLength(polls + 1);
    expect(page.root().textContent).toContain('Your position3');
    expect(page.root().querySelector('.wr-verify a')?.getAttribute('href')).toBe(
      `/events/spring-drop-1a2b3c/verify#uuid=0b7c5b2e-1f7d-4d8e-9a3c-2f1e6b7a9c10&commitment=${EVENT.commitment}`,
    );
  });

  it('should join no event channel, and load no event view, without an event in its config', async () => {
    page = await load();
    await page.inAct(() => page!.pushers[0].enter('connected'));
    expect(page.pushers[0].subscribeCalls.filter((name) => name.startsWith('App.Event.'))).toEqual([]);
  });
});
