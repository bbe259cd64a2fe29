import type { QueueStore, Release } from '../../server/store/types';

/**
 * A queue store that remembers when each visitor's release was decided (the entry's
 * `releasedAt`, read from the store's own answer), so that release-to-delivery latency can be
 * measured from the decision, not from the moment the event was published.
 */
export class RecordingStore implements QueueStore {
  /** uuid → release time (ms since the epoch), in release order. */
  readonly releasedAt = new Map<string, number>();
  /**
   * The `served` of each step that tells the pages the line moved (`Release.moved`: what its
   * `QueueMoved` carries) → when it was decided, to measure the move's delivery from the same
   * decision. With several instances, a batch whose move a step of another instance told less than
   * a second before waits for the next step's move by design: it is not counted as a move of its own.
   */
  readonly batchDecidedAt = new Map<number, number>();

  constructor(private readonly inner: QueueStore) {}

  admit: QueueStore['admit'] = (...args) => this.inner.admit(...args);
  revoke: QueueStore['revoke'] = (...args) => this.inner.revoke(...args);
  revocations: QueueStore['revocations'] = (...args) => this.inner.revocations(...args);
  admittedUntil: QueueStore['admittedUntil'] = (...args) => this.inner.admittedUntil(...args);
  hold: QueueStore['hold'] = (...args) => this.inner.hold(...args);
  arrive: QueueStore['arrive'] = (...args) => this.inner.arrive(...args);
  enterLine: QueueStore['enterLine'] = (...args) => this.inner.enterLine(...args);
  dropPending: QueueStore['dropPending'] = (...args) => this.inner.dropPending(...args);
  get: QueueStore['get'] = (...args) => this.inner.get(...args);
  placeInLine: QueueStore['placeInLine'] = (...args) => this.inner.placeInLine(...args);
  position: QueueStore['position'] = (...args) => this.inner.position(...args);
  recentReleases: QueueStore['recentReleases'] = () => this.inner.recentReleases();
  touch: QueueStore['touch'] = (...args) => this.inner.touch(...args);
  takeHeld: QueueStore['takeHeld'] = (...args) => this.inner.takeHeld(...args);
  moveSession: QueueStore['moveSession'] = (...args) => this.inner.moveSession(...args);
  offerHandoff: QueueStore['offerHandoff'] = (...args) => this.inner.offerHandoff(...args);
  takeHandoff: QueueStore['takeHandoff'] = (...args) => this.inner.takeHandoff(...args);
  movedAway: QueueStore['movedAway'] = (...args) => this.inner.movedAway(...args);
  stats: QueueStore['stats'] = (...args) => this.inner.stats(...args);
  addCodes: QueueStore['addCodes'] = (...args) => this.inner.addCodes(...args);
  useCode: QueueStore['useCode'] = (...args) => this.inner.useCode(...args);
  codeCounts: QueueStore['codeCounts'] = () => this.inner.codeCounts();
  setPaused: QueueStore['setPaused'] = (...args) => this.inner.setPaused(...args);
  limits: QueueStore['limits'] = () => this.inner.limits();
  setLimits: QueueStore['setLimits'] = (...args) => this.inner.setLimits(...args);
  challengeDifficulty: QueueStore['challengeDifficulty'] = () => this.inner.challengeDifficulty();
  setChallengeDifficulty: QueueStore['setChallengeDifficulty'] = (...args) => this.inner.setChallengeDifficulty(...args);
  message: QueueStore['message'] = () => this.inner.message();
  setMessage: QueueStore['setMessage'] = (...args) => this.inner.setMessage(...args);
  close: QueueStore['close'] = () => this.inner.close();
  dropAbandoned: QueueStore['dropAbandoned'] = (...args) => this.inner.dropAbandoned(...args);
  events: QueueStore['events'] = () => this.inner.events();
  saveEvents: QueueStore['saveEvents'] = (...args) => this.inner.saveEvents(...args);
  eventState: QueueStore['eventState'] = (...args) => this.inner.eventState(...args);
  startPrequeue: QueueStore['startPrequeue'] = (...args) => this.inner.startPrequeue(...args);
  openEvent: QueueStore['openEvent'] = (...args) => this.inner.openEvent(...args);
  entrantsOf: QueueStore['entrantsOf'] = (...args) => this.inner.entrantsOf(...args);
  unkeyedEntrants: QueueStore['unkeyedEntrants'] = (...args) => this.inner.unkeyedEntrants(...args);
  addDrawKeys: QueueStore['addDrawKeys'] = (...args) => this.inner.addDrawKeys(...args);
  placeDrawn: QueueStore['placeDrawn'] = (...args) => this.inner.placeDrawn(...args);
  claimAnnouncement: QueueStore['claimAnnouncement'] = (...args) => this.inner.claimAnnouncement(...args);
  countAfter: QueueStore['countAfter'] = (...args) => this.inner.countAfter(...args);
  forgetEvent: QueueStore['forgetEvent'] = (...args) => this.inner.forgetEvent(...args);
  reportArrival: QueueStore['reportArrival'] = (...args) => this.inner.reportArrival(...args);
  reportReleases: QueueStore['reportReleases'] = (...args) => this.inner.reportReleases(...args);
  reportReplay: QueueStore['reportReplay'] = (...args) => this.inner.reportReplay(...args);
  reportCount: QueueStore['reportCount'] = (...args) => this.inner.reportCount(...args);
  reportSample: QueueStore['reportSample'] = (...args) => this.inner.reportSample(...args);
  reportRead: QueueStore['reportRead'] = (...args) => this.inner.reportRead(...args);

  release: QueueStore['release'] = async (...args) => this.record(await this.inner.release(...args));
  releaseDue: QueueStore['releaseDue'] = async (...args) => this.record(await this.inner.releaseDue(...args));

  private record(release: Release): Release {
    const { released, served, moved } = release;
    for (const entry of released) this.releasedAt.set(entry.uuid, entry.releasedAt ?? Number.NaN);
    // A step that tells a move owed may release nobody: it was decided now.
    if (moved) this.batchDecidedAt.set(served, released[0]?.releasedAt ?? Date.now());
    return release;
  }
}
