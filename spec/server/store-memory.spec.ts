import { MemoryStore } from '../../server/store/memory';
import { describeQueueStore } from './store-contract';
import { describeReportStore } from './store-report-contract';
import { describeEventStore } from './store-events-contract';

describeQueueStore('memory', async () => new MemoryStore());
describeEventStore('memory', async () => new MemoryStore());
describeReportStore('memory', async () => new MemoryStore());
