// The consumer test's single-page app: the README's heldFetch, on the window for the test to call.
import { heldFetch } from './held-fetch.js';

const solve = async () => Promise.reject(new Error('no bot check in this room'));
Object.assign(globalThis, { heldFetch: (url: string, init: RequestInit) => heldFetch(url, init, solve) });
