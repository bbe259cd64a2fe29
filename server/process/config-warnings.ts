import type { ServerConfig } from './config';

/**
 * What in a configuration that starts is probably not what its operator meant, each a sentence
 * naming the setting, printed at start.
 */
export function configWarnings(config: Pick<ServerConfig, 'passSecret' | 'rooms'>): string[] {
  const warnings: string[] = [];
  if (config.passSecret !== undefined && config.rooms.every((room) => room.connectorOrigins.length === 0)) {
    warnings.push(
      'PASS_SECRET is set but no room takes connectors: passes go only to the origin, as Waiting-Room-Pass. ' +
        "A connector's visitors are refused (target_not_allowed) until CONNECTOR_ORIGINS (with ROOMS, a room's connectorOrigins) names the site's origin, e.g. https://shop.example.",
    );
  }
  return warnings;
}
