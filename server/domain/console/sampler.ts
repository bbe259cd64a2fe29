import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger';
import type { Clock } from '../clock';
import { estimateMinutes } from '../estimate';
import type { Room } from '../rooms';
import { HISTORY_LENGTH, SAMPLE_MS, type AdmissionState, type InstanceCounts, type RoomSample, type Sample } from './samples';

export interface SamplerOptions {
  readonly rooms: readonly Room[];
  readonly clock: Clock;
  readonly log: Logger;
  /** What this instance counted since it started; each sample carries the growth since the last. */
  readonly counts: () => InstanceCounts;
  /** Sends a sample to the consoles listening (the admin channel). */
  readonly publish: (sample: Sample) => Promise<void>;
  /** A room's adaptive admission state, when it has one. */
  readonly admission?: (room: Room) => AdmissionState | undefined;
}

/**
 * Takes a sample of every room every `SAMPLE_MS` and pushes it to the consoles, keeping the
 * last hour for a console that opens (`GET /admin/live`). A sample costs each room two store
 * reads (stats, and the release times for the estimate), whatever the number of consoles.
 */
export class Sampler {
  readonly instance = randomUUID();
  private readonly samples: Sample[] = [];
  private last: InstanceCounts;
  private stop?: () => void;

  constructor(private readonly options: SamplerOptions) {
    this.last = options.counts();
  }

  /** The samples kept, oldest first. */
  history(): readonly Sample[] {
    return [...this.samples];
  }

  start(): void {
    this.stop ??= this.options.clock.every(SAMPLE_MS, () =>
      this.sample().then(
        (sample) => this.options.publish(sample).catch((error: unknown) => this.options.log.debug({ err: error }, 'console sample not published')),
        (error: unknown) => this.options.log.debug({ err: error }, 'console sample not taken'),
      ),
    );
  }

  close(): void {
    this.stop?.();
  }

  /** Takes one sample now and keeps it. */
  async sample(): Promise<Sample> {
    const now = this.options.clock.now();
    const rooms = await Promise.all(this.options.rooms.map((room) => this.roomSample(room, now)));
    const counts = this.options.counts();
    const last = this.last;
    this.last = counts;
    const sample: Sample = {
      t: Math.floor(now / SAMPLE_MS) * SAMPLE_MS,
      instance: this.instance,
      rooms,
      local: {
        pageErrors: counts.pageErrors - last.pageErrors,
        originRequests: counts.originRequests - last.originRequests,
        originErrors: counts.originErrors - last.originErrors,
        originMs: Math.round(counts.originMs - last.originMs),
        revoked: counts.revoked - last.revoked,
      },
    };
    this.samples.push(sample);
    if (this.samples.length > HISTORY_LENGTH) this.samples.splice(0, this.samples.length - HISTORY_LENGTH);
    return sample;
  }

  private async roomSample(room: Room, now: number): Promise<RoomSample> {
    const [stats, recent, codes] = await Promise.all([room.store.stats(now), room.store.recentReleases(), room.store.codeCounts()]);
    const { policy } = room.releases;
    const limitOverrides = room.operator.overrides;
    const admission = this.options.admission?.(room);
    return {
      room: room.name,
      waiting: stats.waiting,
      active: stats.active,
      released: stats.released,
      arrived: stats.arrived,
      paused: stats.paused,
      activeLimit: policy.activeLimit,
      perMinute: policy.perMinute,
      operatorSet: { activeLimit: limitOverrides.activeLimit !== undefined, perMinute: limitOverrides.perMinute !== undefined },
      estimate: estimateMinutes(stats.waiting + 1, recent.times, now, policy.perMinute, policy),
      codes,
      ...(admission ? { admission } : {}),
    };
  }
}
