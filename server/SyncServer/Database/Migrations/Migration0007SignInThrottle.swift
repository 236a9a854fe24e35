extension Migration {
    /// Failed sign-ins per key (an account from one address, or one address), shared by every
    /// server instance: see ``SignInThrottle``.
    static let signInThrottle = Migration(version: 7, name: "sign_in_throttle", sql: """
        CREATE TABLE sign_in_failures (
            key              TEXT PRIMARY KEY,
            failures         INTEGER NOT NULL,
            last_failure_at  TIMESTAMPTZ NOT NULL,
            blocked_until    TIMESTAMPTZ
        );
        """)
}
