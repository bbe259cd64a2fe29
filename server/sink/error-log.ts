/** One report the page sent (through the Sentry SDK), as the admin API lists it. */
export interface ErrorReport {
  readonly message: string;
  readonly level: string;
  readonly release: string | null;
  /** ISO time the sink received it. */
  readonly receivedAt: string;
}

/** The last `capacity` reports, oldest first. */
export class ErrorLog {
  private readonly reports: ErrorReport[] = [];

  constructor(private readonly capacity = 100) {}

  add(report: ErrorReport): void {
    this.reports.push(report);
    if (this.reports.length > this.capacity) this.reports.splice(0, this.reports.length - this.capacity);
  }

  list(): readonly ErrorReport[] {
    return [...this.reports];
  }
}
