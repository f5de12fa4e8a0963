// `arbor serve`'s settings that its help names: apart from the modules that use them, which load
// the server, so that showing help loads nothing heavy.

/**
 * How long a dead instance's runs wait before another takes them over, by default (its lease's
 * life; renewed every third of it). Short enough that a takeover, with the sweep and the queue on
 * top, lands within 10 s; long enough that a database pause of a few seconds loses no lease.
 */
export const DEFAULT_TAKEOVER_MS = 5_000;

/**
 * How often `arbor serve` looks again for runs whose driver died after it started: a holder on
 * this host is known dead at once, one on another host when its lease expires, whenever that is.
 */
export const RESUME_SWEEP_MS = 3_000;

/** Where `arbor serve` takes its API token from, most explicit first. */
export const TOKEN_ENV = "ARBOR_TOKEN";
