import { createHash } from 'node:crypto';
import { success } from './envelope';

/**
 * A success envelope serialised once, with its strong ETag (a hash of those bytes), for responses served many times
 * from a cache (the catalogue). The adapter's reply (envelopeOf) sends `json` as is; Express answers a matching
 * If-None-Match with 304. `data` stays available to in-process callers (e.g. the preview page).
 */
export class SerializedBody<T = unknown> {
  readonly json: string;
  readonly etag: string;

  constructor(readonly data: T) {
    this.json = JSON.stringify(success(data));
    this.etag = `"${createHash('sha1').update(this.json).digest('base64url')}"`;
  }
}
