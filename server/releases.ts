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

  /** Releases the next `count` now, whatever the limits; `silent` publishes nothing. */
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

  private async announceAll(entries: readonly Entry[]): Promise<void> {
    await Promise.all(entries.map((entry) => this.announce(entry)));
  }
}
