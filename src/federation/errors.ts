/** A start-up refusal: bad subsystem names, colliding wire names, a bad config file. */
export class FederationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FederationError';
  }
}
