import type * as Werift from 'werift';

let loaded: typeof Werift | undefined;

/**
 * werift, loaded when the first peer connection is made. Its ~180 modules cost ~0.2 s of CPU to load, which every
 * start of an instance paid (and every test file that boots the app) though most never carry a live session.
 */
export function werift(): typeof Werift {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (loaded ??= require('werift') as typeof Werift);
}
