import { MemoryStore } from '../../server/store/memory';
import { describeQueueStore } from './store-contract';

describeQueueStore('memory', async () => new MemoryStore());
