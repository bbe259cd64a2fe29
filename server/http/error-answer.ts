/** The JSON error body every route answers with. */
export function errorBody(code: string, message: string) {
  return { error: { code, message } };
}

/** An error as it is answered: status, machine code and message, and the headers it needs. */
export interface ErrorAnswer {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}
