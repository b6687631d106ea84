// An API failure as both ends name it: the HTTP status and the error body's code, message,
// field and line (ErrorBody). The server throws it; the client turns error replies into it.
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly line?: number,
  ) {
    super(message);
  }
}
