import type { PageConfigJson } from '@waiting-room/streams/contract';
import { eventually } from '../../support/eventually';
import { adminRelease, sameBrowserOn, type Instance } from '../../support/scale-out';
import { Visitor } from './visitor';

/** Two gateways on one Redis before a failover: two places, the first's release heard on the second gateway. */
export interface LineBeforeFailover {
  readonly one: Instance;
  readonly two: Instance;
  readonly ada: Visitor;
  readonly adaPage: PageConfigJson;
  readonly bob: Visitor;
  readonly bobPage: PageConfigJson;
  /** `RequestUnqueud` events on Ada's channel, through the second gateway. */
  readonly received: readonly unknown[];
}

/**
 * After the primary was replaced: the places written before are kept, in order, and a new one is
 * taken; an admin release on the first gateway reaches Ada's page on the second. Answers the new
 * visitor, Cat.
 */
export async function expectLineKeptAfterFailover(line: LineBeforeFailover): Promise<{ cat: Visitor; catPage: PageConfigJson }> {
  const { one, two, ada, adaPage, bob, bobPage, received } = line;
  const cat = new Visitor(two.url);
  const catPage = await eventually(
    'a hold answered by the promoted replica',
    () => cat.hold('/checkout?item=3').catch(() => undefined),
    (page) => page !== undefined,
    20_000,
  );
  expect((await sameBrowserOn(ada, two).queueInfo(adaPage.queue.uuid)).json).toMatchObject({ position: 1 });
  expect((await bob.queueInfo(bobPage.queue.uuid)).json).toMatchObject({ position: 2 });
  expect((await cat.queueInfo(catPage!.queue.uuid)).json).toMatchObject({ position: 3 });
  await eventually(
    'an admin release on the promoted replica',
    () => adminRelease(one, 1).catch(() => []),
    (released) => released.length === 1,
    20_000,
  );
  await eventually(
    'the release event through the other gateway',
    async () => received.length,
    (n) => n === 1,
    20_000,
  );
  return { cat, catPage: catPage! };
}
