extension Migration {
    /// The nonces of ID tokens already used (``IdentityNonces``): an ID token signs in once. Kept
    /// until the nonce would have expired anyway, then purged.
    static let identityNonces = Migration(version: 15, name: "identity_nonces", sql: """
        CREATE TABLE used_identity_nonces (
            nonce_hash  TEXT PRIMARY KEY,
            expires_at  TIMESTAMPTZ NOT NULL
        );
        """)
}
