import { HttpError } from '../errors';
import { LANGUAGE_ROUTE } from '../languages';
import { errorResponses } from '../openapi';
import type { SchemaTypedApp } from '../type-provider';

/**
 * One language's visitor texts, for a page whose visitor picks another language: the same
 * `language` the page config carries. The page keeps its place and connection and only
 * swaps its texts; the choice is kept in the `wr_locale` cookie, which the page writes and the
 * server reads for every later page (`languages.ts`). The same for every visitor, so cacheable.
 */
export async function languageRoutes(app: SchemaTypedApp): Promise<void> {
  app.get(
    LANGUAGE_ROUTE.replace('{locale}', ':locale'),
    {
      schema: {
        summary: "One language's visitor texts, for a switch of language on the waiting page",
        tags: ['waiting page'],
        params: {
          type: 'object',
          required: ['locale'],
          properties: { locale: { type: 'string', description: 'A locale the server speaks, e.g. ar, pt-BR, zh-Hant (404 for any other).' } },
        },
        response: {
          200: {
            type: 'object',
            required: ['locale', 'dir', 'messages'],
            properties: {
              locale: { type: 'string' },
              dir: { type: 'string', enum: ['ltr', 'rtl'] },
              messages: {
                type: 'object',
                additionalProperties: true,
                description: 'Each message by key: a text with {placeholders}, or plural forms by Intl.PluralRules category.',
              },
              choices: { type: 'object', additionalProperties: true, description: 'The languages offered, each by its own name, and this route.' },
            },
          },
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      const { locale } = request.params;
      const found = app.languages.find(locale);
      if (found === undefined) throw new HttpError(404, 'unknown_locale', 'The waiting room does not speak this language.');
      reply.header('cache-control', 'public, max-age=300');
      return app.languages.get(found).json;
    },
  );
}
