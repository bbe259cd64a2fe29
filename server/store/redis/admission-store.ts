import type { Result } from 'ioredis';
import { repliesOf, type RedisClient } from '../../redis/connection';
import { readLua } from '../../redis/lua';
import type { AdmissionRecord, AdmissionStore } from '../../domain/admission/record';
import { KEPT_STEPS } from '../../domain/admission/record';
import type { SignalCounts } from '../../domain/admission/signals';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** Adds to a step's counts (`lua/admission-report.lua`). */
    waitingRoomAdmissionReport(key: string, ttlMs: string, ...fieldsAndValues: string[]): Result<1, Context>;
    /** Writes the record over the version read: 1 when written (`lua/admission-write.lua`). */
    waitingRoomAdmissionWrite(key: string, version: string, record: string): Result<0 | 1, Context>;
  }
}

/**
 * A room's decision in Redis, shared by every instance on it: the record under `<prefix>adm`, each
 * step's counts under `<prefix>adm:c:<step>`, added to by each instance (HINCRBY), kept for a few
 * steps. The record is written by compare-and-set in one script, so one decision stands per step.
 * The client is the caller's (`connectRedis`), shared by the rooms of a process.
 */
export class RedisAdmissionStore implements AdmissionStore {
  private readonly client: RedisClient;
  private readonly recordKey: string;

  constructor(
    client: RedisClient,
    private readonly prefix: string,
    private readonly stepMs: number,
  ) {
    if (!Object.hasOwn(client, 'waitingRoomAdmissionReport')) {
      client.defineCommand('waitingRoomAdmissionReport', { lua: readLua('store/redis/lua/admission-report.lua'), numberOfKeys: 1 });
      client.defineCommand('waitingRoomAdmissionWrite', { lua: readLua('store/redis/lua/admission-write.lua'), numberOfKeys: 1 });
    }
    this.client = client;
    this.recordKey = `${prefix}adm`;
  }

  async report(step: number, counts: SignalCounts): Promise<void> {
    const fields: string[] = [];
    const add = (field: string, value: number) => {
      if (value > 0) fields.push(field, String(value));
    };
    add('s', counts.sent);
    add('n', counts.requests);
    add('e', counts.errors);
    add('t', counts.timeouts);
    add('u', counts.unreachable);
    add('l', counts.lagged);
    for (const [bucket, count] of Object.entries(counts.latency)) add(`b${bucket}`, count);
    if (fields.length === 0) return;
    await this.client.waitingRoomAdmissionReport(this.stepKey(step), String(KEPT_STEPS * this.stepMs), ...fields);
  }

  async counts(steps: readonly number[]): Promise<SignalCounts[]> {
    const pipeline = this.client.pipeline();
    for (const step of steps) pipeline.hgetall(this.stepKey(step));
    return repliesOf(await pipeline.exec()).map((fields) => countsOf(fields as Record<string, string>));
  }

  async read(): Promise<AdmissionRecord | undefined> {
    const [version, json] = await this.client.hmget(this.recordKey, 'v', 's');
    if (version === null || json === null) return undefined;
    return { ...(JSON.parse(json) as Omit<AdmissionRecord, 'version'>), version: Number(version) };
  }

  async write(version: number, next: Omit<AdmissionRecord, 'version'>): Promise<boolean> {
    const { version: _ignored, ...record } = next as AdmissionRecord;
    return (await this.client.waitingRoomAdmissionWrite(this.recordKey, String(version), JSON.stringify(record))) === 1;
  }

  private stepKey(step: number): string {
    return `${this.prefix}adm:c:${step}`;
  }
}

function countsOf(fields: Record<string, string>): SignalCounts {
  const latency: Record<number, number> = {};
  for (const [field, value] of Object.entries(fields)) {
    if (field.startsWith('b')) latency[Number(field.slice(1))] = Number(value);
  }
  const number = (field: string) => Number(fields[field] ?? 0);
  return { sent: number('s'), requests: number('n'), errors: number('e'), timeouts: number('t'), unreachable: number('u'), latency, lagged: number('l') };
}
