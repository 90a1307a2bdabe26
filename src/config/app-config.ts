/** Typed configuration, read once from the environment and validated at start-up. */
export interface AppConfig {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  host: string;
  databaseUrl: string;
  /** PostgreSQL connections per process. */
  databasePoolSize: number;
  /** Proxies whose X-Forwarded-For entries are believed: how many hops, or which addresses/CIDRs (false: none). */
  trustProxy: TrustProxy;
  redisUrl: string;
  /** Prefix for every Redis key and BullMQ queue, so several deployments or test runs share one Redis. */
  redisPrefix: string;
  publicBaseUrl: string;
  logLevel: string;
  runWorker: boolean;
  autoMigrate: boolean;
  loadDemoCatalogue: boolean;
  /** Every request is answered within this (503 if PostgreSQL or Redis is stuck); statement timeouts derive from it. */
  requestTimeoutMs: number;
  webhook: {
    allowPrivateTargets: boolean;
    retryDelaysMs: number[];
    timeoutMs: number;
    secretKey: string;
    /** How often the worker re-enqueues due deliveries from PostgreSQL (jobs Redis lost). */
    sweepIntervalMs: number;
    /** How often the worker's outbox relay dispatches events the API committed but never fanned out (a crash, or every retry failed). */
    relayIntervalMs: number;
    /** A subscription whose deliveries have all failed, with no success, for longer than this is disabled. */
    disableAfterMs: number;
  };
  search: {
    /** The embedded semantic engine (word vectors from npm), on by default. */
    embeddedEngine: boolean;
    /** The sentence encoder (Universal Sentence Encoder lite from npm) as one more ranker, on by default. */
    sentenceEncoder: boolean;
    /** Worker threads that encode course texts in the background (default: every core). */
    encoderThreads: number;
    embeddingsUrl?: string;
    embeddingsModel: string;
    embeddingsApiKey?: string;
  };
  metricsToken?: string;
  /** Benchmark-only (BENCH_DISABLE_AUTH, never in production): the key guard lets catalogue reads through, so bench:catalogue can price the guard. */
  benchDisableAuth: boolean;
  /** Development defaults in force, warned about at start-up (see development-defaults.ts). */
  developmentDefaults: string[];
  /** Outgoing mail (partners' e-mail verification links); without `url` the links are logged instead of sent. */
  smtp: {
    url: string | null;
    from: string;
  };
  credentials: {
    /** The Ed25519 key that signs portable credentials (CREDENTIAL_SIGNING_KEY); null outside production when unset: one is then generated and kept in the database. */
    signingKey: Ed25519PrivateJwk | null;
  };
  jobs: {
    /** How often the worker re-enqueues unfinished jobs whose queue entry is gone (and how long a job must be idle). */
    sweepIntervalMs: number;
  };
  media: {
    /** MEDIA_PUBLIC_IP: the address announced in the relay's ICE candidates; unset = the host's own addresses. */
    publicIp?: string;
    /** MEDIA_UDP_PORTS: the UDP port range the relay's sessions bind in; unset = any free port. */
    udpPorts?: [number, number];
    /** MEDIA_INTERNAL_URL: where the other instances reach this one's HTTP port to forward signalling; unset = this host's loopback and bound port. */
    internalUrl?: string;
    /** WEBRTC_ICE_SERVERS: STUN/TURN servers handed to the pages (RTCIceServer objects). */
    iceServers: Array<{ urls: string | string[]; username?: string; credential?: string }>;
    /** MEDIA_MAX_VIEWERS: viewer sessions this process's relay carries at once, across its webinars; beyond, WHEP answers 503. */
    maxViewers: number;
  };
  limits: {
    /** Self-service registrations per client IP per hour (5 by default: enough for a person, too few for a script). */
    registrationsPerHour: number;
    /** Keyless certificate requests (verification, page, credential, key set, download) per client IP per minute, each route counted apart. */
    verificationsPerMinute: number;
    /** Failed key authentications per client IP per minute before 401 turns into 429 (30 by default: slows key guessing). */
    authFailuresPerMinute: number;
  };
}

export type TrustProxy = false | number | string[];

/** An Ed25519 private key as a JWK (RFC 8037). */
export interface Ed25519PrivateJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  d: string;
}
