import express, { Request } from 'express';

export const SDP_TYPE = 'application/sdp';
/** WHIP/WHEP trickle ICE fragments (RFC 8840): accepted as text so the route can answer its own 405. */
export const SDPFRAG_TYPE = 'application/trickle-ice-sdpfrag';

// The WebRTC signalling routes (WHIP and WHEP) take SDP, not JSON.
const SIGNALLING_PATH = /^\/live\/[^/]+\/(whip|whep)(\/[^/]+)?\/?$/;

export function isSignallingPath(req: Request): boolean {
  return SIGNALLING_PATH.test(req.originalUrl.split('?')[0]);
}

/** SDP bodies up to 100 kB as a string; browsers' offers are a few kB. */
export const sdpParser = express.text({ limit: '100kb', type: [SDP_TYPE, SDPFRAG_TYPE] });
