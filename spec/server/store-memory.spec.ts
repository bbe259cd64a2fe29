import { MemoryStore } from '../../server/store/memory';
import { describeQueueStore } from './store-contract';
import { describeReportStore } from './store-report-contract';
import { describeHandoffStore } from './store-handoff-contract';
import { describeEventStore } from './store-events-contract';

describeQueueStore('memory', async () => new MemoryStore());
describeEventStore('memory', async () => new MemoryStore());
describeReportStore('memory', async () => new MemoryStore());
describeHandoffStore('memory', async () => new MemoryStore());
