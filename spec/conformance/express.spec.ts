import { describeNodeDoor } from './node-door';
import { startExpressSite } from './node-sites';

/** A real Express 5 server with the connector. */
describeNodeDoor('express', 'Express', startExpressSite);
