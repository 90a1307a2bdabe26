import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestContext {
  requestId: string;
}

/** The request being served, for whatever runs on its behalf (log lines carry its id). */
export const requestContext = new AsyncLocalStorage<RequestContext>();
