extension Migration {
    /// What a version is when not a device's own edit, as history shows it (issue 59): "restore as
    /// of 2026-11-27T09:00:00Z", or an import's source. NULL: a device's write. And the newest
    /// cutoff the version purge applied: a file whose oldest kept version is older than it may
    /// have lost the version before (the vault as of a moment reports it, instead of deleting it).
    static let versionOrigin = Migration(version: 34, name: "version_origin", sql: """
        ALTER TABLE file_versions ADD COLUMN origin TEXT;
        CREATE TABLE version_purges (
            one           BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
            purged_before TIMESTAMPTZ NOT NULL
        );
        """)
}
