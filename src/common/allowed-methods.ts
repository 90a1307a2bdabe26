import { METHODS } from 'node:http';
import type { Request } from 'express';

interface RouteLayer {
  route?: { methods?: Record<string, boolean> };
  match?: (path: string) => boolean;
}

/**
 * The methods the application serves on a path, read from Express's route table (Nest registers every
 * controller route there). Used only once a request found no route, to tell 405 from 404; routes mounted for
 * every method (Nest's own not-found handlers) are not a method the path serves.
 */
export function allowedMethods(req: Request): string[] {
  const stack: RouteLayer[] = (req.app as unknown as { router?: { stack?: RouteLayer[] } }).router?.stack ?? [];
  // req.path is relative inside a mounted router (Nest's not-found handler under /api): use the full path.
  const path = req.originalUrl.split(/[?#]/)[0];
  const methods = new Set<string>();
  for (const layer of stack) {
    const served = layer.route?.methods;
    if (!served || servesEverything(served) || typeof layer.match !== 'function') continue;
    if (!layer.match(path)) continue;
    for (const [method, on] of Object.entries(served)) if (on) methods.add(method.toUpperCase());
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

/** `router.all()` registers every method Node knows (Express 5) or `_all` (Express 4). */
function servesEverything(served: Record<string, boolean>): boolean {
  return served._all === true || Object.keys(served).length >= METHODS.length / 2;
}
