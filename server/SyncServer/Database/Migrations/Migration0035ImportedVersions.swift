extension Migration {
    /// When an import wrote a version (issue 59): its `created_at` is then the time it was made in
    /// the system it came from (a commit's), and this marks it as imported. NULL: made in the vault.
    static let importedVersions = Migration(version: 35, name: "imported_versions", sql: """
        ALTER TABLE file_versions ADD COLUMN imported_at TIMESTAMPTZ;
        """)
}
