// How long a client may take to send a request. Node's own limits apply per server, so
// they are set for the longest legitimate case (a 1 GiB upload on a slow link), and the
// shorter limits of ordinary routes are kept here: uploads end after a while without
// data (upload.ts), every other body must be whole within a deadline (bodyDeadline).
import type { Server } from 'node:http';
import type { RequestHandler } from 'express';

const HEADERS_TIMEOUT_MS = 20_000;

export function configureTimeouts(server: Server): void {
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  // Large uploads on slow links outlast Node's 5-minute default; the size cap and the idle limit bound them instead.
  server.requestTimeout = 60 * 60_000;
  // Idle keep-alive sockets outlive a client's pause (and a proxy's idle timeout) instead
  // of being closed just as the client reuses them.
  server.keepAliveTimeout = 65_000;
}

/** Ends the connection of a non-multipart request whose body is not whole after `ms` (a slow JSON or PNG sender). */
export function bodyDeadline(ms: number): RequestHandler {
  return (req, res, next) => {
    // req.is: null when the request has no body (a GET), which has nothing to wait for: no timer per read.
    if (req.complete || req.is('multipart/form-data') !== false) return next();
    const timer = setTimeout(() => {
      if (!req.complete) req.socket.destroy();
    }, ms);
    res.once('close', () => clearTimeout(timer));
    next();
  };
}
