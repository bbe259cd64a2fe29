import { CONFIG_ELEMENT_ID, ERROR_REPORTING, parsePageConfig, type ConfigResult } from '@waiting-room/streams/contract';

/** Reads, parses and validates `#waiting-room-config`; never throws. */
export function readPageConfig(doc: Document, origin: string): ConfigResult {
  const element = doc.getElementById(CONFIG_ELEMENT_ID);
  let raw: unknown;
  try {
    if (!element) throw new Error(`no #${CONFIG_ELEMENT_ID} element in the page`);
    raw = JSON.parse(element.textContent ?? '');
  } catch (error) {
    const problem = error instanceof SyntaxError ? `#${CONFIG_ELEMENT_ID} is not valid JSON (${error.message})` : String((error as Error).message);
    return { ok: false, problems: [problem], errorReporting: { dsn: null, ...ERROR_REPORTING } };
  }
  return parsePageConfig(raw, origin);
}
