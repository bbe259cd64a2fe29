import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from './clock';
import type { ReleasePublisher } from './publish';
import type { Entry, QueueStore, ReleasePolicy } from './store/types';

/**
 * Releases visitors from the store and tells each page. Every release goes through here:
 * the release loop, the admin API, and the re-sent event of queue_request.
 */
export class Releases {
  private publisher?: ReleasePublisher;

  constructor(
    private readonly store: QueueStore,
    private readonly clock: Clock,
    readonly policy: ReleasePolicy,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Sets how releases are announced; the embedded server's address is known only once listening. */
  usePublisher(publisher: ReleasePublisher): void {
    this.publisher = publisher;
  }

  /** The release loop's step: as many as the limits, the rate and the pause allow now. */
  async releaseDue(): Promise<Entry[]> {
    const released = await this.store.releaseDue(this.clock.now(), this.policy);
    await this.announceAll(released);
    return released;
  }

  /**
   * Releases the next `count` now, whatever the limits; `silent` publishes nothing, neither the
   * release events nor the move of the line (it stands for a lost event path).
   */
  async releaseNext(count: number, silent = false): Promise<Entry[]> {
    const released = await this.store.release(count, this.clock.now(), this.policy);
    if (!silent) await this.announceAll(released);
    return released;
  }

  /**
   * Publishes the release event for one visitor. A failure is logged, not thrown: the page
   * still learns of the release from queue_info, and queue_request sends the event again.
   */
  async announce(entry: Pick<Entry, 'uuid' | 'userId'>): Promise<boolean> {
    if (!this.publisher) {
      this.log.warn({ uuid: entry.uuid }, 'release not announced: the server is not listening yet');
      return false;
    }
    try {
      await this.publisher.publishRelease(entry);
      return true;
    } catch (error) {
      this.log.warn({ err: error, uuid: entry.uuid }, 'release event could not be published');
      return false;
    }
  }

  /**
   * Publishes the release events, then, when anyone was released, one `QueueMoved` for the whole
   * line. The released visitors come first: their replay is what waits on the event, while the
   * others only see a position sooner. Tickets leave the line in order, so the largest one released
   * is a `served` every instance agrees on (the store may have served more, dropping silent
   * visitors: a page is only ever moved up to what is certain, and the next poll tells the rest).
   */
  private async announceAll(entries: readonly Entry[]): Promise<void> {
    await Promise.all(entries.map((entry) => this.announce(entry)));
    if (entries.length > 0) await this.announceMove(entries.reduce((most, entry) => Math.max(most, entry.ticket), 0));
  }

  /** Publishes `QueueMoved`; a failure is logged, not thrown: the pages' polls still move them. */
  private async announceMove(served: number): Promise<void> {
    try {
      await this.publisher?.publishMoved(served);
    } catch (error) {
      this.log.warn({ err: error, served }, 'line move could not be published');
    }
  }
}
