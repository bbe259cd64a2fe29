/** A complete, valid page config as the server renders it; tests change one field at a time. */
export function validConfig(overrides: Record<string, unknown> = {}): Record<string, any> {
  return {
    queue: { uuid: '0b7c5b2e-1f7d-4d8e-9a3c-2f1e6b7a9c10', uri: '/checkout?item=42', method: 'GET', position: 12 },
    user: { id: 0 },
    csrfToken: 'csrf-token',
    realtime: { key: 'app-key', host: 'localhost', port: 8080, forceTLS: false, cluster: 'local' },
    routes: { queue_request: '/queue/request', queue_info: '/queue/info/{uuid}' },
    errorReporting: { dsn: 'http://public@localhost:8080/1', sampleRate: 0.5, release: '1.0.0' },
    ...overrides,
  };
}

/** Puts `config` (or raw text) into the page as the server does. */
export function renderConfigElement(doc: Document, config: unknown): void {
  doc.getElementById('waiting-room-config')?.remove();
  const element = doc.createElement('script');
  element.id = 'waiting-room-config';
  element.type = 'application/json';
  element.textContent = typeof config == 'string' ? config : JSON.stringify(config);
  doc.body.append(element);
}
