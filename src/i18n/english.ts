/**
 * English, for a server whose page config carries no language (one written before the contract
 * had it): loaded then only, from a file of its own, so that no text weighs on the page's start.
 */
import type { LanguageJson } from '@waiting-room/streams/contract';
import en from '../../locales/en.json';

export const ENGLISH: LanguageJson = { locale: 'en', dir: 'ltr', messages: en };
