import { describeNodeDoor } from './node-door';
import { startFastifySite } from './node-sites';

/** A real Fastify 5 server with the connector. */
describeNodeDoor('fastify', 'Fastify', startFastifySite);
