import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_CODES, ErrorCode } from './errors';

/** How long a client may take to send its request line and headers. */
export const HEADERS_TIMEOUT_MS = 15_000;

/**
 * Requests Node's HTTP parser refuses before Express sees them (request line and headers over the 16 kB limit,
 * malformed HTTP) get the JSON error envelope instead of Node's bare status line.
 */
export function answerClientErrorsWithEnvelope(server: Server): void {
  // A client trickling header lines (one every few seconds) would otherwise hold its socket for Node's 60 s, checked
  // every 30 s: the request line and headers must be complete within HEADERS_TIMEOUT_MS, checked every second.
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  // Read when the server starts listening (a createServer option that @types/node leaves off the Server).
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = 1000;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const code: ErrorCode = err.code === 'HPE_HEADER_OVERFLOW' ? 'headers_too_large' : 'validation_failed';
    const [status, message] = ERROR_CODES[code];
    const requestId = `req_${randomUUID().replace(/-/g, '')}`;
    const body = JSON.stringify({ status: 'error', error: { code, message, request_id: requestId } });
    socket.end(
      `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
