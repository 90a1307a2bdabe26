/** What to log or print for anything thrown: an Error's message, or the thrown value itself (`throw 'x'`, a rejected non-Error). */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
