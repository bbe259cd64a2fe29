import type Redis from 'ioredis';
import type { AdmissionRecord, AdmissionStore } from './record';
import { KEPT_STEPS } from './record';
import type { SignalCounts } from './signals';

/**
 * Adds field/value pairs to a step's counts, and lets the counts expire once no window reads
 * them. KEYS: the step's hash. ARGV: its time to live (ms), then field, value, field, value…
 */
const REPORT = `
for i = 2, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`;

/**
 * Writes the record only over the version read. KEYS: the record's hash (v: version, s: the
 * record as JSON). ARGV: the version read, the next record. Returns 1 when written.
 */
const WRITE = `
local version = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if version ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'v', version + 1, 's', ARGV[2])
return 1
`;

type Scripted = Redis & {
  waitingRoomAdmissionReport(key: string, ...args: string[]): Promise<number>;
  waitingRoomAdmissionWrite(key: string, version: string, record: string): Promise<number>;
};

/**
 * A room's decision in Redis, shared by every instance on it: the record under `<prefix>adm`, each
 * step's counts under `<prefix>adm:c:<step>`, added to by each instance (HINCRBY), kept for a few
 * steps. The record is written by compare-and-set in one script, so one decision stands per step.
 * The client is the caller's (`connectRedis`), shared by the rooms of a process.
 */
export class RedisAdmissionStore implements AdmissionStore {
  private readonly client: Scripted;
  private readonly recordKey: string;

  constructor(
    client: Redis,
    private readonly prefix: string,
    private readonly stepMs: number,
  ) {
    if (!('waitingRoomAdmissionReport' in client)) {
      client.defineCommand('waitingRoomAdmissionReport', { lua: REPORT, numberOfKeys: 1 });
      client.defineCommand('waitingRoomAdmissionWrite', { lua: WRITE, numberOfKeys: 1 });
    }
    this.client = client as Scripted;
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
    const replies = (await pipeline.exec()) ?? [];
    return replies.map(([error, fields]) => {
      if (error) throw error;
      return countsOf(fields as Record<string, string>);
    });
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
