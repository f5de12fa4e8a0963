/** The time as ISO text, made once per millisecond: appends come many to a millisecond. */
export class MsClock {
  private ms = 0;
  private iso = "";

  now(): string {
    const ms = Date.now();
    if (ms !== this.ms) {
      this.ms = ms;
      this.iso = new Date(ms).toISOString();
    }
    return this.iso;
  }
}
