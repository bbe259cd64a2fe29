/** The environment's declaration lives in server/config/; these names stay importable from here. */
export * from '../config/environment';
