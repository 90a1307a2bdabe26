/**
 * Lets at most `slots` viewers' connections set up at once. Each joiner's ICE checks and DTLS handshake run in the
 * relay's event loop, in JavaScript, beside the packets of everyone already watching: a hundred joiners at a
 * webinar's start would otherwise stall those packets for seconds. A joiner beyond the slots waits its turn, at most
 * `maxWaitMs` (its WHEP request must still be answered within the request budget), then goes ahead anyway.
 */
export class JoinGate {
  private busy = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly slots: number,
    private readonly maxWaitMs: number,
    /** A slot is given back after this long at most, whatever became of the connection. */
    private readonly holdMs: number,
  ) {}

  /** Resolves when the caller may start setting up; call the function it returns once the connection is up or gave up. */
  async enter(): Promise<() => void> {
    if (this.busy >= this.slots) {
      await new Promise<void>((resolve) => {
        const go = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(go), 1);
          resolve();
        }, this.maxWaitMs);
        this.waiting.push(go);
      });
    }
    this.busy++;
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      clearTimeout(hold);
      this.busy--;
      this.waiting.shift()?.();
    };
    const hold = setTimeout(release, this.holdMs);
    hold.unref();
    return release;
  }
}
