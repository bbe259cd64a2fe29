import { DIGEST_PATTERN, EVENT_ROUTES, isUuid, verifyDraw, type DrawRecord, type DrawVerdict } from '@waiting-room/streams/contract';
import { shellQuoted } from './shell';
import type { VerifyTexts } from './texts';

/** What the page was opened with: the event (from its path) and, in the fragment, the visitor's uuid and the commitment their page was given. */
export interface VerifyRequest {
  readonly event: string;
  readonly uuid?: string;
  readonly commitment?: string;
}

/**
 * Reads the event from `/events/{id}/verify` and the rest from the fragment (which no server sees).
 * Anyone can write a link, so a uuid or a commitment that is not one (`UUID_PATTERN`, 64 hex
 * digits) counts as absent: the page never shows a link's own words, in a message or a command.
 */
export function verifyRequestOf(location: Pick<Location, 'pathname' | 'hash'>): VerifyRequest {
  const event = decodeURIComponent(/^\/events\/([^/]+)\/verify$/.exec(location.pathname)?.[1] ?? '');
  const fragment = new URLSearchParams(location.hash.slice(1));
  const uuid = fragment.get('uuid');
  const commitment = fragment.get('commitment');
  return {
    event,
    ...(isUuid(uuid) && { uuid }),
    ...(commitment !== null && DIGEST_PATTERN.test(commitment) && { commitment }),
  };
}

/** The command that runs the same check from a terminal, one quoted word for its address. */
export function verifyCommandOf(request: VerifyRequest, origin: string): string {
  const fragment = new URLSearchParams({
    ...(request.uuid && { uuid: request.uuid }),
    ...(request.commitment && { commitment: request.commitment }),
  }).toString();
  const address = `${origin}${EVENT_ROUTES.verify.replace('{id}', encodeURIComponent(request.event))}${fragment ? `#${fragment}` : ''}`;
  return `npx waiting-room verify-draw ${shellQuoted(address)}`;
}

/** What the page shows, in order, as it learns it. */
export type VerifyOutcome =
  | { readonly kind: 'unavailable'; readonly status: number }
  | { readonly kind: 'pending'; readonly record: DrawRecord }
  | { readonly kind: 'checking'; readonly record: DrawRecord }
  | { readonly kind: 'checked'; readonly record: DrawRecord; readonly verdict: DrawVerdict };

/**
 * Reads the event's draw from this server and checks it with Web Crypto (`verifyDraw`), telling
 * `show` each step: the draw read (and being checked), then the verdict.
 */
export async function checkDraw(request: VerifyRequest, fetchDraw: (url: string) => Promise<Response>, show: (outcome: VerifyOutcome) => void): Promise<void> {
  const response = await fetchDraw(EVENT_ROUTES.draw.replace('{id}', encodeURIComponent(request.event))).catch(() => undefined);
  const record = response?.ok ? ((await response.json().catch(() => null)) as DrawRecord | null) : null;
  if (!record) return show({ kind: 'unavailable', status: response?.status ?? 0 });
  if (record.seed === undefined) return show({ kind: 'pending', record });
  show({ kind: 'checking', record });
  show({ kind: 'checked', record, verdict: await verifyDraw(record, { uuid: request.uuid, commitment: request.commitment }) });
}

/** Renders `outcome` into `root` with plain DOM: no framework, nothing loaded but this page's one script. */
export function renderOutcome(root: HTMLElement, outcome: VerifyOutcome, request: VerifyRequest, texts: VerifyTexts, origin: string): void {
  const doc = root.ownerDocument;
  const element = (tag: string, text?: string, className?: string): HTMLElement => {
    const node = doc.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (className) node.className = className;
    return node;
  };
  const section = element('section', undefined, 'wr-block wr-verify-page');
  section.setAttribute('role', 'status');
  const { t } = texts;
  section.append(element('h1', t('verify.title')));
  if (outcome.kind == 'unavailable') {
    section.append(element('p', t('verify.unavailable', { status: String(outcome.status) })));
    root.replaceChildren(section);
    return;
  }
  const { record } = outcome;
  if (record.name) section.append(element('p', record.name));
  if (outcome.kind == 'pending') section.append(element('p', t('verify.pending')));
  if (outcome.kind == 'checking') section.append(element('p', t('verify.checking')));
  if (outcome.kind == 'checked') {
    const { verdict } = outcome;
    section.append(element('p', t(verdict.ok ? 'verify.ok' : 'verify.failed'), verdict.ok ? 'wr-verified' : 'wr-refuted'));
    if (!verdict.ok) {
      const list = element('ul', undefined, 'wr-problems');
      for (const { code, values } of verdict.problems) list.append(element('li', t(`verify.problem.${code}`, values)));
      section.append(list);
    }
    if (verdict.rank !== null) section.append(element('p', t('verify.rank', { rank: verdict.rank, entrants: verdict.entrants }), 'wr-rank'));
    else if (!request.uuid) section.append(element('p', t('verify.noUuid'), 'wr-hint'));
  }
  const facts = element('dl', undefined, 'wr-facts');
  const fact = (term: string, value: string) => facts.append(element('dt', term), element('dd', value));
  fact(t('verify.entrants'), new Intl.NumberFormat(texts.lang).format(record.entrants));
  fact(t('verify.commitment'), record.commitment);
  if (record.seed) fact(t('verify.seed'), record.seed);
  if (outcome.kind == 'checked' && outcome.verdict.ticket) fact(t('verify.ticket'), outcome.verdict.ticket);
  section.append(facts, element('p', t('verify.proves'), 'wr-hint'), element('p', t('verify.cannot'), 'wr-hint'));
  section.append(element('p', t('verify.command'), 'wr-hint'), element('code', verifyCommandOf(request, origin), 'wr-command'));
  root.replaceChildren(section);
}
