import type { FastifyBaseLogger } from 'fastify';
import { DomainError, type RefusalKind } from '../../server/domain/errors';
import { errorAnswer } from '../../server/http/errors';

const log = { warn: jest.fn(), error: jest.fn() } as unknown as FastifyBaseLogger;

describe("the domain's refusals at the HTTP edge", () => {
  it.each<[RefusalKind, number]>([
    ['invalid', 400],
    ['not_found', 404],
    ['conflict', 409],
    ['busy', 503],
  ])('should answer a %s refusal with %i, its code and its message', (kind, status) => {
    const answer = errorAnswer(new DomainError(kind, 'some_code', 'What a person reads.'), log);

    expect(answer).toEqual({ status, code: 'some_code', message: 'What a person reads.', headers: {} });
  });

  it('should say when to try again after a busy refusal', () => {
    const answer = errorAnswer(new DomainError('busy', 'events_busy', 'Try again.', 1), log);

    expect(answer).toMatchObject({ status: 503, headers: { 'retry-after': '1' } });
  });

  it('should not log a refusal as an unexpected error', () => {
    errorAnswer(new DomainError('conflict', 'event_begun', 'The event has begun.'), log);

    expect(log.error).not.toHaveBeenCalled();
  });
});
