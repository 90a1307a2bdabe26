/**
 * Runs a task one at a time: a call while it runs gets the running promise and makes it run once more afterwards, so
 * a change notified during a reload is never missed and two reloads never overlap. `more` can stop the reruns (a
 * stopping process).
 */
export class CoalescedRun {
  private running?: Promise<void>;
  private again = false;

  constructor(
    private readonly task: () => Promise<void>,
    private readonly more: () => boolean = () => true,
  ) {}

  run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.task();
      } while (this.again && this.more());
    })().finally(() => (this.running = undefined));
    return this.running;
  }
}
