import type { FastifyInstance } from 'fastify';
import { requireAdminAccess, type AdminAccessOptions } from '../admin/access';
import type { Metrics } from '../metrics';
import { ADMIN_SECURITY, errorResponses } from '../openapi';

/** `GET /metrics`: the Prometheus exposition of `metrics`, behind the admin token. */
export async function metricsRoutes(app: FastifyInstance, options: { readonly metrics: Metrics; readonly access: AdminAccessOptions }): Promise<void> {
  requireAdminAccess(app, options.access);
  app.get(
    '/metrics',
    {
      schema: {
        summary: 'Prometheus metrics',
        description:
          "The line's gauges (the same on every instance of a room: take max), this instance's counters and histograms (take sum), and Node's process metrics.",
        tags: ['admin'],
        security: ADMIN_SECURITY,
        response: { 200: { type: 'string', description: 'Prometheus text format 0.0.4' }, ...errorResponses(401) },
      },
    },
    async (_request, reply) => {
      const { contentType, body } = await options.metrics.exposition();
      return reply.header('cache-control', 'no-store').type(contentType).send(body);
    },
  );
}
