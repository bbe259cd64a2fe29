export { createConnector, PASS_COOKIE, PASS_PARAMETER, VISITOR_COOKIE } from './connector.js';
export type { Admission, Connector, ConnectorAnswer, ConnectorOptions, ConnectorRequest, Decision, UrlRequest } from './connector.js';
export { PASS_ISSUER, PASS_SECRET_MIN_LENGTH, signPass, verifyPass } from './pass.js';
export type { Pass } from './pass.js';
export { createWebConnector, toResponse } from './web.js';
export type { WebConnector } from './web.js';
export { REVOKED_ROUTE, signFeedToken, verifyFeedToken } from './revocations.js';
export type { RevocationFeed, RevocationFeedOptions } from './revocations.js';
