/**
 * What the domain logs through: a structured line with its fields first, as pino (Fastify's
 * logger) writes it. The process hands in its logger; the domain never names the framework.
 */
export interface Logger {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}
