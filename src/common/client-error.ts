import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_CODES, ErrorCode } from './errors';

/**
 * Requests Node's HTTP parser refuses before Express sees them (request line and headers over the 16 kB limit,
 * malformed HTTP) get the JSON error envelope instead of Node's bare status line.
 */
export function answerClientErrorsWithEnvelope(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
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
