import { createHash } from 'node:crypto';
import { success } from './envelope';

/**
 * A success envelope serialised once, with its strong ETag (a hash of those bytes), for responses served many times
 * from a cache (the catalogue). The adapter's reply (envelopeOf) sends `bytes` as they are; Express answers a matching
 * If-None-Match with 304. `json` is what an idempotent replay stores; `data` stays available to in-process callers
 * (e.g. the preview page).
 */
export class SerializedBody<T = unknown> {
  readonly json: string;
  /**
   * The UTF-8 of `json`, encoded once. Express turns a string body of 1,000 characters or more into a new Buffer on
   * every send: for a catalogue page that is a copy and an off-heap allocation per request, which both costs CPU and
   * drives V8's external-memory garbage collections.
   */
  readonly bytes: Buffer;
  readonly etag: string;

  constructor(readonly data: T) {
    this.json = JSON.stringify(success(data));
    this.bytes = Buffer.from(this.json, 'utf8');
    this.etag = `"${createHash('sha1').update(this.bytes).digest('base64url')}"`;
  }
}
